-- streams: everyone may count them (charts, top fans, platform stats); the
-- address column holds a keyed hash, never an IP. Inserts come from
-- signed-in users with the spec's columns; a trigger (0003) decides every
-- server column.
DROP POLICY IF EXISTS "anyone can read streams" ON public.streams;
CREATE POLICY "anyone can read streams" ON public.streams
  FOR SELECT TO anon, authenticated USING (true);

DROP POLICY IF EXISTS "users can insert own streams" ON public.streams;
CREATE POLICY "users can insert own streams" ON public.streams
  FOR INSERT TO authenticated WITH CHECK (user_id = (SELECT backline.active_uid()));
