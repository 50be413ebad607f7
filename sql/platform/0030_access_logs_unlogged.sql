-- The access log is observability, not data: one row per API request, so
-- every request paid for its row's WAL (heap and three indexes), the
-- commit's flush, and the realtime slot decoding records it then throws
-- away (8-10 % of the database's CPU on a single-row read). Unlogged, the
-- rows skip all of that. The price, stated in docs/internals.md: a crash
-- of PostgreSQL empties the table, and physical replicas do not carry it
-- (Studio reads it from the primary). A table someone added to a
-- publication cannot become unlogged; it is left as it is.
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_publication_rel WHERE prrelid = 'basalt.access_logs'::regclass)
     AND (SELECT relpersistence FROM pg_class WHERE oid = 'basalt.access_logs'::regclass) = 'p' THEN
    ALTER TABLE basalt.access_logs SET UNLOGGED;
  END IF;
END $$;
