DROP POLICY IF EXISTS "parties can read their transactions" ON public.transactions;
CREATE POLICY "parties can read their transactions" ON public.transactions
  FOR SELECT TO authenticated
  USING (from_wallet = (SELECT backline.active_uid()) OR to_wallet = (SELECT backline.active_uid()) OR (SELECT public.is_admin()));
