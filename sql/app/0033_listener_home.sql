-- The listener's home: recently played, "Because you liked", new releases
-- from followed artists and genre stations (functions/public.get_listener_home.sql,
-- public.get_genre_station.sql). Co-listening reads who liked or streamed a
-- track, so each step walks an index for a bounded number of rows.
CREATE INDEX favorites_track_idx ON public.favorites (track_id, created_at DESC);
CREATE INDEX tracks_genre_top_idx ON public.tracks (lower(genre), streams DESC) WHERE status = 'active';
