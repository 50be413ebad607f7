-- The genres of active tracks (lower-cased, as stations name them), each
-- once: a skip scan of tracks_genre_top_idx, one index probe per genre
-- rather than a read of every track.
CREATE OR REPLACE FUNCTION public.list_genres() RETURNS jsonb
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  WITH RECURSIVE g(genre) AS (
    (SELECT lower(t.genre) FROM public.tracks t
     WHERE t.status = 'active' AND lower(t.genre) IS NOT NULL ORDER BY lower(t.genre) LIMIT 1)
    UNION ALL
    SELECT (SELECT lower(t.genre) FROM public.tracks t
            WHERE t.status = 'active' AND lower(t.genre) > g.genre ORDER BY lower(t.genre) LIMIT 1)
    FROM g WHERE g.genre IS NOT NULL
  )
  SELECT coalesce(jsonb_agg(genre ORDER BY genre), '[]'::jsonb) FROM g WHERE genre IS NOT NULL AND genre <> ''
$$;

REVOKE ALL ON FUNCTION public.list_genres() FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.list_genres() TO anon, authenticated, service_role;
