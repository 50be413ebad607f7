-- Playlists hold any track a listener may play, from its card or the player,
-- not only liked ones; their rules are in functions/backline.guard_playlist_track.sql
-- and functions/backline.guard_playlist.sql. The limits keep one account's
-- playlists bounded.
INSERT INTO public.app_settings (key, value, description, is_public) VALUES
  ('playlists_per_user', '100', 'Playlists one account may keep', true),
  ('playlist_max_tracks', '500', 'Tracks one playlist may hold', true)
ON CONFLICT (key) DO NOTHING;
