DROP POLICY IF EXISTS "users can read own payments" ON public.payments;
CREATE POLICY "users can read own payments" ON public.payments
  FOR SELECT TO authenticated USING (user_id = (SELECT backline.active_uid()) OR (SELECT public.is_admin()));
