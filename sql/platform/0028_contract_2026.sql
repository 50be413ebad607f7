-- Since 2026-10-30 Supabase grants the API roles nothing on new tables and
-- functions in public (changelog 45329): a table is reachable through the
-- Data API once a migration GRANTs it, and RLS decides as before. Objects
-- that exist keep their grants. 0001 set the earlier default; this takes
-- it back. BASALT_PUBLIC_DEFAULT_GRANTS=true restores it after every
-- migration run (platform.DefaultPrivileges), for databases whose
-- migrations rely on it.
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON TABLES FROM anon, authenticated, service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON ROUTINES FROM anon, authenticated, service_role;
