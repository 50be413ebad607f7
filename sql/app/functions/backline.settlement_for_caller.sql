-- The part of a settlement result the caller may see: the sponsor's
-- figures for the sponsor and admins, the artist's balance for the artist
-- and admins. public_error never leaves the database.
CREATE OR REPLACE FUNCTION backline.settlement_for_caller(p_result jsonb, p_artist_id uuid, p_sponsor_id uuid)
RETURNS jsonb
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := auth.uid();
  admin boolean := public.is_admin();
  v_out jsonb := p_result - 'public_error';
  has_tx boolean := jsonb_typeof(p_result -> 'transaction') = 'object';
BEGIN
  IF NOT admin AND uid IS DISTINCT FROM p_sponsor_id THEN
    IF p_result ? 'public_error' THEN
      v_out := jsonb_set(v_out, '{error}', p_result -> 'public_error');
    END IF;
    IF has_tx THEN
      v_out := jsonb_set(v_out, '{transaction,sponsor_balance}', 'null');
    END IF;
  END IF;
  IF has_tx AND NOT admin AND uid IS DISTINCT FROM p_artist_id THEN
    v_out := jsonb_set(v_out, '{transaction,artist_balance}', 'null');
  END IF;
  RETURN v_out;
END $$;

REVOKE ALL ON FUNCTION backline.settlement_for_caller(jsonb, uuid, uuid) FROM PUBLIC, anon, authenticated, service_role;
