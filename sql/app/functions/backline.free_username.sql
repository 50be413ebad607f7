-- A free username from a wish: lower-cased, reduced to [a-z0-9_.], padded to
-- three characters, and suffixed with digits until no one has it.
CREATE OR REPLACE FUNCTION backline.free_username(p_wish text) RETURNS text
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  base text := left(regexp_replace(lower(coalesce(p_wish, '')), '[^a-z0-9_.]', '', 'g'), 24);
  candidate text;
  n int := 0;
BEGIN
  IF length(base) < 3 THEN
    base := rpad(coalesce(nullif(base, ''), 'user'), 4, '0');
  END IF;
  candidate := base;
  WHILE EXISTS (SELECT 1 FROM public.public_profiles WHERE lower(username) = candidate) LOOP
    n := n + 1;
    candidate := base || (floor(random() * 9000) + 1000)::int::text;
    IF n > 20 THEN
      candidate := base || replace(gen_random_uuid()::text, '-', '');
      candidate := left(candidate, 30);
    END IF;
  END LOOP;
  RETURN candidate;
END $$;

REVOKE ALL ON FUNCTION backline.free_username(text) FROM PUBLIC, anon, authenticated, service_role;
