-- Search across runs by content (issue 32): a trigram full-text index over every event's
-- stored (redacted) body, kept by the database itself. FTS5's trigram tokenizer matches
-- any substring of three or more characters, case-insensitively. Contentless (the text is
-- in "Event" already), keyed by the event row's rowid; contentless_delete lets a row be
-- removed by rowid. The triggers keep it a function of "Event"."body": an insert indexes
-- the body, a delete (a run removed, cleared or purged) removes it, and a body rewritten
-- (retention dropping payloads) is indexed anew, so dropped payloads leave the index.
-- Prisma does not model virtual tables; lib/server/content-search.ts reads it.
CREATE VIRTUAL TABLE "EventText" USING fts5("body", tokenize = 'trigram', content = '', contentless_delete = 1);

-- Backfill: the events stored before this migration.
INSERT INTO "EventText" (rowid, "body") SELECT rowid, "body" FROM "Event";

CREATE TRIGGER "Event_text_insert" AFTER INSERT ON "Event" BEGIN
  INSERT INTO "EventText" (rowid, "body") VALUES (new.rowid, new."body");
END;

CREATE TRIGGER "Event_text_delete" AFTER DELETE ON "Event" BEGIN
  DELETE FROM "EventText" WHERE rowid = old.rowid;
END;

CREATE TRIGGER "Event_text_update" AFTER UPDATE OF "body" ON "Event" BEGIN
  DELETE FROM "EventText" WHERE rowid = old.rowid;
  INSERT INTO "EventText" (rowid, "body") VALUES (new.rowid, new."body");
END;
