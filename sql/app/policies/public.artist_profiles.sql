-- Artist profiles are public. An artist may create their own when it is
-- missing (spec: "insert into artist_profiles when missing") and edit it;
-- counters and KYC are the platform's (backline.guard_artist_profile).
DROP POLICY IF EXISTS "anyone can read artist profiles" ON public.artist_profiles;
CREATE POLICY "anyone can read artist profiles" ON public.artist_profiles
  FOR SELECT TO anon, authenticated USING (true);

DROP POLICY IF EXISTS "artists can insert own artist profile" ON public.artist_profiles;
CREATE POLICY "artists can insert own artist profile" ON public.artist_profiles
  FOR INSERT TO authenticated WITH CHECK (id = (SELECT backline.active_uid()) AND (SELECT public.current_user_role()) = 'artist');

DROP POLICY IF EXISTS "artists can update own artist profile" ON public.artist_profiles;
CREATE POLICY "artists can update own artist profile" ON public.artist_profiles
  FOR UPDATE TO authenticated USING (id = (SELECT backline.active_uid())) WITH CHECK (id = (SELECT backline.active_uid()));

DROP POLICY IF EXISTS "admin can update artist profiles" ON public.artist_profiles;
CREATE POLICY "admin can update artist profiles" ON public.artist_profiles
  FOR UPDATE TO authenticated USING ((SELECT public.is_admin())) WITH CHECK ((SELECT public.is_admin()));

DROP POLICY IF EXISTS "admin can delete artist profiles" ON public.artist_profiles;
CREATE POLICY "admin can delete artist profiles" ON public.artist_profiles
  FOR DELETE TO authenticated USING ((SELECT public.is_admin()));
