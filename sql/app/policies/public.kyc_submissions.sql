DROP POLICY IF EXISTS "artists can read own kyc submissions" ON public.kyc_submissions;
CREATE POLICY "artists can read own kyc submissions" ON public.kyc_submissions
  FOR SELECT TO authenticated USING (artist_id = (SELECT backline.active_uid()) OR (SELECT public.is_admin()));
