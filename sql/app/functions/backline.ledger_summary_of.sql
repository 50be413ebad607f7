-- The summary's shape (0013) from a set of figures.
CREATE OR REPLACE FUNCTION backline.ledger_summary_of(f backline.ledger_state) RETURNS jsonb
LANGUAGE sql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT jsonb_build_object(
    'wallets', jsonb_build_object('total', f.wallets_total, 'users', f.wallets_users, 'negative', f.wallets_negative,
      -- System and external accounts only: the unique index on account.
      'accounts', (SELECT jsonb_object_agg(account, balance) FROM public.wallets WHERE account IS NOT NULL)),
    'ledger', jsonb_build_object('count', f.ledger_count, 'users_net', f.ledger_users_net),
    'checked_at', now(),
    'balanced', f.wallets_total = 0 AND f.wallets_negative = 0 AND f.wallets_users = f.ledger_users_net)
$$;

REVOKE ALL ON FUNCTION backline.ledger_summary_of(backline.ledger_state) FROM PUBLIC, anon, authenticated, service_role;
