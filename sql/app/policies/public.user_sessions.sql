DROP POLICY IF EXISTS "users can read own sessions" ON public.user_sessions;
CREATE POLICY "users can read own sessions" ON public.user_sessions
  FOR SELECT TO authenticated USING (user_id = (SELECT backline.active_uid()) OR (SELECT public.is_admin()));
