-- A fan profile holds only a phone number, so only its owner and admins
-- read it.
DROP POLICY IF EXISTS "fans can read own fan profile" ON public.fan_profiles;
CREATE POLICY "fans can read own fan profile" ON public.fan_profiles
  FOR SELECT TO authenticated USING (id = (SELECT backline.active_uid()) OR (SELECT public.is_admin()));

DROP POLICY IF EXISTS "fans can insert own fan profile" ON public.fan_profiles;
CREATE POLICY "fans can insert own fan profile" ON public.fan_profiles
  FOR INSERT TO authenticated WITH CHECK (id = (SELECT backline.active_uid()) AND (SELECT public.current_user_role()) = 'fan');

DROP POLICY IF EXISTS "fans can update own fan profile" ON public.fan_profiles;
CREATE POLICY "fans can update own fan profile" ON public.fan_profiles
  FOR UPDATE TO authenticated USING (id = (SELECT backline.active_uid())) WITH CHECK (id = (SELECT backline.active_uid()));

DROP POLICY IF EXISTS "admin can update fan profiles" ON public.fan_profiles;
CREATE POLICY "admin can update fan profiles" ON public.fan_profiles
  FOR UPDATE TO authenticated USING ((SELECT public.is_admin())) WITH CHECK ((SELECT public.is_admin()));
