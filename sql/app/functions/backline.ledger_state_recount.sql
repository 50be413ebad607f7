-- One pass over the wallets and one over the ledger.
CREATE OR REPLACE FUNCTION backline.ledger_state_recount() RETURNS backline.ledger_state
LANGUAGE sql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT ROW(w.total, w.users, w.negative, l.n, l.net)::backline.ledger_state
  FROM (SELECT coalesce(sum(balance), 0) AS total, coalesce(sum(balance) FILTER (WHERE kind = 'user'), 0) AS users,
          count(*) FILTER (WHERE kind <> 'external' AND balance < 0) AS negative
        FROM public.wallets) w,
       (SELECT count(*) AS n,
          coalesce(sum(CASE WHEN tw.kind = 'user' THEN t.amount ELSE 0 END
            - CASE WHEN fw.kind = 'user' THEN t.amount ELSE 0 END), 0) AS net
        FROM public.transactions t
        JOIN public.wallets fw ON fw.id = t.from_wallet
        JOIN public.wallets tw ON tw.id = t.to_wallet) l
$$;

REVOKE ALL ON FUNCTION backline.ledger_state_recount() FROM PUBLIC, anon, authenticated, service_role;
