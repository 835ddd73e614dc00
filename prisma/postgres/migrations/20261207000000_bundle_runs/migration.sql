-- A run opened from a verified audit bundle (issue 18) is read-only and keeps its
-- provenance here as JSON (bundle SHA-256, signing key, exporter, profile, original run id).
-- Null for every other run.
ALTER TABLE "Run" ADD COLUMN "bundle" TEXT;
