-- app_settings: public keys for everyone, the rest for admins, who edit them.
DROP POLICY IF EXISTS "anyone can read public settings" ON public.app_settings;
CREATE POLICY "anyone can read public settings" ON public.app_settings
  FOR SELECT TO anon, authenticated USING (is_public OR (SELECT public.is_admin()));

DROP POLICY IF EXISTS "admin can change settings" ON public.app_settings;
CREATE POLICY "admin can change settings" ON public.app_settings
  FOR UPDATE TO authenticated USING ((SELECT public.is_admin())) WITH CHECK ((SELECT public.is_admin()));

DROP POLICY IF EXISTS "admin can add settings" ON public.app_settings;
CREATE POLICY "admin can add settings" ON public.app_settings
  FOR INSERT TO authenticated WITH CHECK ((SELECT public.is_admin()));
