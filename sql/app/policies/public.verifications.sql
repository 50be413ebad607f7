DROP POLICY IF EXISTS "users can read own verifications" ON public.verifications;
CREATE POLICY "users can read own verifications" ON public.verifications
  FOR SELECT TO authenticated USING (user_id = (SELECT backline.active_uid()) OR (SELECT public.is_admin()));
