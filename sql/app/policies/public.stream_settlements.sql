DROP POLICY IF EXISTS "admin can read settlements" ON public.stream_settlements;
CREATE POLICY "admin can read settlements" ON public.stream_settlements
  FOR SELECT TO authenticated USING ((SELECT public.is_admin()));
