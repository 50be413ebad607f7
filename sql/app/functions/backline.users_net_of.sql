-- A movement's effect on what users hold: + into a user's wallet, - out of one.
CREATE OR REPLACE FUNCTION backline.users_net_of(p_from uuid, p_to uuid, p_amount numeric) RETURNS numeric
LANGUAGE sql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT p_amount * (count(*) FILTER (WHERE id = p_to) - count(*) FILTER (WHERE id = p_from))
  FROM public.wallets WHERE id IN (p_from, p_to) AND kind = 'user'
$$;

REVOKE ALL ON FUNCTION backline.users_net_of(uuid, uuid, numeric) FROM PUBLIC, anon, authenticated, service_role;
