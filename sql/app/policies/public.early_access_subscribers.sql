-- early_access_subscribers: anyone joins the waitlist; only admins read it.
DROP POLICY IF EXISTS "anyone can join the waitlist" ON public.early_access_subscribers;
CREATE POLICY "anyone can join the waitlist" ON public.early_access_subscribers
  FOR INSERT TO anon, authenticated WITH CHECK (true);

DROP POLICY IF EXISTS "admin can read the waitlist" ON public.early_access_subscribers;
CREATE POLICY "admin can read the waitlist" ON public.early_access_subscribers
  FOR SELECT TO authenticated USING ((SELECT public.is_admin()));

DROP POLICY IF EXISTS "admin can delete from the waitlist" ON public.early_access_subscribers;
CREATE POLICY "admin can delete from the waitlist" ON public.early_access_subscribers
  FOR DELETE TO authenticated USING ((SELECT public.is_admin()));
