-- "Because you liked": tracks the listeners of p_artist also like or stream,
-- most shared first, leaving out p_artist's own tracks and those the
-- caller already likes. Co-listeners are the latest 200 who liked or validly
-- streamed one of the artist's 20 most-streamed tracks; from each, their
-- latest 50 likes and 50 valid streams count once per listener and track.
-- Every step walks an index for a bounded number of rows, whatever the size
-- of streams (bench/search). SECURITY DEFINER: it reads other listeners'
-- likes and streams, and answers only track ids, active ones.
CREATE OR REPLACE FUNCTION backline.co_listened(p_artist uuid, p_limit integer) RETURNS uuid[]
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  WITH seed AS (
    SELECT t.id FROM public.tracks t
    WHERE t.artist_id = p_artist AND t.status = 'active'
    ORDER BY t.streams DESC LIMIT 20
  ), heard AS (
    SELECT x.user_id, max(x.at) AS at FROM (
      SELECT f.user_id, f.created_at AS at FROM seed
        CROSS JOIN LATERAL (SELECT f.user_id, f.created_at FROM public.favorites f
                            WHERE f.track_id = seed.id ORDER BY f.created_at DESC LIMIT 200) f
      UNION ALL
      SELECT s.user_id, s.created_at FROM seed
        CROSS JOIN LATERAL (SELECT s.user_id, s.created_at FROM public.streams s
                            WHERE s.track_id = seed.id AND s.is_valid AND s.user_id IS NOT NULL
                            ORDER BY s.created_at DESC LIMIT 200) s
    ) x
    WHERE x.user_id IS DISTINCT FROM auth.uid()
    GROUP BY x.user_id
    ORDER BY max(x.at) DESC LIMIT 200
  ), theirs AS (
    SELECT DISTINCT h.user_id, y.track_id FROM heard h
      CROSS JOIN LATERAL (
        (SELECT f.track_id FROM public.favorites f WHERE f.user_id = h.user_id ORDER BY f.created_at DESC LIMIT 50)
        UNION ALL
        (SELECT s.track_id FROM public.streams s WHERE s.user_id = h.user_id AND s.is_valid ORDER BY s.created_at DESC LIMIT 50)
      ) y
  ), counted AS (
    SELECT th.track_id, count(*) AS listeners FROM theirs th
    WHERE NOT EXISTS (SELECT 1 FROM public.favorites f WHERE f.user_id = auth.uid() AND f.track_id = th.track_id)
    GROUP BY th.track_id
    ORDER BY count(*) DESC
    LIMIT 500
  )
  -- Each candidate's row by its key (LIMIT 1 keeps it a lookup per track
  -- rather than a join that may read the whole table).
  SELECT coalesce(array_agg(r.id ORDER BY r.listeners DESC, r.streams DESC, r.id), '{}')
  FROM (
    SELECT t.id, c.listeners, t.streams
    FROM counted c
      CROSS JOIN LATERAL (SELECT t.id, t.streams FROM public.tracks t
                          WHERE t.id = c.track_id AND t.status = 'active' AND t.artist_id <> p_artist LIMIT 1) t
    ORDER BY c.listeners DESC, t.streams DESC, t.id
    LIMIT least(greatest(p_limit, 1), 50)
  ) r
$$;

REVOKE ALL ON FUNCTION backline.co_listened(uuid, integer) FROM PUBLIC, anon, authenticated, service_role;
