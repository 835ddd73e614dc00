-- DropIndex
DROP INDEX "Event_runId_tsMs_idx";

