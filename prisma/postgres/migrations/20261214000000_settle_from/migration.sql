-- A gap filled late by a live append is settled lazily (issue 27): where it starts.
ALTER TABLE "Run" ADD COLUMN "settleFrom" INTEGER;
