-- favorites: the owner's alone.
DROP POLICY IF EXISTS "users can read own favorites" ON public.favorites;
CREATE POLICY "users can read own favorites" ON public.favorites
  FOR SELECT TO authenticated USING (user_id = (SELECT backline.active_uid()) OR (SELECT public.is_admin()));

DROP POLICY IF EXISTS "users can insert own favorites" ON public.favorites;
CREATE POLICY "users can insert own favorites" ON public.favorites
  FOR INSERT TO authenticated WITH CHECK (user_id = (SELECT backline.active_uid()));

DROP POLICY IF EXISTS "users can delete own favorites" ON public.favorites;
CREATE POLICY "users can delete own favorites" ON public.favorites
  FOR DELETE TO authenticated USING (user_id = (SELECT backline.active_uid()));
