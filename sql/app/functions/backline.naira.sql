-- Naira for messages: thousands separators, kobo only when there are any.
CREATE OR REPLACE FUNCTION backline.naira(p_amount numeric) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT rtrim(rtrim(to_char(p_amount, 'FM999,999,999,990.00'), '0'), '.')
$$;

REVOKE ALL ON FUNCTION backline.naira(numeric) FROM PUBLIC, anon, authenticated, service_role;
