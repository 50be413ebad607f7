-- The storage service sends the role switch and the statement it protects
-- as one pipeline (one round trip). The client prepares each new statement
-- of a pipeline before sending it, that is before the switch has run, so
-- Postgres parses storage statements as the login role, authenticator,
-- which therefore needs to resolve names in the storage schema. USAGE grants name lookup only: authenticator holds no
-- privilege on any storage table, and each statement still runs, and is
-- checked by RLS, as the role the pipeline switched to first.
GRANT USAGE ON SCHEMA storage TO authenticator;
