-- Admin dashboard: track moderation.
--
-- A track is active, hidden or removed. Only active tracks are public: the
-- read policy shows hidden and removed tracks to their artist and to admins
-- only, so they leave every public list (home, charts, profiles, favorites)
-- with no change to the app's queries. A play of a track that is not active
-- cannot start, a stream of one is not valid ('Track is not available'),
-- and settlement pays nothing for it, even for a stream made before it was
-- hidden. Removing a track tells its artist why; hiding and removing are
-- undone by admin_unhide_track. Artists cannot change these columns.
--
-- Its functions (with their triggers) and policies moved to functions/ and
-- policies/, one file each. A database that applied it before keeps its record:
-- replaces: 529f183303cbbfce2167eb52d0160c9849218a11394007b8f313493a8fee8c43

ALTER TABLE public.tracks
  ADD COLUMN status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'hidden', 'removed')),
  ADD COLUMN moderation_reason text,
  ADD COLUMN moderated_at timestamptz,
  ADD COLUMN moderated_by uuid;

-- The read policy that showed every track (policies/public.tracks.sql has
-- the one that replaced it).
DROP POLICY IF EXISTS "anyone can read tracks" ON public.tracks;

-- Lists and actions.
CREATE INDEX tracks_created_id_idx ON public.tracks (created_at DESC, id DESC);
CREATE INDEX tracks_moderated_idx ON public.tracks (status, created_at DESC, id DESC) WHERE status <> 'active';
CREATE INDEX tracks_title_search_idx ON public.tracks USING gin (lower(title) extensions.gin_trgm_ops);
CREATE INDEX streams_track_idx ON public.streams (track_id, created_at DESC);
CREATE INDEX streams_rejected_track_idx ON public.streams (track_id) WHERE NOT is_valid;
CREATE INDEX activity_log_entity_idx ON public.activity_log (entity_type, entity_id, created_at DESC);
