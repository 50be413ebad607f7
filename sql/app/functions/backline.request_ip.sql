-- The caller's address as the gateway saw it: request.headers x-real-ip,
-- which the gateway always overwrites. Never an argument from the client.
CREATE OR REPLACE FUNCTION backline.request_ip() RETURNS text
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT nullif(btrim((nullif(current_setting('request.headers', true), '')::json) ->> 'x-real-ip'), '')
$$;

REVOKE ALL ON FUNCTION backline.request_ip() FROM PUBLIC, anon, authenticated, service_role;
