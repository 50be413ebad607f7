-- The local day of a moment, inlined where it is used (no search_path of its
-- own, which would make it a function call per ledger row of the sponsor's
-- per-day chart).
CREATE OR REPLACE FUNCTION backline.lagos_day(p_at timestamptz) RETURNS date
LANGUAGE sql IMMUTABLE AS $$
  SELECT (p_at AT TIME ZONE 'Africa/Lagos')::date
$$;

REVOKE ALL ON FUNCTION backline.lagos_day(timestamp with time zone) FROM PUBLIC, anon, authenticated, service_role;
