DROP POLICY IF EXISTS "admin can read the audit log" ON public.admin_audit_log;
CREATE POLICY "admin can read the audit log" ON public.admin_audit_log
  FOR SELECT TO authenticated USING ((SELECT public.is_admin()));
