-- What a shared link's preview shows (Open Graph): title, description and
-- image (a path on the API, or a URL) for the app's public pages, or NULL
-- for any other path or a page the visitor may not see. The app server asks
-- it as a visitor (anon) for crawlers (app setting og_function), so
-- row-level security keeps hidden tracks and private playlists out.
--   /track/{id}            the track: title, "Song by {artist}", cover
--   /profiles/{username}   the person: name, bio, photo
--   /playlists/{id}        a public playlist: name, "Playlist by {owner} · N tracks", cover
CREATE OR REPLACE FUNCTION backline.og_meta(p_path text) RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY INVOKER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  m text[];
  uuid_re constant text := '([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})';
  r jsonb;
BEGIN
  m := regexp_match(p_path, '^/track/' || uuid_re || '/?$');
  IF m IS NOT NULL THEN
    SELECT jsonb_build_object('title', t.title,
        'description', 'Song by ' || coalesce(nullif(a.name, ''), 'Unknown Artist') || coalesce(' · ' || t.genre, '') || ' on Backline',
        'image', coalesce(t.cover_url, p.avatar_url), 'type', 'music.song')
      INTO r
      FROM public.tracks t JOIN public.artist_profiles a ON a.id = t.artist_id JOIN public.public_profiles p ON p.id = t.artist_id
      WHERE t.id = m[1]::uuid AND t.status = 'active';
    RETURN r;
  END IF;
  m := regexp_match(p_path, '^/profiles/([A-Za-z0-9_.-]{1,64})/?$');
  IF m IS NOT NULL THEN
    SELECT jsonb_build_object('title', coalesce(nullif(a.name, ''), nullif(s.company_name, ''), nullif(p.display_name, ''), p.username),
        'description', coalesce(nullif(p.bio, ''), nullif(a.bio, ''),
          CASE p.role WHEN 'artist' THEN 'Artist on Backline' WHEN 'sponsor' THEN 'Sponsor on Backline' ELSE 'Listener on Backline' END),
        'image', p.avatar_url, 'type', 'profile')
      INTO r
      FROM public.public_profiles p
        LEFT JOIN public.artist_profiles a ON a.id = p.id
        LEFT JOIN public.sponsor_profiles s ON s.id = p.id
      WHERE lower(p.username) = lower(m[1]) AND NOT p.is_suspended
      LIMIT 1;
    RETURN r;
  END IF;
  m := regexp_match(p_path, '^/playlists/' || uuid_re || '/?$');
  IF m IS NOT NULL THEN
    SELECT jsonb_build_object('title', l.name,
        'description', coalesce(nullif(l.description, ''), 'Playlist by ' || coalesce(nullif(p.display_name, ''), p.username, 'a listener')
          || ' · ' || (SELECT count(*) FROM public.playlist_tracks pt WHERE pt.playlist_id = l.id) || ' tracks'),
        'image', l.cover_url, 'type', 'music.playlist')
      INTO r
      FROM public.playlists l JOIN public.public_profiles p ON p.id = l.user_id
      WHERE l.id = m[1]::uuid AND l.is_public;
    RETURN r;
  END IF;
  RETURN NULL;
END $$;

REVOKE ALL ON FUNCTION backline.og_meta(text) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION backline.og_meta(text) TO anon;
