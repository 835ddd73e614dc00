-- Runs belong to a project. What existed before moves into "default".
ALTER TABLE "Run" ADD COLUMN "projectId" TEXT NOT NULL DEFAULT 'default';
CREATE INDEX "Run_projectId_idx" ON "Run"("projectId");

-- CreateTable
CREATE TABLE "Project" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "createdAt" REAL NOT NULL,
    PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "User" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "passwordHash" TEXT NOT NULL,
    "createdAt" REAL NOT NULL,
    "disabledAt" REAL,
    PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "User_name_key" ON "User"("name");

-- CreateTable
CREATE TABLE "Membership" (
    "userId" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "environments" TEXT NOT NULL DEFAULT '',
    PRIMARY KEY ("userId", "projectId"),
    CONSTRAINT "Membership_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Membership_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "Membership_projectId_idx" ON "Membership"("projectId");

-- CreateTable
CREATE TABLE "Session" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "createdMs" REAL NOT NULL,
    "lastSeenMs" REAL NOT NULL,
    PRIMARY KEY ("id"),
    CONSTRAINT "Session_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "Session_userId_idx" ON "Session"("userId");

-- CreateTable
CREATE TABLE "ApiKey" (
    "id" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "createdMs" REAL NOT NULL,
    "createdBy" TEXT NOT NULL,
    "lastUsedMs" REAL,
    "revokedMs" REAL,
    PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "ApiKey_hash_key" ON "ApiKey"("hash");
CREATE INDEX "ApiKey_projectId_idx" ON "ApiKey"("projectId");

-- CreateTable
CREATE TABLE "LoginThrottle" (
    "key" TEXT NOT NULL,
    "failures" INTEGER NOT NULL,
    "firstMs" REAL NOT NULL,
    PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "AuditEntry" (
    "seq" INTEGER NOT NULL,
    "ts" TEXT NOT NULL,
    "actor" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "project" TEXT,
    "target" TEXT,
    "reason" TEXT,
    "result" TEXT NOT NULL,
    "detail" TEXT NOT NULL DEFAULT '{}',
    "prevHash" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    PRIMARY KEY ("seq")
);

-- The default project every existing run now belongs to
INSERT INTO "Project" ("id", "name", "createdAt") VALUES ('default', 'Default', (CAST(strftime('%s','now') AS REAL) * 1000));
