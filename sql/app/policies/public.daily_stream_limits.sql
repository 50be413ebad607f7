DROP POLICY IF EXISTS "users can read own stream limits" ON public.daily_stream_limits;
CREATE POLICY "users can read own stream limits" ON public.daily_stream_limits
  FOR SELECT TO authenticated USING (user_id = (SELECT backline.active_uid()) OR (SELECT public.is_admin()));
