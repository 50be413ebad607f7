-- A track added to a playlist: only the owner's own playlists (the policies
-- refuse anyone else; nothing is read here for them, so an answer says
-- nothing about another user's playlist), a track the owner may play (active,
-- or their own), once per playlist, up to playlist_max_tracks. Direct inserts
-- from the app and from any client meet the same rules.
CREATE OR REPLACE FUNCTION backline.guard_playlist_track() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := backline.active_uid();
  t record;
BEGIN
  IF current_setting('role', true) NOT IN ('anon', 'authenticated') THEN
    RETURN NEW;
  END IF;
  -- Lock the playlist: two adds at once count and place one after the other.
  PERFORM 1 FROM public.playlists WHERE id = NEW.playlist_id AND user_id = uid FOR UPDATE;
  IF NOT FOUND THEN
    RETURN NEW; -- not the caller's playlist: the policy refuses the row
  END IF;
  SELECT status, artist_id INTO t FROM public.tracks WHERE id = NEW.track_id;
  IF NOT FOUND OR (t.status <> 'active' AND t.artist_id <> uid) THEN
    RAISE EXCEPTION 'Track not found' USING ERRCODE = 'P0001';
  END IF;
  IF EXISTS (SELECT 1 FROM public.playlist_tracks WHERE playlist_id = NEW.playlist_id AND track_id = NEW.track_id) THEN
    RAISE EXCEPTION 'This track is already in the playlist' USING ERRCODE = '23505';
  END IF;
  IF (SELECT count(*) FROM public.playlist_tracks WHERE playlist_id = NEW.playlist_id)
     >= backline.setting_num('playlist_max_tracks') THEN
    RAISE EXCEPTION 'A playlist holds at most % tracks', backline.setting_num('playlist_max_tracks')::int USING ERRCODE = 'P0001';
  END IF;
  RETURN NEW;
END $$;

CREATE OR REPLACE TRIGGER guard_playlist_track BEFORE INSERT ON public.playlist_tracks
  FOR EACH ROW EXECUTE FUNCTION backline.guard_playlist_track();

REVOKE ALL ON FUNCTION backline.guard_playlist_track() FROM PUBLIC, anon, authenticated, service_role;
