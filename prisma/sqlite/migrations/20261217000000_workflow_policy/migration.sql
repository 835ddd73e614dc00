-- Attaching a policy to runs that came without one (issue 33).
ALTER TABLE "Run" ADD COLUMN "attachedPolicy" TEXT;
ALTER TABLE "Run" ADD COLUMN "policyVersion" INTEGER;

CREATE TABLE "WorkflowPolicy" (
    "workflow" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "policy" TEXT NOT NULL,
    "createdBy" TEXT NOT NULL,
    "createdAt" REAL NOT NULL,

    PRIMARY KEY ("workflow", "version")
);
