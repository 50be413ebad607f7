-- A playlist's tracks are its owner's, and anyone's to read when it is
-- public: the playlists policies decide (the subquery runs under them).
DROP POLICY IF EXISTS "users can read own playlist tracks" ON public.playlist_tracks;
DROP POLICY IF EXISTS "users can read visible playlist tracks" ON public.playlist_tracks;
CREATE POLICY "users can read visible playlist tracks" ON public.playlist_tracks
  FOR SELECT TO anon, authenticated
  USING (EXISTS (SELECT 1 FROM public.playlists p WHERE p.id = playlist_id));

DROP POLICY IF EXISTS "users can add to own playlists" ON public.playlist_tracks;
CREATE POLICY "users can add to own playlists" ON public.playlist_tracks
  FOR INSERT TO authenticated
  WITH CHECK (EXISTS (SELECT 1 FROM public.playlists p WHERE p.id = playlist_id AND p.user_id = (SELECT backline.active_uid())));

DROP POLICY IF EXISTS "users can reorder own playlists" ON public.playlist_tracks;
CREATE POLICY "users can reorder own playlists" ON public.playlist_tracks
  FOR UPDATE TO authenticated
  USING (EXISTS (SELECT 1 FROM public.playlists p WHERE p.id = playlist_id AND p.user_id = (SELECT backline.active_uid())))
  WITH CHECK (EXISTS (SELECT 1 FROM public.playlists p WHERE p.id = playlist_id AND p.user_id = (SELECT backline.active_uid())));

DROP POLICY IF EXISTS "users can remove from own playlists" ON public.playlist_tracks;
CREATE POLICY "users can remove from own playlists" ON public.playlist_tracks
  FOR DELETE TO authenticated
  USING (EXISTS (SELECT 1 FROM public.playlists p WHERE p.id = playlist_id AND p.user_id = (SELECT backline.active_uid())));
