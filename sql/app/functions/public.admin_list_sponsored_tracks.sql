-- Sponsored tracks, newest first, with the sponsor's spend and balance.
CREATE OR REPLACE FUNCTION public.admin_list_sponsored_tracks(p_sponsor_id uuid DEFAULT NULL,
  p_before_created timestamptz DEFAULT NULL, p_before_id uuid DEFAULT NULL, p_limit integer DEFAULT 50)
RETURNS TABLE (track_id uuid, title text, status text, artist_id uuid, artist_name text, sponsor_id uuid,
  sponsor_name text, sponsor_balance numeric, paid_streams bigint, paid_amount numeric, last_paid_at timestamptz,
  streams bigint, created_at timestamptz)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp
  SET plan_cache_mode = force_custom_plan AS $$
BEGIN
  PERFORM backline.admin_actor();
  RETURN QUERY
  WITH page AS (
    SELECT t.* FROM public.tracks t
    WHERE t.is_sponsored AND (p_sponsor_id IS NULL OR t.sponsor_id = p_sponsor_id)
      AND (p_before_created IS NULL OR (t.created_at, t.id) < (p_before_created, coalesce(p_before_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff')))
    ORDER BY t.created_at DESC, t.id DESC
    LIMIT backline.page_size(p_limit)
  )
  SELECT page.id, page.title, page.status, page.artist_id, backline.person_name(page.artist_id), page.sponsor_id,
    backline.person_name(page.sponsor_id), w.balance, coalesce(sp.streams, 0), coalesce(sp.amount, 0),
    sp.last_paid_at, page.streams, page.created_at
  FROM page
  LEFT JOIN public.wallets w ON w.id = page.sponsor_id
  LEFT JOIN backline.sponsorship_spend sp ON sp.sponsor_id = page.sponsor_id AND sp.track_id = page.id
  ORDER BY page.created_at DESC, page.id DESC;
END $$;

REVOKE ALL ON FUNCTION public.admin_list_sponsored_tracks(uuid, timestamp with time zone, uuid, integer) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.admin_list_sponsored_tracks(uuid, timestamp with time zone, uuid, integer) TO authenticated, service_role;
