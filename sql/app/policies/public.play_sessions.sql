DROP POLICY IF EXISTS "users can read own play sessions" ON public.play_sessions;
CREATE POLICY "users can read own play sessions" ON public.play_sessions
  FOR SELECT TO authenticated USING (user_id = (SELECT backline.active_uid()));
