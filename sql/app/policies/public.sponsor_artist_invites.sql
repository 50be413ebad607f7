-- sponsor_artist_invites: visible to the two parties. The initiator creates
-- a pending invite; only the other party answers it, by setting status.
DROP POLICY IF EXISTS "parties can read invites" ON public.sponsor_artist_invites;
CREATE POLICY "parties can read invites" ON public.sponsor_artist_invites
  FOR SELECT TO authenticated
  USING (artist_id = (SELECT backline.active_uid()) OR sponsor_id = (SELECT backline.active_uid()) OR (SELECT public.is_admin()));

DROP POLICY IF EXISTS "sponsors can invite artists" ON public.sponsor_artist_invites;
CREATE POLICY "sponsors can invite artists" ON public.sponsor_artist_invites
  FOR INSERT TO authenticated
  WITH CHECK (sponsor_id = (SELECT backline.active_uid()) AND (SELECT public.current_user_role()) = 'sponsor' AND status = 'pending');

DROP POLICY IF EXISTS "artists can pitch to sponsors" ON public.sponsor_artist_invites;
CREATE POLICY "artists can pitch to sponsors" ON public.sponsor_artist_invites
  FOR INSERT TO authenticated
  WITH CHECK (artist_id = (SELECT backline.active_uid()) AND (SELECT public.current_user_role()) = 'artist' AND status = 'pending');

DROP POLICY IF EXISTS "invitees can answer invites" ON public.sponsor_artist_invites;
CREATE POLICY "invitees can answer invites" ON public.sponsor_artist_invites
  FOR UPDATE TO authenticated
  USING ((artist_id = (SELECT backline.active_uid()) AND initiated_by = 'sponsor')
      OR (sponsor_id = (SELECT backline.active_uid()) AND initiated_by = 'artist'))
  WITH CHECK ((artist_id = (SELECT backline.active_uid()) AND initiated_by = 'sponsor')
      OR (sponsor_id = (SELECT backline.active_uid()) AND initiated_by = 'artist'));

DROP POLICY IF EXISTS "initiators can withdraw pending invites" ON public.sponsor_artist_invites;
CREATE POLICY "initiators can withdraw pending invites" ON public.sponsor_artist_invites
  FOR DELETE TO authenticated
  USING (status = 'pending' AND ((sponsor_id = (SELECT backline.active_uid()) AND initiated_by = 'sponsor')
      OR (artist_id = (SELECT backline.active_uid()) AND initiated_by = 'artist')));

DROP POLICY IF EXISTS "admin can manage invites" ON public.sponsor_artist_invites;
CREATE POLICY "admin can manage invites" ON public.sponsor_artist_invites
  FOR ALL TO authenticated USING ((SELECT public.is_admin())) WITH CHECK ((SELECT public.is_admin()));
