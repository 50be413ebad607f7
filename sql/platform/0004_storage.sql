-- The storage schema with the reference server's tables, columns, helper
-- functions and grants, so policies written for Supabase Storage (on
-- storage.objects and storage.buckets, using storage.foldername() and
-- auth.uid()) work unchanged. Basalt's storage service reads and writes
-- these rows; the bytes live in a backend (filesystem or S3), addressed by
-- bucket, name and the row's version.
DO $$ BEGIN
  CREATE TYPE storage.buckettype AS ENUM ('STANDARD', 'ANALYTICS');
EXCEPTION WHEN duplicate_object THEN NULL; END $$;

CREATE TABLE IF NOT EXISTS storage.buckets (
  id text PRIMARY KEY,
  name text NOT NULL,
  owner uuid,
  owner_id text,
  public boolean DEFAULT false,
  file_size_limit bigint,
  allowed_mime_types text[],
  avif_autodetection boolean DEFAULT false,
  type storage.buckettype NOT NULL DEFAULT 'STANDARD',
  versioning_status text NOT NULL DEFAULT 'DISABLED' CHECK (versioning_status = 'DISABLED'),
  created_at timestamptz DEFAULT now(),
  updated_at timestamptz DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS bname ON storage.buckets (name);

CREATE TABLE IF NOT EXISTS storage.objects (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  bucket_id text REFERENCES storage.buckets (id),
  name text,
  owner uuid,
  owner_id text,
  created_at timestamptz DEFAULT now(),
  updated_at timestamptz DEFAULT now(),
  last_accessed_at timestamptz DEFAULT now(),
  metadata jsonb,
  user_metadata jsonb,
  path_tokens text[] GENERATED ALWAYS AS (string_to_array(name, '/')) STORED,
  version text,
  level int,
  archived_at timestamptz,
  is_delete_marker boolean NOT NULL DEFAULT false,
  is_versioned boolean NOT NULL DEFAULT false
);
CREATE UNIQUE INDEX IF NOT EXISTS bucketid_objname ON storage.objects (bucket_id, name);
-- Listing and prefix search walk names in byte order within a bucket.
CREATE INDEX IF NOT EXISTS idx_objects_bucket_id_name ON storage.objects (bucket_id, name COLLATE "C");

ALTER TABLE storage.buckets ENABLE ROW LEVEL SECURITY;
ALTER TABLE storage.objects ENABLE ROW LEVEL SECURITY;

-- Helpers used in policies: for 'a/b/c.tar.gz' foldername is {a,b},
-- filename 'c.tar.gz' and extension 'gz'.
CREATE OR REPLACE FUNCTION storage.foldername(name text) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  parts text[] := string_to_array(name, '/');
BEGIN
  RETURN parts[1:array_length(parts, 1) - 1];
END
$$;

CREATE OR REPLACE FUNCTION storage.filename(name text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  parts text[] := string_to_array(name, '/');
BEGIN
  RETURN parts[array_length(parts, 1)];
END
$$;

CREATE OR REPLACE FUNCTION storage.extension(name text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  parts text[] := string_to_array(name, '/');
  last text := parts[array_length(parts, 1)];
BEGIN
  -- Everything after the final dot; a name without a dot is returned whole.
  RETURN reverse(split_part(reverse(last), '.', 1));
END
$$;

-- storage.operation() lets policies tell API operations apart
-- (storage.object.upload, storage.object.move, ...).
CREATE OR REPLACE FUNCTION storage.operation() RETURNS text
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN current_setting('storage.operation', true);
END
$$;

-- updated_at follows every row change, as in the reference.
CREATE OR REPLACE FUNCTION storage.update_updated_at_column() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.updated_at = now();
  RETURN NEW;
END
$$;
DROP TRIGGER IF EXISTS update_objects_updated_at ON storage.objects;
CREATE TRIGGER update_objects_updated_at BEFORE UPDATE ON storage.objects
  FOR EACH ROW EXECUTE FUNCTION storage.update_updated_at_column();

-- Rows are removed through the API only, because deleting a row directly
-- would strand its bytes in the backend. The API (and the leftover sweep)
-- sets storage.allow_delete_query for its own transaction.
CREATE OR REPLACE FUNCTION storage.protect_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF coalesce(current_setting('storage.allow_delete_query', true), 'false') <> 'true' THEN
    RAISE EXCEPTION 'Direct deletion from storage tables is not allowed. Use the Storage API instead.'
      USING HINT = 'This prevents accidental data loss from orphaned objects.',
            ERRCODE = '42501';
  END IF;
  RETURN NULL;
END
$$;
DROP TRIGGER IF EXISTS protect_buckets_delete ON storage.buckets;
CREATE TRIGGER protect_buckets_delete BEFORE DELETE ON storage.buckets
  FOR EACH STATEMENT EXECUTE FUNCTION storage.protect_delete();
DROP TRIGGER IF EXISTS protect_objects_delete ON storage.objects;
CREATE TRIGGER protect_objects_delete BEFORE DELETE ON storage.objects
  FOR EACH STATEMENT EXECUTE FUNCTION storage.protect_delete();

-- Grants as Supabase has them: the API roles may use every table, and RLS
-- (no policies means nothing visible) decides what they see.
GRANT USAGE ON SCHEMA storage TO anon, authenticated, service_role;
GRANT ALL ON ALL TABLES IN SCHEMA storage TO anon, authenticated, service_role;
GRANT ALL ON ALL SEQUENCES IN SCHEMA storage TO anon, authenticated, service_role;
GRANT ALL ON ALL ROUTINES IN SCHEMA storage TO anon, authenticated, service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA storage GRANT ALL ON TABLES TO anon, authenticated, service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA storage GRANT ALL ON SEQUENCES TO anon, authenticated, service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA storage GRANT ALL ON ROUTINES TO anon, authenticated, service_role;

-- Resumable (TUS) uploads in progress. Basalt bookkeeping, not part of the
-- reference schema: chunks live in the backend under "#tus/<id>/<offset>"
-- until the last one arrives and the object is assembled. API roles have no
-- access; the storage service reads it as the owner.
CREATE TABLE IF NOT EXISTS storage.tus_uploads (
  id text PRIMARY KEY,
  bucket_id text NOT NULL REFERENCES storage.buckets (id) ON DELETE CASCADE,
  name text NOT NULL,
  version text NOT NULL,
  upload_length bigint NOT NULL CHECK (upload_length >= 0),
  upload_offset bigint NOT NULL DEFAULT 0,
  parts bigint[] NOT NULL DEFAULT '{}',
  owner_id text,
  upsert boolean NOT NULL DEFAULT false,
  mimetype text NOT NULL,
  cache_control text NOT NULL,
  user_metadata jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE storage.tus_uploads ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON storage.tus_uploads FROM anon, authenticated, service_role;
