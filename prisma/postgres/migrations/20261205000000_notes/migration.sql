-- Reviewer notes (issue 18), kept apart from the events: a note never changes the journal.
CREATE TABLE "Note" (
    "id" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "seq" INTEGER,
    "rule" TEXT,
    "label" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "author" TEXT NOT NULL,
    "createdAt" TEXT NOT NULL,
    "createdMs" DOUBLE PRECISION NOT NULL,
    CONSTRAINT "Note_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "Note_runId_idx" ON "Note"("runId");
CREATE INDEX "Note_projectId_idx" ON "Note"("projectId");
ALTER TABLE "Note" ADD CONSTRAINT "Note_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- JSON paths the reviewer profile of an audit bundle replaces, one a line
ALTER TABLE "Project" ADD COLUMN "reviewerFields" TEXT NOT NULL DEFAULT '';
