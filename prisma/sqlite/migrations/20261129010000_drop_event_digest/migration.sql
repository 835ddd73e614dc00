-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Event" (
    "runId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "ts" TEXT NOT NULL,
    "tsMs" REAL NOT NULL,
    "type" TEXT NOT NULL,
    "step" TEXT,
    "parent" INTEGER,
    "call" TEXT,
    "name" TEXT,
    "status" TEXT,
    "latencyMs" REAL,
    "tokens" INTEGER,
    "bytes" INTEGER NOT NULL,
    "body" TEXT NOT NULL,
    "recordedHash" TEXT,
    "chain" TEXT NOT NULL,
    "hash" TEXT,
    "redactions" INTEGER NOT NULL DEFAULT 0,

    PRIMARY KEY ("runId", "seq"),
    CONSTRAINT "Event_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_Event" ("body", "bytes", "call", "chain", "hash", "latencyMs", "name", "parent", "recordedHash", "redactions", "runId", "seq", "status", "step", "tokens", "ts", "tsMs", "type") SELECT "body", "bytes", "call", "chain", "hash", "latencyMs", "name", "parent", "recordedHash", "redactions", "runId", "seq", "status", "step", "tokens", "ts", "tsMs", "type" FROM "Event";
DROP TABLE "Event";
ALTER TABLE "new_Event" RENAME TO "Event";
CREATE INDEX "Event_runId_tsMs_idx" ON "Event"("runId", "tsMs");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

