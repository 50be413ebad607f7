-- Fan: today's allowance and when it resets (local midnight), this week's
-- streams, top artists, and the latest listening history with the server's
-- verdict and reason, each stream's cover and how long its play was listened
-- to (`listened`: the whole listen record_listen kept, at least the
-- stream's recorded duration).
CREATE OR REPLACE FUNCTION public.get_fan_dashboard() RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := backline.require_user();
  lim public.daily_stream_limits := backline.daily_limit(uid);
  week_start timestamptz := (backline.today() - 6)::timestamp AT TIME ZONE 'Africa/Lagos';
BEGIN
  RETURN jsonb_build_object(
    'limit', jsonb_build_object('streams_remaining', lim.streams_remaining, 'daily_limit', lim.daily_limit,
      'resets_at', (backline.today() + 1)::timestamp AT TIME ZONE 'Africa/Lagos'),
    'week', jsonb_build_object(
      'valid', (SELECT count(*) FROM public.streams WHERE user_id = uid AND is_valid AND created_at >= week_start),
      'all', (SELECT count(*) FROM public.streams WHERE user_id = uid AND created_at >= week_start)),
    'top_artists', (SELECT coalesce(jsonb_agg(jsonb_build_object('artist_id', a.artist_id,
        'name', backline.display_name(a.artist_id), 'streams', a.n) ORDER BY a.n DESC), '[]'::jsonb)
      FROM (SELECT t.artist_id, count(*) AS n FROM public.streams s JOIN public.tracks t ON t.id = s.track_id
            WHERE s.user_id = uid AND s.is_valid GROUP BY t.artist_id ORDER BY count(*) DESC LIMIT 5) a),
    'favorites', (SELECT count(*) FROM public.favorites WHERE user_id = uid),
    'history', (SELECT coalesce(jsonb_agg(jsonb_build_object('id', s.id, 'track_id', s.track_id,
        'title', coalesce(t.title, 'Deleted track'), 'artist_name', backline.display_name(t.artist_id),
        'cover_url', t.cover_url, 'created_at', s.created_at, 'duration', s.duration,
        'listened', greatest(s.duration, ps.listened_seconds), 'is_valid', s.is_valid,
        'invalid_reason', s.invalid_reason) ORDER BY s.created_at DESC), '[]'::jsonb)
      FROM (SELECT * FROM public.streams WHERE user_id = uid ORDER BY created_at DESC LIMIT 10) s
      LEFT JOIN public.tracks t ON t.id = s.track_id
      LEFT JOIN public.play_sessions ps ON ps.id = s.play_session_id));
END $$;

REVOKE ALL ON FUNCTION public.get_fan_dashboard() FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.get_fan_dashboard() TO authenticated, service_role;
