-- Public playlists: the owner may make a playlist public, with a cover and a
-- description; anyone may then read it and its tracks (the tracks' own policy
-- still hides a hidden track), by a share link or through search.
ALTER TABLE public.playlists
  ADD COLUMN is_public boolean NOT NULL DEFAULT false,
  ADD COLUMN cover_url text,
  ADD COLUMN description text CHECK (description IS NULL OR length(description) <= 500);

GRANT UPDATE (is_public, cover_url, description) ON public.playlists TO authenticated;
GRANT SELECT ON public.playlists, public.playlist_tracks TO anon;

ALTER TABLE public.playlists ADD COLUMN search_name text GENERATED ALWAYS AS (backline.fold(name)) STORED;
CREATE INDEX playlists_search_fts_idx ON public.playlists
  USING gin (to_tsvector('simple'::regconfig, search_name)) WHERE is_public;
CREATE INDEX playlists_search_trgm_idx ON public.playlists
  USING gin (search_name extensions.gin_trgm_ops) WHERE is_public;
