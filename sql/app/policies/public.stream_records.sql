DROP POLICY IF EXISTS "users can read own stream records" ON public.stream_records;
CREATE POLICY "users can read own stream records" ON public.stream_records
  FOR SELECT TO authenticated USING (user_id = (SELECT backline.active_uid()) OR (SELECT public.is_admin()));
