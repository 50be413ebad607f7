-- Reorders a playlist in one statement: p_track_ids in the new order, which
-- must be exactly the playlist's tracks.
CREATE OR REPLACE FUNCTION public.reorder_playlist(p_playlist_id uuid, p_track_ids uuid[]) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  PERFORM backline.require_active();
  PERFORM 1 FROM public.playlists WHERE id = p_playlist_id AND user_id = auth.uid() FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'Playlist not found' USING ERRCODE = 'P0001';
  END IF;
  IF (SELECT array_agg(track_id ORDER BY track_id) FROM public.playlist_tracks WHERE playlist_id = p_playlist_id)
     IS DISTINCT FROM (SELECT array_agg(DISTINCT t ORDER BY t) FROM unnest(p_track_ids) t)
     OR cardinality(p_track_ids) <> (SELECT count(*) FROM public.playlist_tracks WHERE playlist_id = p_playlist_id) THEN
    RAISE EXCEPTION 'The new order must list every track of the playlist once' USING ERRCODE = 'P0001';
  END IF;
  UPDATE public.playlist_tracks pt SET position = o.n
  FROM unnest(p_track_ids) WITH ORDINALITY AS o(track_id, n)
  WHERE pt.playlist_id = p_playlist_id AND pt.track_id = o.track_id;
  UPDATE public.playlists SET updated_at = now() WHERE id = p_playlist_id;
END $$;

REVOKE ALL ON FUNCTION public.reorder_playlist(uuid, uuid[]) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.reorder_playlist(uuid, uuid[]) TO authenticated, service_role;
