-- The full recheck: everything recomputed from the tables (one pass over
-- the ledger and the wallets), compared with the running totals, plus every
-- wallet whose balance is not the net of its own ledger rows (which also
-- catches changes that cancel out across wallets, or made with triggers
-- off).
CREATE OR REPLACE FUNCTION backline.ledger_recheck() RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  running backline.ledger_state := backline.ledger_state_running();
  actual backline.ledger_state := backline.ledger_state_recount();
  off jsonb;
  summary jsonb;
  totals_match boolean;
BEGIN
  SELECT jsonb_build_object('count', count(*), 'wallets', coalesce(jsonb_agg(jsonb_build_object(
      'id', x.id, 'account', x.account, 'user_id', x.user_id, 'balance', x.balance, 'ledger_net', x.net)
      ORDER BY x.id) FILTER (WHERE x.rn <= 20), '[]'::jsonb))
  INTO off
  FROM (SELECT w.id, w.account, w.user_id, w.balance, coalesce(m.net, 0) AS net, row_number() OVER (ORDER BY w.id) AS rn
        FROM public.wallets w
        LEFT JOIN (SELECT id, sum(d) AS net FROM (
            SELECT to_wallet AS id, amount AS d FROM public.transactions
            UNION ALL SELECT from_wallet, -amount FROM public.transactions) moves GROUP BY id) m ON m.id = w.id
        WHERE w.balance <> coalesce(m.net, 0)) x;
  totals_match := running IS NOT DISTINCT FROM actual;
  summary := backline.ledger_summary_of(actual);
  RETURN summary || jsonb_build_object('method', 'full recheck',
    'running', backline.ledger_summary_of(running) - 'checked_at',
    'totals_match', totals_match,
    'mismatched_wallets', off,
    'balanced', (summary ->> 'balanced')::boolean AND totals_match AND (off ->> 'count')::int = 0);
END $$;

REVOKE ALL ON FUNCTION backline.ledger_recheck() FROM PUBLIC, anon, authenticated, service_role;
