DROP POLICY IF EXISTS "users can read own device fingerprints" ON public.device_fingerprints;
CREATE POLICY "users can read own device fingerprints" ON public.device_fingerprints
  FOR SELECT TO authenticated USING (user_id = (SELECT backline.active_uid()) OR (SELECT public.is_admin()));
