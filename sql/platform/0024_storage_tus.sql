-- TUS creation-defer-length: an upload may be created before its length is
-- known (Upload-Defer-Length: 1); a later PATCH declares it. NULL is "not
-- declared yet".
ALTER TABLE storage.tus_uploads ALTER COLUMN upload_length DROP NOT NULL;
