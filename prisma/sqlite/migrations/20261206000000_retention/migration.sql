-- Retention (issue 18): days after which a purge removes a project's runs (null keeps them)
ALTER TABLE "Project" ADD COLUMN "retentionDays" INTEGER;

-- Legal hold: a purge never removes a held run
ALTER TABLE "Run" ADD COLUMN "legalHold" BOOLEAN NOT NULL DEFAULT false;
