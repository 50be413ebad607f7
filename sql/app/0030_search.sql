-- Search for listeners: tracks, artists, sponsors and public playlists by
-- name, as one types, tolerant of typos (pg_trgm) and of accents (unaccent).
--
-- Every name is compared folded: lower-cased, accents taken off
-- (backline.fold), so "Asa" finds "Asá" and "burna" finds "Burna". Each kind
-- keeps its folded name (search_name) and two indexes on it: a full-text one (whole words and
-- prefixes, the query as typed) and a trigram one (a misspelt word: "Burna
-- Boi" still shares most of its trigrams with "Burna Boy"). The functions
-- that read them live in functions/public.search_catalog.sql.

CREATE EXTENSION IF NOT EXISTS unaccent WITH SCHEMA extensions;

-- The folded form of a name. unaccent() is only STABLE (its dictionary could
-- be changed), so an index cannot be built on it directly; naming the
-- dictionary makes the result depend on its argument alone, which is what
-- IMMUTABLE promises. Stored columns are computed with it, so it lives here
-- with them: changing it means a new migration that recomputes them.
CREATE FUNCTION backline.fold(p_text text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT lower(extensions.unaccent('extensions.unaccent'::regdictionary, p_text))
$$;
REVOKE ALL ON FUNCTION backline.fold(text) FROM PUBLIC;
-- Whoever writes a row computes its folded name, with their own rights.
GRANT EXECUTE ON FUNCTION backline.fold(text) TO anon, authenticated, service_role;

-- Each searched name is kept folded in a generated column, search_name,
-- so a search folds only what was typed: folding every candidate row (a
-- function call each, several per row) cost more than the index lookups.
ALTER TABLE public.tracks ADD COLUMN search_name text GENERATED ALWAYS AS (backline.fold(title)) STORED;
ALTER TABLE public.artist_profiles ADD COLUMN search_name text GENERATED ALWAYS AS (backline.fold(name)) STORED;
ALTER TABLE public.sponsor_profiles ADD COLUMN search_name text
  GENERATED ALWAYS AS (backline.fold(coalesce(nullif(company_name, ''), name, ''))) STORED;

-- Tracks: only active ones are ever searched, so the indexes hold only them.
CREATE INDEX tracks_search_fts_idx ON public.tracks
  USING gin (to_tsvector('simple'::regconfig, search_name)) WHERE status = 'active';
CREATE INDEX tracks_search_trgm_idx ON public.tracks
  USING gin (search_name extensions.gin_trgm_ops) WHERE status = 'active';

CREATE INDEX artist_profiles_search_fts_idx ON public.artist_profiles
  USING gin (to_tsvector('simple'::regconfig, search_name));
CREATE INDEX artist_profiles_search_trgm_idx ON public.artist_profiles
  USING gin (search_name extensions.gin_trgm_ops);

CREATE INDEX sponsor_profiles_search_fts_idx ON public.sponsor_profiles
  USING gin (to_tsvector('simple'::regconfig, search_name));
CREATE INDEX sponsor_profiles_search_trgm_idx ON public.sponsor_profiles
  USING gin (search_name extensions.gin_trgm_ops);

-- A track's artist's other tracks, newest first (search results by artist,
-- new releases).
CREATE INDEX tracks_active_artist_idx ON public.tracks (artist_id, created_at DESC) WHERE status = 'active';
