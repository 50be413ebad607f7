-- Admins only (audited): the held amount leaves the platform (cashout:held
-- to cashout:paid) and the artist is told. The request row is locked first,
-- so two admins completing it at once pay it once.
CREATE OR REPLACE FUNCTION public.complete_cashout(p_id uuid) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  actor uuid := backline.admin_actor();
  req public.cashout_requests;
  before jsonb;
  moved jsonb;
BEGIN
  SELECT * INTO req FROM public.cashout_requests WHERE id = p_id FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'Cash-out request not found' USING ERRCODE = 'P0001';
  END IF;
  IF req.status <> 'pending' THEN
    RAISE EXCEPTION 'Cash-out request is already %', req.status USING ERRCODE = 'P0001';
  END IF;
  before := backline.cashout_state(req.id);
  moved := public.transfer_funds('00000000-0000-0000-0000-00000000c001', '00000000-0000-0000-0000-00000000c002',
    req.amount, 'cashout-paid:' || req.id, 'cashout_paid', NULL, NULL,
    jsonb_build_object('cashout_id', req.id, 'user_id', req.user_id));
  UPDATE public.cashout_requests SET status = 'completed', processed_by = actor, processed_at = now(),
    settle_transaction_id = (moved ->> 'transaction_id')::uuid
  WHERE id = req.id;
  PERFORM backline.notify(req.user_id, 'cashout_completed', 'Cash-out Completed',
    format('Your cash-out of ₦%s has been completed.', backline.naira(req.amount)),
    jsonb_build_object('amount', req.amount, 'cashout_id', req.id));
  PERFORM backline.log_activity(actor, 'cashout.completed', 'cashout', req.id::text, jsonb_build_object('amount', req.amount));
  PERFORM backline.audit(actor, 'cashout.complete', 'cashout', req.id::text, NULL, before, backline.cashout_state(req.id));
  RETURN jsonb_build_object('success', true, 'id', req.id, 'status', 'completed', 'amount', req.amount);
END $$;

REVOKE ALL ON FUNCTION public.complete_cashout(uuid) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.complete_cashout(uuid) TO authenticated, service_role;
