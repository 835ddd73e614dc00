-- Retention's first stage (issue 18): days after which a purge drops a project's payloads,
-- keeping each run's summary, findings and hashes (null keeps payloads as long as the run)
ALTER TABLE "Project" ADD COLUMN "payloadDays" INTEGER;

-- When a purge dropped the run's payloads (epoch ms), null while they are kept
ALTER TABLE "Run" ADD COLUMN "payloadsDroppedAt" DOUBLE PRECISION;
