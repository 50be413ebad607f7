-- Storage reads and policy tests in one round trip.
--
-- The storage service sends the role switch and the statement it protects
-- as one pipeline (one round trip). The client prepares each new statement
-- of a pipeline before sending it, that is before the switch has run, so
-- Postgres parses storage statements as the login role, authenticator,
-- which therefore needs to resolve names in the storage schema. USAGE
-- grants name lookup only: authenticator holds no privilege on any storage
-- table, and each statement still runs, and is checked by RLS, as the role
-- the pipeline switched to first.
GRANT USAGE ON SCHEMA storage TO authenticator;

-- storage.read_target(bucket, name) is what a read needs before the RLS
-- check, so a download is one round trip: the bucket's settings and, only
-- when the bucket is public (where the reference skips RLS), the object row.
-- The service calls it at the head of the pipeline, still as authenticator;
-- the API roles cannot call it, so it opens nothing to SQL callers.
CREATE OR REPLACE FUNCTION storage.read_target(p_bucket text, p_name text)
RETURNS TABLE (id text, name text, owner text, public boolean, type text, file_size_limit bigint,
  allowed_mime_types text[], created_at timestamptz, updated_at timestamptz,
  object_id text, object_bucket_id text, object_name text, object_owner text, object_owner_id text,
  object_version text, object_created_at timestamptz, object_updated_at timestamptz,
  object_last_accessed_at timestamptz, object_metadata jsonb, object_user_metadata jsonb)
-- plpgsql, not sql: Postgres plans a non-inlined sql function's body on
-- every call, while plpgsql keeps the plan for the session.
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = '' AS $$
BEGIN
  RETURN QUERY
  SELECT b.id, b.name, coalesce(b.owner_id, b.owner::text, ''), coalesce(b.public, false), b.type::text,
    b.file_size_limit, b.allowed_mime_types, coalesce(b.created_at, now()), coalesce(b.updated_at, now()),
    o.id::text, o.bucket_id, o.name, o.owner::text, o.owner_id, o.version, o.created_at, o.updated_at,
    o.last_accessed_at, o.metadata, o.user_metadata
  FROM storage.buckets b
  LEFT JOIN storage.objects o ON coalesce(b.public, false) AND o.bucket_id = b.id AND o.name = p_name
  WHERE b.id = p_bucket;
END
$$;
REVOKE ALL ON FUNCTION storage.read_target(text, text) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION storage.read_target(text, text) TO authenticator;
