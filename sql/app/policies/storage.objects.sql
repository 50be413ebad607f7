-- Backline's buckets in storage.objects (the buckets are made by 0005 and
-- 0014). Images (avatars, covers) are public to read; track audio is private
-- (0034) and read, that is signed for playing, only as
-- backline.may_play_audio allows. Media is written only into the uploader's
-- own folder (<user id>/<file>); audio only by artists (covers by anyone: a
-- track's or a playlist's). KYC documents are private: the artist uploads into their own
-- folder, the artist and admins read.
DROP POLICY IF EXISTS "anyone can read backline media" ON storage.objects;
CREATE POLICY "anyone can read backline media" ON storage.objects
  FOR SELECT TO anon, authenticated USING (bucket_id IN ('avatars', 'covers'));

DROP POLICY IF EXISTS "listeners can play available audio" ON storage.objects;
CREATE POLICY "listeners can play available audio" ON storage.objects
  FOR SELECT TO anon, authenticated USING (bucket_id = 'tracks' AND backline.may_play_audio(name));

DROP POLICY IF EXISTS "users can upload own avatars, artists own tracks and covers" ON storage.objects;
DROP POLICY IF EXISTS "users can upload own avatars and covers, artists own tracks" ON storage.objects;
CREATE POLICY "users can upload own avatars and covers, artists own tracks" ON storage.objects
  FOR INSERT TO authenticated
  WITH CHECK ((storage.foldername(name))[1] = (SELECT backline.active_uid())::text
    AND (bucket_id IN ('avatars', 'covers') OR (bucket_id = 'tracks' AND (SELECT public.current_user_role()) = 'artist')));

DROP POLICY IF EXISTS "users can replace own media" ON storage.objects;
CREATE POLICY "users can replace own media" ON storage.objects
  FOR UPDATE TO authenticated
  USING (bucket_id IN ('avatars', 'covers', 'tracks') AND (storage.foldername(name))[1] = (SELECT backline.active_uid())::text)
  WITH CHECK (bucket_id IN ('avatars', 'covers', 'tracks') AND (storage.foldername(name))[1] = (SELECT backline.active_uid())::text);

DROP POLICY IF EXISTS "users can delete own media" ON storage.objects;
CREATE POLICY "users can delete own media" ON storage.objects
  FOR DELETE TO authenticated
  USING (bucket_id IN ('avatars', 'covers', 'tracks') AND (storage.foldername(name))[1] = (SELECT backline.active_uid())::text);

DROP POLICY IF EXISTS "artists can upload own kyc documents" ON storage.objects;
CREATE POLICY "artists can upload own kyc documents" ON storage.objects
  FOR INSERT TO authenticated
  WITH CHECK (bucket_id = 'kyc' AND (storage.foldername(name))[1] = (SELECT backline.active_uid())::text
    AND (SELECT public.current_user_role()) = 'artist');

DROP POLICY IF EXISTS "owners and admins can read kyc documents" ON storage.objects;
CREATE POLICY "owners and admins can read kyc documents" ON storage.objects
  FOR SELECT TO authenticated
  USING (bucket_id = 'kyc' AND ((storage.foldername(name))[1] = (SELECT backline.active_uid())::text OR (SELECT public.is_admin())));
