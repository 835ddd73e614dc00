-- The run page's binary summary, built once per run version (issue 19).
CREATE TABLE "RunSummaryBlob" (
    "runId" TEXT NOT NULL PRIMARY KEY,
    "version" TEXT NOT NULL,
    "bytes" BLOB NOT NULL,
    CONSTRAINT "RunSummaryBlob_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
