CREATE OR REPLACE FUNCTION backline.cashout_state(p_id uuid) RETURNS jsonb
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT jsonb_build_object('status', status, 'amount', amount, 'user_id', user_id, 'reason', reason,
    'processed_by', processed_by, 'processed_at', processed_at, 'settle_transaction_id', settle_transaction_id)
  FROM public.cashout_requests WHERE id = p_id
$$;

REVOKE ALL ON FUNCTION backline.cashout_state(uuid) FROM PUBLIC, anon, authenticated, service_role;
