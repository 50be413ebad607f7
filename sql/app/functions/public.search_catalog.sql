-- Search as one types: tracks, artists, sponsors and public playlists whose
-- name matches p_query, grouped by kind, at most p_limit (1..20, default 6)
-- of each, best first. A name matches when it holds every typed word as a
-- word or a word's beginning (full text), or when the typed text is close to
-- a stretch of it (trigram word similarity: a typo or two). Both are compared
-- folded (backline.fold: lower case, no accents), on the indexes of
-- 0030_search.sql. Ranking: whole-word matches first, then closeness, then
-- popularity, among the first 1,000 matches of each kind (a text as broad as
-- a common three-letter prefix matches more; the next letter narrows it). The
-- names are compared as stored folded (search_name).
--
-- SECURITY DEFINER, so the search's helpers stay out of the API roles'
-- reach; what it shows is spelt out: active tracks only, public playlists
-- only, and suspended accounts (their profile, tracks and playlists) are
-- left out of discovery. Tracks of the best
-- matching artist follow the tracks matched by title, so "burna" lists Burna
-- Boy's songs.
CREATE OR REPLACE FUNCTION public.search_catalog(p_query text, p_limit integer DEFAULT 6) RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, extensions, pg_temp
-- 0.5 rather than pg_trgm's 0.6: "midnite lagos" is 0.52 of "Midnight in Lagos".
SET pg_trgm.word_similarity_threshold = 0.5 AS $$
DECLARE
  q text := backline.fold(btrim(left(coalesce(p_query, ''), 100)));
  ts tsquery;
  n integer := least(greatest(coalesce(p_limit, 6), 1), 20);
  artists jsonb;
  sponsors jsonb;
  lists jsonb;
  track_ids uuid[];
  top_artist uuid;
  -- A broad text ("lov") matches thousands of tracks; ranking reads and
  -- scores each, so at most this many matches are ranked.
  candidates constant integer := 1000;
BEGIN
  IF length(q) < 2 THEN
    RETURN jsonb_build_object('query', coalesce(p_query, ''), 'tracks', '[]'::jsonb, 'people', '[]'::jsonb,
      'artists', '[]'::jsonb, 'sponsors', '[]'::jsonb, 'playlists', '[]'::jsonb);
  END IF;
  ts := backline.search_query(q);

  WITH m AS (
    SELECT a.id, a.name, a.follower_count, a.stream_count, p.username, p.avatar_url, p.is_verified,
      (to_tsvector('simple', a.search_name) @@ ts) AS whole,
      word_similarity(q, a.search_name) AS sim
    FROM public.artist_profiles a JOIN public.public_profiles p ON p.id = a.id
    WHERE (to_tsvector('simple', a.search_name) @@ ts OR a.search_name %> q)
      AND NOT p.is_suspended
    ORDER BY whole DESC, sim DESC, a.stream_count DESC, a.id
    LIMIT n)
  SELECT coalesce(jsonb_agg(jsonb_build_object('id', m.id, 'name', m.name, 'username', m.username,
      'avatar_url', m.avatar_url, 'is_verified', m.is_verified, 'follower_count', m.follower_count,
      'stream_count', m.stream_count) ORDER BY m.whole DESC, m.sim DESC, m.stream_count DESC, m.id), '[]'::jsonb),
    (array_agg(m.id ORDER BY m.whole DESC, m.sim DESC, m.stream_count DESC, m.id))[1]
    INTO artists, top_artist FROM m;

  WITH m AS (
    SELECT s.id, coalesce(nullif(s.company_name, ''), s.name, '') AS name, p.username, p.avatar_url, p.is_verified,
      (to_tsvector('simple', s.search_name) @@ ts) AS whole,
      word_similarity(q, s.search_name) AS sim
    FROM public.sponsor_profiles s JOIN public.public_profiles p ON p.id = s.id
    WHERE (to_tsvector('simple', s.search_name) @@ ts
           OR s.search_name %> q)
      AND NOT p.is_suspended
    ORDER BY whole DESC, sim DESC, s.id
    LIMIT n)
  SELECT coalesce(jsonb_agg(jsonb_build_object('id', m.id, 'name', m.name, 'username', m.username,
      'avatar_url', m.avatar_url, 'is_verified', m.is_verified) ORDER BY m.whole DESC, m.sim DESC, m.id), '[]'::jsonb)
    INTO sponsors FROM m;

  WITH c AS (
    SELECT l.id, l.name, l.cover_url, l.user_id, l.search_name, p.display_name AS owner_name, p.username AS owner_username
    FROM public.playlists l JOIN public.public_profiles p ON p.id = l.user_id
    WHERE l.is_public AND (to_tsvector('simple', l.search_name) @@ ts OR l.search_name %> q)
      AND NOT p.is_suspended
    LIMIT candidates
  ), m AS (
    SELECT c.*, (to_tsvector('simple', c.search_name) @@ ts) AS whole, word_similarity(q, c.search_name) AS sim,
      (SELECT count(*) FROM public.playlist_tracks pt WHERE pt.playlist_id = c.id) AS track_count
    FROM c
    ORDER BY whole DESC, sim DESC, c.id
    LIMIT n)
  SELECT coalesce(jsonb_agg(jsonb_build_object('id', m.id, 'name', m.name, 'cover_url', m.cover_url,
      'owner_id', m.user_id, 'owner_name', m.owner_name, 'owner_username', m.owner_username,
      'track_count', m.track_count) ORDER BY m.whole DESC, m.sim DESC, m.id), '[]'::jsonb)
    INTO lists FROM m;

  track_ids := ARRAY(
    SELECT id FROM (
      SELECT x.id, min(x.k) AS k FROM (
        SELECT m.id, row_number() OVER (ORDER BY m.whole DESC, m.sim DESC, m.streams DESC, m.id) AS k
        FROM (
          SELECT c.id, c.streams,
            (to_tsvector('simple', c.search_name) @@ ts) AS whole,
            word_similarity(q, c.search_name) AS sim
          FROM (SELECT t.id, t.streams, t.search_name FROM public.tracks t
                WHERE t.status = 'active'
                  AND (to_tsvector('simple', t.search_name) @@ ts OR t.search_name %> q)
                  AND NOT EXISTS (SELECT 1 FROM public.public_profiles p WHERE p.id = t.artist_id AND p.is_suspended)
                LIMIT candidates) c
          ORDER BY whole DESC, sim DESC, c.streams DESC, c.id
          LIMIT n) m
        UNION ALL
        SELECT b.id, n + row_number() OVER (ORDER BY b.streams DESC, b.id)
        FROM (SELECT t.id, t.streams FROM public.tracks t
              WHERE t.artist_id = top_artist AND t.status = 'active'
              ORDER BY t.streams DESC, t.id LIMIT n) b
      ) x GROUP BY x.id
      ORDER BY k LIMIT n) y);

  RETURN jsonb_build_object('query', coalesce(p_query, ''), 'artists', artists, 'sponsors', sponsors,
    'playlists', lists) || backline.track_list(track_ids);
END $$;

REVOKE ALL ON FUNCTION public.search_catalog(text, integer) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.search_catalog(text, integer) TO anon, authenticated, service_role;
