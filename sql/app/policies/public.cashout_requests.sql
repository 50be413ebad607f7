DROP POLICY IF EXISTS "users can read own cashout requests" ON public.cashout_requests;
CREATE POLICY "users can read own cashout requests" ON public.cashout_requests
  FOR SELECT TO authenticated USING (user_id = (SELECT backline.active_uid()) OR (SELECT public.is_admin()));
