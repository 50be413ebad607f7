-- Media buckets for Backline: avatars, track audio and cover art, all
-- publicly readable (the player streams audio by URL), written only into
-- the uploader's own folder (<user id>/<file>). Audio and covers are
-- uploaded by artists. Skipped when the storage schema is absent.
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

  EXECUTE $p$CREATE POLICY "anyone can read backline media" ON storage.objects
    FOR SELECT TO anon, authenticated USING (bucket_id IN ('avatars', 'covers', 'tracks'))$p$;
  EXECUTE $p$CREATE POLICY "users can upload own avatars, artists own tracks and covers" ON storage.objects
    FOR INSERT TO authenticated
    WITH CHECK ((storage.foldername(name))[1] = (SELECT auth.uid())::text
      AND (bucket_id = 'avatars' OR (bucket_id IN ('covers', 'tracks') AND (SELECT public.current_user_role()) = 'artist')))$p$;
  EXECUTE $p$CREATE POLICY "users can replace own media" ON storage.objects
    FOR UPDATE TO authenticated
    USING (bucket_id IN ('avatars', 'covers', 'tracks') AND (storage.foldername(name))[1] = (SELECT auth.uid())::text)
    WITH CHECK (bucket_id IN ('avatars', 'covers', 'tracks') AND (storage.foldername(name))[1] = (SELECT auth.uid())::text)$p$;
  EXECUTE $p$CREATE POLICY "users can delete own media" ON storage.objects
    FOR DELETE TO authenticated
    USING (bucket_id IN ('avatars', 'covers', 'tracks') AND (storage.foldername(name))[1] = (SELECT auth.uid())::text)$p$;
END $$;
