-- Every invite, newest first, with the sponsor's balance and what the
-- sponsor has paid for the invite's track (or all the artist's tracks).
CREATE OR REPLACE FUNCTION public.admin_list_invites(p_status text DEFAULT NULL, p_before_created timestamptz DEFAULT NULL,
  p_before_id uuid DEFAULT NULL, p_limit integer DEFAULT 50)
RETURNS TABLE (id uuid, artist_id uuid, artist_name text, sponsor_id uuid, sponsor_name text, track_id uuid,
  track_title text, status text, initiated_by text, pitch text, sponsor_balance numeric, spend_streams bigint,
  spend_amount numeric, created_at timestamptz, responded_at timestamptz)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp
  SET plan_cache_mode = force_custom_plan AS $$
BEGIN
  PERFORM backline.admin_actor();
  RETURN QUERY
  WITH page AS (
    SELECT i.* FROM public.sponsor_artist_invites i
    WHERE (p_status IS NULL OR i.status = p_status)
      AND (p_before_created IS NULL OR (i.created_at, i.id) < (p_before_created, coalesce(p_before_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff')))
    ORDER BY i.created_at DESC, i.id DESC
    LIMIT backline.page_size(p_limit)
  )
  SELECT page.id, page.artist_id, backline.person_name(page.artist_id), page.sponsor_id,
    backline.person_name(page.sponsor_id), page.track_id, t.title, page.status, page.initiated_by, page.pitch,
    w.balance, coalesce(sp.streams, 0)::bigint, coalesce(sp.amount, 0), page.created_at, page.responded_at
  FROM page
  LEFT JOIN public.tracks t ON t.id = page.track_id
  LEFT JOIN public.wallets w ON w.id = page.sponsor_id
  LEFT JOIN LATERAL (
    SELECT sum(s.streams) AS streams, sum(s.amount) AS amount FROM backline.sponsorship_spend s
    WHERE s.sponsor_id = page.sponsor_id
      AND (s.track_id = page.track_id OR (page.track_id IS NULL
        AND s.track_id IN (SELECT a.id FROM public.tracks a WHERE a.artist_id = page.artist_id)))) sp ON true
  ORDER BY page.created_at DESC, page.id DESC;
END $$;

REVOKE ALL ON FUNCTION public.admin_list_invites(text, timestamp with time zone, uuid, integer) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.admin_list_invites(text, timestamp with time zone, uuid, integer) TO authenticated, service_role;
