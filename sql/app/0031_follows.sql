-- Following artists: a listener follows an artist and hears of each new
-- release through notifications. The rows are the follower's own (no one else
-- reads who follows whom); an artist's follower count is public, kept on the
-- profile by functions/backline.count_followers.sql.
CREATE TABLE public.follows (
  follower_id uuid NOT NULL DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE CASCADE,
  artist_id uuid NOT NULL REFERENCES public.artist_profiles (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (follower_id, artist_id),
  CONSTRAINT follows_not_self CHECK (follower_id <> artist_id)
);
-- The followers of an artist (the new-release notice), and a listener's
-- Following list newest first.
CREATE INDEX follows_artist_idx ON public.follows (artist_id);
CREATE INDEX follows_follower_idx ON public.follows (follower_id, created_at DESC);

ALTER TABLE public.follows ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON public.follows FROM PUBLIC, anon, authenticated, service_role;
GRANT SELECT, INSERT, DELETE ON public.follows TO authenticated;
GRANT SELECT, INSERT, UPDATE, DELETE ON public.follows TO service_role;

ALTER TABLE public.artist_profiles ADD COLUMN follower_count bigint NOT NULL DEFAULT 0;
