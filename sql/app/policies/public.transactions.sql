DROP POLICY IF EXISTS "parties can read their transactions" ON public.transactions;
CREATE POLICY "parties can read their transactions" ON public.transactions
  FOR SELECT TO authenticated
  USING (from_wallet = (SELECT auth.uid()) OR to_wallet = (SELECT auth.uid()) OR (SELECT public.is_admin()));
