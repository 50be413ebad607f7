-- The answer of a sponsored-stream settlement that pays nothing.
CREATE OR REPLACE FUNCTION backline.settlement_failure(p_error text) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_build_object('success', false, 'error', p_error, 'transaction', NULL)
$$;

REVOKE ALL ON FUNCTION backline.settlement_failure(text) FROM PUBLIC, anon, authenticated, service_role;
