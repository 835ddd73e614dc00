-- The run page's binary summary, built once per run version (issue 19).
CREATE TABLE "RunSummaryBlob" (
    "runId" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "bytes" BYTEA NOT NULL,
    CONSTRAINT "RunSummaryBlob_pkey" PRIMARY KEY ("runId")
);
ALTER TABLE "RunSummaryBlob" ADD CONSTRAINT "RunSummaryBlob_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;
