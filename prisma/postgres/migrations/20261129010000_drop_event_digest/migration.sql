-- AlterTable
ALTER TABLE "Event" DROP COLUMN "digest";

