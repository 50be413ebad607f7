DROP POLICY IF EXISTS "anyone can read banks" ON public.banks;
CREATE POLICY "anyone can read banks" ON public.banks FOR SELECT TO anon, authenticated USING (true);
