-- Live actions (issue 17): executors per project (credential encrypted under a key file
-- kept with the data), and the branch runs live actions made.
CREATE TABLE "Executor" (
    "id" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "credential" TEXT,
    "createdMs" DOUBLE PRECISION NOT NULL,
    "createdBy" TEXT NOT NULL,
    CONSTRAINT "Executor_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "Executor_projectId_idx" ON "Executor"("projectId");

CREATE TABLE "LiveBranch" (
    "runId" TEXT NOT NULL,
    "originalRun" TEXT NOT NULL,
    "forkSeq" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "call" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "externalId" TEXT,
    "environment" TEXT NOT NULL,
    "actor" TEXT NOT NULL,
    "auditSeq" INTEGER NOT NULL,
    "createdMs" DOUBLE PRECISION NOT NULL,
    CONSTRAINT "LiveBranch_pkey" PRIMARY KEY ("runId")
);
CREATE INDEX "LiveBranch_originalRun_idx" ON "LiveBranch"("originalRun");
