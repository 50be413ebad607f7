-- follows: a listener's own rows (who they follow), read, added and removed
-- by them alone; nobody else learns who follows whom. Counts are public on
-- artist_profiles.follower_count.
DROP POLICY IF EXISTS "users can read own follows" ON public.follows;
CREATE POLICY "users can read own follows" ON public.follows
  FOR SELECT TO authenticated USING (follower_id = (SELECT backline.active_uid()));

DROP POLICY IF EXISTS "users can follow artists" ON public.follows;
CREATE POLICY "users can follow artists" ON public.follows
  FOR INSERT TO authenticated WITH CHECK (follower_id = (SELECT backline.active_uid()));

DROP POLICY IF EXISTS "users can unfollow artists" ON public.follows;
CREATE POLICY "users can unfollow artists" ON public.follows
  FOR DELETE TO authenticated USING (follower_id = (SELECT backline.active_uid()));
