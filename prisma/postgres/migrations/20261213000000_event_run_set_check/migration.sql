-- Event → Run checked once per statement instead of once per row (issue 19).
--
-- The foreign key check is an SPI lookup per inserted row: measured on a 100,000-event
-- COPY, 0.65 s of the 1.30 s of CPU the server spent. Ingest writes a run's rows in one
-- COPY, so the same guarantee is given per statement: the runs named by the rows of the
-- statement (its transition table), each locked FOR KEY SHARE as the foreign key would
-- lock it (a concurrent delete of the run waits for this transaction), and any missing
-- one refused with the error the foreign key gave. Measured the same way: 0.85 s in all.
--
-- What the foreign key also did is kept by triggers on Run: the events of a deleted run
-- are deleted, those of a renamed run follow it, and an UPDATE moving an event to another run
-- is checked row by row (nothing in Retrace does that, and it is not left unchecked).
-- The AFTER triggers on Run fire once the row of the run is deleted, which waits for any
-- transaction holding its lock, so the events such a transaction added are deleted too.
-- The Prisma schema keeps the relation (its client and types): this migration is the one
-- place where PostgreSQL enforces it otherwise than with a foreign key.
--
-- The pg driver adapter runs a migration as statements split at every semicolon, so the
-- function bodies are E-strings that write theirs as \x3B.
ALTER TABLE "Event" DROP CONSTRAINT "Event_runId_fkey";

CREATE FUNCTION "retrace_event_runs_exist"() RETURNS trigger LANGUAGE plpgsql AS E'
DECLARE
  missing TEXT\x3B
BEGIN
  SELECT n."runId" INTO missing
  FROM (SELECT DISTINCT "runId" FROM new_rows) n
  LEFT JOIN LATERAL (SELECT r."id" FROM "Run" r WHERE r."id" = n."runId" FOR KEY SHARE) k ON TRUE
  WHERE k."id" IS NULL
  LIMIT 1\x3B
  IF FOUND THEN
    RAISE EXCEPTION ''insert or update on table "Event" violates foreign key constraint "Event_runId_fkey"''
      USING ERRCODE = ''foreign_key_violation'', CONSTRAINT = ''Event_runId_fkey'', TABLE = ''Event'',
        DETAIL = format(''Key ("runId")=(%s) is not present in table "Run".'', missing)\x3B
  END IF\x3B
  RETURN NULL\x3B
END';

CREATE TRIGGER "Event_runId_insert" AFTER INSERT ON "Event"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "retrace_event_runs_exist"();

CREATE FUNCTION "retrace_event_run_exists"() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  PERFORM 1 FROM "Run" WHERE "id" = NEW."runId" FOR KEY SHARE\x3B
  IF NOT FOUND THEN
    RAISE EXCEPTION ''insert or update on table "Event" violates foreign key constraint "Event_runId_fkey"''
      USING ERRCODE = ''foreign_key_violation'', CONSTRAINT = ''Event_runId_fkey'', TABLE = ''Event'',
        DETAIL = format(''Key ("runId")=(%s) is not present in table "Run".'', NEW."runId")\x3B
  END IF\x3B
  RETURN NULL\x3B
END';

CREATE TRIGGER "Event_runId_update" AFTER UPDATE OF "runId" ON "Event"
  FOR EACH ROW WHEN (OLD."runId" IS DISTINCT FROM NEW."runId") EXECUTE FUNCTION "retrace_event_run_exists"();

CREATE FUNCTION "retrace_run_delete_events"() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  DELETE FROM "Event" WHERE "runId" = OLD."id"\x3B
  RETURN NULL\x3B
END';

CREATE TRIGGER "Run_delete_events" AFTER DELETE ON "Run"
  FOR EACH ROW EXECUTE FUNCTION "retrace_run_delete_events"();

CREATE FUNCTION "retrace_run_rename_events"() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  UPDATE "Event" SET "runId" = NEW."id" WHERE "runId" = OLD."id"\x3B
  RETURN NULL\x3B
END';

CREATE TRIGGER "Run_rename_events" AFTER UPDATE OF "id" ON "Run"
  FOR EACH ROW WHEN (OLD."id" IS DISTINCT FROM NEW."id") EXECUTE FUNCTION "retrace_run_rename_events"();
