-- Admins only (audited), with a reason: the hold goes back to the artist's
-- wallet and the artist is told why.
CREATE OR REPLACE FUNCTION public.reject_cashout(p_id uuid, p_reason text DEFAULT NULL) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  actor uuid := backline.admin_actor();
  req public.cashout_requests;
  before jsonb;
  moved jsonb;
  v_reason text;
BEGIN
  SELECT * INTO req FROM public.cashout_requests WHERE id = p_id FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'Cash-out request not found' USING ERRCODE = 'P0001';
  END IF;
  IF req.status <> 'pending' THEN
    RAISE EXCEPTION 'Cash-out request is already %', req.status USING ERRCODE = 'P0001';
  END IF;
  v_reason := backline.require_reason(p_reason);
  before := backline.cashout_state(req.id);
  moved := public.transfer_funds('00000000-0000-0000-0000-00000000c001', req.user_id, req.amount,
    'cashout-release:' || req.id, 'cashout_release', NULL, NULL, jsonb_build_object('cashout_id', req.id));
  UPDATE public.cashout_requests SET status = 'rejected', reason = v_reason, processed_by = actor,
    processed_at = now(), settle_transaction_id = (moved ->> 'transaction_id')::uuid
  WHERE id = req.id;
  PERFORM backline.notify(req.user_id, 'cashout_updated', 'Cash-out Rejected',
    format('Your cash-out request of ₦%s was rejected: %s. The amount has been returned to your wallet.',
      backline.naira(req.amount), v_reason),
    jsonb_build_object('amount', req.amount, 'cashout_id', req.id, 'status', 'rejected', 'reason', v_reason));
  PERFORM backline.log_activity(actor, 'cashout.rejected', 'cashout', req.id::text,
    jsonb_build_object('amount', req.amount, 'reason', v_reason));
  PERFORM backline.audit(actor, 'cashout.reject', 'cashout', req.id::text, v_reason, before, backline.cashout_state(req.id));
  RETURN jsonb_build_object('success', true, 'id', req.id, 'status', 'rejected', 'amount', req.amount);
END $$;

REVOKE ALL ON FUNCTION public.reject_cashout(uuid, text) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.reject_cashout(uuid, text) TO authenticated, service_role;
