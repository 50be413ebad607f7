-- What streams store instead of the address: a keyed hash. Equal addresses
-- give equal keys, so the per-address limits work, without the column
-- revealing anyone's IP (it is read only by the stream's fan and admins);
-- without the secret the key cannot be computed from a guessed address.
CREATE OR REPLACE FUNCTION backline.ip_key(p_ip text) RETURNS text
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT CASE WHEN p_ip IS NOT NULL THEN 'ipk_' || left(encode(extensions.hmac(p_ip, value, 'sha256'), 'hex'), 32) END
  FROM backline.secrets WHERE name = 'ip_key'
$$;

REVOKE ALL ON FUNCTION backline.ip_key(text) FROM PUBLIC, anon, authenticated, service_role;
