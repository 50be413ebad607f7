-- Tracks: anyone reads active ones; the artist and admins also read hidden
-- and removed ones. Artists add, edit and delete their own; admins
-- moderate. Sponsorship and counters are the platform's (backline.guard_track).
DROP POLICY IF EXISTS "artists can insert own tracks" ON public.tracks;
CREATE POLICY "artists can insert own tracks" ON public.tracks
  FOR INSERT TO authenticated
  WITH CHECK (artist_id = (SELECT backline.active_uid()) AND (SELECT public.current_user_role()) = 'artist');

DROP POLICY IF EXISTS "artists can update own tracks" ON public.tracks;
CREATE POLICY "artists can update own tracks" ON public.tracks
  FOR UPDATE TO authenticated USING (artist_id = (SELECT backline.active_uid())) WITH CHECK (artist_id = (SELECT backline.active_uid()));

DROP POLICY IF EXISTS "artists can delete own tracks" ON public.tracks;
CREATE POLICY "artists can delete own tracks" ON public.tracks
  FOR DELETE TO authenticated USING (artist_id = (SELECT backline.active_uid()));

DROP POLICY IF EXISTS "admin can update tracks" ON public.tracks;
CREATE POLICY "admin can update tracks" ON public.tracks
  FOR UPDATE TO authenticated USING ((SELECT public.is_admin())) WITH CHECK ((SELECT public.is_admin()));

DROP POLICY IF EXISTS "admin can delete tracks" ON public.tracks;
CREATE POLICY "admin can delete tracks" ON public.tracks
  FOR DELETE TO authenticated USING ((SELECT public.is_admin()));

DROP POLICY IF EXISTS "anyone can read available tracks" ON public.tracks;
CREATE POLICY "anyone can read available tracks" ON public.tracks
  FOR SELECT TO anon, authenticated
  USING (status = 'active' OR artist_id = (SELECT backline.active_uid()) OR (SELECT public.is_admin()));
