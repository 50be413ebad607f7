-- The full-text query for what a listener typed: every word, folded, as a
-- prefix ("burn" matches "Burna"), all required. NULL when nothing is left.
CREATE OR REPLACE FUNCTION backline.search_query(p_folded text) RETURNS tsquery
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT to_tsquery('simple', string_agg(quote_literal(w) || ':*', ' & '))
  FROM regexp_split_to_table(p_folded, '[^[:alnum:]]+') AS w
  WHERE w <> ''
$$;

REVOKE ALL ON FUNCTION backline.search_query(text) FROM PUBLIC, anon, authenticated, service_role;
