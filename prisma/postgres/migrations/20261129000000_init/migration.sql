-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "Run" (
    "id" TEXT NOT NULL,
    "workflow" TEXT,
    "workflowVersion" TEXT,
    "agent" TEXT,
    "agentVersion" TEXT,
    "environment" TEXT,
    "initiator" TEXT,
    "status" TEXT NOT NULL DEFAULT 'incomplete',
    "live" BOOLEAN NOT NULL DEFAULT false,
    "startedAt" TEXT,
    "startedMs" DOUBLE PRECISION,
    "endedAt" TEXT,
    "endedMs" DOUBLE PRECISION,
    "lastEventMs" DOUBLE PRECISION,
    "eventCount" INTEGER NOT NULL DEFAULT 0,
    "errorCount" INTEGER NOT NULL DEFAULT 0,
    "findingCount" INTEGER NOT NULL DEFAULT 0,
    "fidelity" TEXT NOT NULL DEFAULT 'partial',
    "chainStatus" TEXT NOT NULL DEFAULT 'unverified',
    "chainBrokenAt" INTEGER,
    "recorderLastHash" TEXT,
    "serverLastHash" TEXT,
    "nextSeq" INTEGER NOT NULL DEFAULT 0,
    "maxSeq" INTEGER NOT NULL DEFAULT -1,
    "header" TEXT NOT NULL DEFAULT '{}',
    "searchText" TEXT NOT NULL DEFAULT '',
    "tags" TEXT NOT NULL DEFAULT '',
    "source" TEXT NOT NULL DEFAULT 'upload',
    "analysis" TEXT,
    "analyzedSeq" INTEGER NOT NULL DEFAULT -1,
    "createdAt" DOUBLE PRECISION NOT NULL,
    "updatedAt" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "Run_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Event" (
    "runId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "ts" TEXT NOT NULL,
    "tsMs" DOUBLE PRECISION NOT NULL,
    "type" TEXT NOT NULL,
    "step" TEXT,
    "parent" INTEGER,
    "call" TEXT,
    "name" TEXT,
    "status" TEXT,
    "latencyMs" DOUBLE PRECISION,
    "tokens" INTEGER,
    "bytes" INTEGER NOT NULL,
    "body" TEXT NOT NULL,
    "digest" TEXT NOT NULL,
    "recordedHash" TEXT,
    "chain" TEXT NOT NULL,
    "hash" TEXT,
    "redactions" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "Event_pkey" PRIMARY KEY ("runId","seq")
);

-- CreateTable
CREATE TABLE "Finding" (
    "id" SERIAL NOT NULL,
    "runId" TEXT NOT NULL,
    "rule" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "severity" TEXT NOT NULL,
    "message" TEXT NOT NULL,

    CONSTRAINT "Finding_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Setting" (
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,

    CONSTRAINT "Setting_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "TraceSpan" (
    "traceId" TEXT NOT NULL,
    "spanId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "startNs" TEXT NOT NULL,
    "body" TEXT NOT NULL,

    CONSTRAINT "TraceSpan_pkey" PRIMARY KEY ("traceId","spanId")
);

-- CreateIndex
CREATE INDEX "Run_startedMs_idx" ON "Run"("startedMs");

-- CreateIndex
CREATE INDEX "Run_workflow_idx" ON "Run"("workflow");

-- CreateIndex
CREATE INDEX "Run_status_idx" ON "Run"("status");

-- CreateIndex
CREATE INDEX "Run_environment_idx" ON "Run"("environment");

-- CreateIndex
CREATE INDEX "Run_updatedAt_idx" ON "Run"("updatedAt");

-- CreateIndex
CREATE INDEX "Event_runId_tsMs_idx" ON "Event"("runId", "tsMs");

-- CreateIndex
CREATE INDEX "Finding_runId_idx" ON "Finding"("runId");

-- CreateIndex
CREATE UNIQUE INDEX "Finding_runId_rule_seq_key" ON "Finding"("runId", "rule", "seq");

-- CreateIndex
CREATE INDEX "TraceSpan_runId_idx" ON "TraceSpan"("runId");

-- AddForeignKey
ALTER TABLE "Event" ADD CONSTRAINT "Event_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Finding" ADD CONSTRAINT "Finding_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

