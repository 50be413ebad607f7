DROP POLICY IF EXISTS "admin can read activity" ON public.activity_log;
CREATE POLICY "admin can read activity" ON public.activity_log
  FOR SELECT TO authenticated USING ((SELECT public.is_admin()));
