-- notifications: every read, update and delete is the owner's own rows
-- (spec section 6). Owners may only flip is_read; rows are created by the
-- platform.
DROP POLICY IF EXISTS "users can read own notifications" ON public.notifications;
CREATE POLICY "users can read own notifications" ON public.notifications
  FOR SELECT TO authenticated USING (user_id = (SELECT backline.active_uid()));

DROP POLICY IF EXISTS "users can update own notifications" ON public.notifications;
CREATE POLICY "users can update own notifications" ON public.notifications
  FOR UPDATE TO authenticated USING (user_id = (SELECT backline.active_uid())) WITH CHECK (user_id = (SELECT backline.active_uid()));

DROP POLICY IF EXISTS "users can delete own notifications" ON public.notifications;
CREATE POLICY "users can delete own notifications" ON public.notifications
  FOR DELETE TO authenticated USING (user_id = (SELECT backline.active_uid()));
