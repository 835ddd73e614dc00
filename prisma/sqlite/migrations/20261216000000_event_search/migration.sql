-- Search across runs by content (issue 32): a trigram full-text index over the text of every
-- event's stored (redacted) body, kept by the database itself. FTS5's trigram tokenizer finds
-- any substring of three or more characters, case-insensitively.
--
-- Made to be cheap to keep (docs/benchmarks.md, "Ingest with the search index"):
-- - detail=none: the index holds which events have a trigram, not where. A query asks for
--   events holding all of its trigrams (candidates), and lib/server/content-search.ts
--   keeps those whose body holds the query itself (LIKE, escaped), so a match is literal.
-- - Only the body's string values are indexed (json_tree, type 'text'), one a line: not
--   its keys, numbers or the envelope's run, ts, type and step (columns of "Event"
--   already), which every event repeats. A body that is not JSON is indexed whole.
-- - Contentless (the text is in "Event"), keyed by the event row's rowid; contentless_delete
--   lets a row be removed by rowid.
-- The triggers keep it a function of "Event"."body": an insert indexes the body, a delete (a
-- run removed, cleared or purged) removes it, and a body rewritten (retention dropping
-- payloads) is indexed anew, so dropped payloads leave the index.
-- Prisma does not model virtual tables; lib/server/content-search.ts reads it.
CREATE VIRTUAL TABLE "EventText" USING fts5("text", tokenize = 'trigram', content = '', contentless_delete = 1, detail = none);

-- Backfill: the events stored before this migration.
INSERT INTO "EventText" (rowid, "text")
SELECT rowid, CASE WHEN json_valid("body") THEN (
  SELECT group_concat(j."value", char(10)) FROM json_tree("Event"."body") j
  WHERE j."type" = 'text' AND NOT (j."parent" = 0 AND j."key" IN ('run', 'ts', 'type', 'step'))
) ELSE "body" END FROM "Event";

CREATE TRIGGER "Event_text_insert" AFTER INSERT ON "Event" BEGIN
  INSERT INTO "EventText" (rowid, "text") VALUES (new.rowid, CASE WHEN json_valid(new."body") THEN (
    SELECT group_concat(j."value", char(10)) FROM json_tree(new."body") j
    WHERE j."type" = 'text' AND NOT (j."parent" = 0 AND j."key" IN ('run', 'ts', 'type', 'step'))
  ) ELSE new."body" END);
END;

CREATE TRIGGER "Event_text_delete" AFTER DELETE ON "Event" BEGIN
  DELETE FROM "EventText" WHERE rowid = old.rowid;
END;

CREATE TRIGGER "Event_text_update" AFTER UPDATE OF "body" ON "Event" BEGIN
  DELETE FROM "EventText" WHERE rowid = old.rowid;
  INSERT INTO "EventText" (rowid, "text") VALUES (new.rowid, CASE WHEN json_valid(new."body") THEN (
    SELECT group_concat(j."value", char(10)) FROM json_tree(new."body") j
    WHERE j."type" = 'text' AND NOT (j."parent" = 0 AND j."key" IN ('run', 'ts', 'type', 'step'))
  ) ELSE new."body" END);
END;
