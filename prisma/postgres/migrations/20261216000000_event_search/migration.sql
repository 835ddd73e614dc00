-- Search across runs by content (issue 32): a trigram index over every event's stored
-- (redacted) body, so `"body" ILIKE '%…%'` with three or more characters is answered from
-- the index instead of a scan. PostgreSQL keeps it with the rows: an insert (COPY
-- included) indexes the body, a delete removes it, and retention's rewrite of a body
-- (payloads dropped) replaces its entries. Building it is the backfill of existing events.
-- pg_trgm is a trusted extension (PostgreSQL 13+): the database's owner may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE INDEX "Event_body_trgm" ON "Event" USING gin ("body" gin_trgm_ops);
