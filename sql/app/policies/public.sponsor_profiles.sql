-- Sponsor profiles are public; a sponsor may create their own when it is
-- missing and edit it.
DROP POLICY IF EXISTS "anyone can read sponsor profiles" ON public.sponsor_profiles;
CREATE POLICY "anyone can read sponsor profiles" ON public.sponsor_profiles
  FOR SELECT TO anon, authenticated USING (true);

DROP POLICY IF EXISTS "sponsors can insert own sponsor profile" ON public.sponsor_profiles;
CREATE POLICY "sponsors can insert own sponsor profile" ON public.sponsor_profiles
  FOR INSERT TO authenticated WITH CHECK (id = (SELECT backline.active_uid()) AND (SELECT public.current_user_role()) = 'sponsor');

DROP POLICY IF EXISTS "sponsors can update own sponsor profile" ON public.sponsor_profiles;
CREATE POLICY "sponsors can update own sponsor profile" ON public.sponsor_profiles
  FOR UPDATE TO authenticated USING (id = (SELECT backline.active_uid())) WITH CHECK (id = (SELECT backline.active_uid()));

DROP POLICY IF EXISTS "admin can update sponsor profiles" ON public.sponsor_profiles;
CREATE POLICY "admin can update sponsor profiles" ON public.sponsor_profiles
  FOR UPDATE TO authenticated USING ((SELECT public.is_admin())) WITH CHECK ((SELECT public.is_admin()));

DROP POLICY IF EXISTS "admin can delete sponsor profiles" ON public.sponsor_profiles;
CREATE POLICY "admin can delete sponsor profiles" ON public.sponsor_profiles
  FOR DELETE TO authenticated USING ((SELECT public.is_admin()));
