-- Media buckets for Backline: avatars, track audio and cover art, all
-- publicly readable (the player streams audio by URL). Who writes what is
-- in policies/storage.objects.sql. Skipped when the storage schema is absent.
--
-- Its functions (with their triggers) and policies moved to functions/ and
-- policies/, one file each. A database that applied it before keeps its record:
-- replaces: afe063e476c24acb2b8027249a49e29016cd84cf04325215115f607ac8bfa699
DO $$
BEGIN
  IF to_regclass('storage.buckets') IS NULL OR to_regclass('storage.objects') IS NULL THEN
    RAISE NOTICE 'storage schema not present: Backline buckets not created';
    RETURN;
  END IF;

  INSERT INTO storage.buckets (id, name, public, file_size_limit, allowed_mime_types) VALUES
    ('avatars', 'avatars', true, 5242880, ARRAY['image/jpeg', 'image/png', 'image/webp', 'image/gif']),
    ('covers', 'covers', true, 10485760, ARRAY['image/jpeg', 'image/png', 'image/webp']),
    ('tracks', 'tracks', true, 52428800, ARRAY['audio/mpeg', 'audio/mp4', 'audio/aac', 'audio/ogg', 'audio/wav', 'audio/x-wav', 'audio/webm', 'audio/flac'])
  ON CONFLICT (id) DO NOTHING;
END $$;
