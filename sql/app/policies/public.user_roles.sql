-- user_roles: public (user counts per role), changed only by admins.
DROP POLICY IF EXISTS "anyone can read roles" ON public.user_roles;
CREATE POLICY "anyone can read roles" ON public.user_roles
  FOR SELECT TO anon, authenticated USING (true);

DROP POLICY IF EXISTS "admin can insert roles" ON public.user_roles;
CREATE POLICY "admin can insert roles" ON public.user_roles
  FOR INSERT TO authenticated WITH CHECK ((SELECT public.is_admin()));

DROP POLICY IF EXISTS "admin can update roles" ON public.user_roles;
CREATE POLICY "admin can update roles" ON public.user_roles
  FOR UPDATE TO authenticated USING ((SELECT public.is_admin())) WITH CHECK ((SELECT public.is_admin()));

DROP POLICY IF EXISTS "admin can delete roles" ON public.user_roles;
CREATE POLICY "admin can delete roles" ON public.user_roles
  FOR DELETE TO authenticated USING ((SELECT public.is_admin()));
