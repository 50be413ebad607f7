-- Tracks, newest first, by title search, status, artist and sponsorship,
-- with their valid and rejected stream counts.
CREATE OR REPLACE FUNCTION public.admin_search_tracks(p_query text DEFAULT NULL, p_status text DEFAULT NULL,
  p_artist_id uuid DEFAULT NULL, p_sponsored boolean DEFAULT NULL, p_before_created timestamptz DEFAULT NULL,
  p_before_id uuid DEFAULT NULL, p_limit integer DEFAULT 50)
RETURNS TABLE (id uuid, title text, artist_id uuid, artist_name text, sponsor_id uuid, sponsor_name text,
  is_sponsored boolean, status text, moderation_reason text, streams bigint, rejected_streams bigint, genre text,
  cover_url text, created_at timestamptz)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp
  SET plan_cache_mode = force_custom_plan AS $$
DECLARE
  pat text := CASE WHEN coalesce(btrim(p_query), '') <> '' THEN backline.contains_pattern(p_query) END;
BEGIN
  PERFORM backline.admin_actor();
  RETURN QUERY
  WITH page AS (
    SELECT t.* FROM public.tracks t
    WHERE (pat IS NULL OR lower(t.title) LIKE pat)
      AND (p_status IS NULL OR t.status = p_status)
      AND (p_artist_id IS NULL OR t.artist_id = p_artist_id)
      AND (p_sponsored IS NULL OR t.is_sponsored = p_sponsored)
      AND (p_before_created IS NULL OR (t.created_at, t.id) < (p_before_created, coalesce(p_before_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff')))
    ORDER BY t.created_at DESC, t.id DESC
    LIMIT backline.page_size(p_limit)
  )
  SELECT page.id, page.title, page.artist_id, backline.person_name(page.artist_id), page.sponsor_id,
    CASE WHEN page.sponsor_id IS NOT NULL THEN backline.person_name(page.sponsor_id) END,
    page.is_sponsored, page.status, page.moderation_reason, page.streams,
    (SELECT count(*) FROM public.streams s WHERE s.track_id = page.id AND NOT s.is_valid),
    page.genre, page.cover_url, page.created_at
  FROM page
  ORDER BY page.created_at DESC, page.id DESC;
END $$;

REVOKE ALL ON FUNCTION public.admin_search_tracks(text, text, uuid, boolean, timestamp with time zone, uuid, integer) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.admin_search_tracks(text, text, uuid, boolean, timestamp with time zone, uuid, integer) TO authenticated, service_role;
