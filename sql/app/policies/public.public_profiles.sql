-- Public profiles: anyone reads them; the owner edits their presentation
-- (backline.guard_public_profile keeps role, verification and suspension
-- out of reach); admins edit and delete any.
DROP POLICY IF EXISTS "anyone can read public profiles" ON public.public_profiles;
CREATE POLICY "anyone can read public profiles" ON public.public_profiles
  FOR SELECT TO anon, authenticated USING (true);

DROP POLICY IF EXISTS "users can insert own profile" ON public.public_profiles;
CREATE POLICY "users can insert own profile" ON public.public_profiles
  FOR INSERT TO authenticated WITH CHECK (id = (SELECT backline.active_uid()));

DROP POLICY IF EXISTS "users can update own profile" ON public.public_profiles;
CREATE POLICY "users can update own profile" ON public.public_profiles
  FOR UPDATE TO authenticated USING (id = (SELECT backline.active_uid())) WITH CHECK (id = (SELECT backline.active_uid()));

DROP POLICY IF EXISTS "admin can update any profile" ON public.public_profiles;
CREATE POLICY "admin can update any profile" ON public.public_profiles
  FOR UPDATE TO authenticated USING ((SELECT public.is_admin())) WITH CHECK ((SELECT public.is_admin()));

DROP POLICY IF EXISTS "admin can delete profiles" ON public.public_profiles;
CREATE POLICY "admin can delete profiles" ON public.public_profiles
  FOR DELETE TO authenticated USING ((SELECT public.is_admin()));
