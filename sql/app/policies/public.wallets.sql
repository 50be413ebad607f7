-- Money and account data (wallets, the ledger, payments, verifications,
-- cash-outs, sessions, limits, devices): read-only for the owner and admins;
-- SECURITY DEFINER functions write them.
DROP POLICY IF EXISTS "users can read own wallet" ON public.wallets;
CREATE POLICY "users can read own wallet" ON public.wallets
  FOR SELECT TO authenticated USING (user_id = (SELECT backline.active_uid()) OR (SELECT public.is_admin()));
