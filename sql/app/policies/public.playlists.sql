DROP POLICY IF EXISTS "users can read own playlists" ON public.playlists;
CREATE POLICY "users can read own playlists" ON public.playlists
  FOR SELECT TO authenticated USING (user_id = (SELECT backline.active_uid()));

-- A public playlist is anyone's to read (a share link, search), unless its
-- owner is suspended.
DROP POLICY IF EXISTS "anyone can read public playlists" ON public.playlists;
CREATE POLICY "anyone can read public playlists" ON public.playlists
  FOR SELECT TO anon, authenticated
  USING (is_public AND NOT EXISTS (SELECT 1 FROM public.public_profiles p WHERE p.id = user_id AND p.is_suspended));

DROP POLICY IF EXISTS "users can create own playlists" ON public.playlists;
CREATE POLICY "users can create own playlists" ON public.playlists
  FOR INSERT TO authenticated WITH CHECK (user_id = (SELECT backline.active_uid()));

DROP POLICY IF EXISTS "users can rename own playlists" ON public.playlists;
CREATE POLICY "users can rename own playlists" ON public.playlists
  FOR UPDATE TO authenticated USING (user_id = (SELECT backline.active_uid())) WITH CHECK (user_id = (SELECT backline.active_uid()));

DROP POLICY IF EXISTS "users can delete own playlists" ON public.playlists;
CREATE POLICY "users can delete own playlists" ON public.playlists
  FOR DELETE TO authenticated USING (user_id = (SELECT backline.active_uid()));
