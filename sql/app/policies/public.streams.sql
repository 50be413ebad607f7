-- streams: a fan's listening history is theirs (and admins'). Everyone else
-- gets aggregates only: the counters on tracks and artist_profiles,
-- get_platform_stats and get_top_fans, and the dashboards' functions. The
-- address column holds a keyed hash, never an IP, but a hash shared by two
-- accounts still links them, so it is private too. Inserts come from
-- signed-in users with the spec's columns; the stream trigger decides every
-- server column.
DROP POLICY IF EXISTS "users can read own streams" ON public.streams;
CREATE POLICY "users can read own streams" ON public.streams
  FOR SELECT TO authenticated USING (user_id = (SELECT backline.active_uid()) OR (SELECT public.is_admin()));

DROP POLICY IF EXISTS "users can insert own streams" ON public.streams;
CREATE POLICY "users can insert own streams" ON public.streams
  FOR INSERT TO authenticated WITH CHECK (user_id = (SELECT backline.active_uid()));
