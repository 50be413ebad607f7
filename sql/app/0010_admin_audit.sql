-- Admin enforcement and the audit trail.
--
-- Every admin action is decided in the database, never in the app: the
-- admin_* functions start with backline.admin_actor(), which
-- refuses (42501, which the REST layer answers with 401 or 403) anyone who is
-- not a signed-in, unsuspended admin, the service role included, because an
-- action needs a person to answer for it. Each action writes one row to
-- admin_audit_log: who, what, on what, the row before and after, the reason
-- and when. Nobody changes or removes an audit row: API roles have no write
-- privilege on the table and a trigger refuses UPDATE, DELETE and TRUNCATE
-- for every role, the owner and SECURITY DEFINER code included.
--
-- The admin policies (direct table writes by admins) stay, and are audited
-- too: a trigger on each of those tables records an admin's change to
-- someone else's row (functions/backline.audit_admin_write.sql). Two rules hold on every path: an admin cannot
-- demote or suspend themselves, and the last active admin cannot be demoted
-- or suspended.
--
-- Its functions (with their triggers) and policies moved to functions/ and
-- policies/, one file each. A database that applied it before keeps its record:
-- replaces: 07d158f870699a9a0ecab7fcaabc9500c71125e68fc8806820025d2d9758e59b

CREATE TABLE public.admin_audit_log (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  actor_id uuid NOT NULL,
  action text NOT NULL CHECK (length(action) BETWEEN 1 AND 100),
  target_type text NOT NULL,
  target_id text NOT NULL,
  reason text,
  before jsonb,
  after jsonb,
  ip_address text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX admin_audit_log_created_idx ON public.admin_audit_log (created_at DESC, id DESC);
CREATE INDEX admin_audit_log_actor_idx ON public.admin_audit_log (actor_id, created_at DESC, id DESC);
CREATE INDEX admin_audit_log_target_idx ON public.admin_audit_log (target_type, target_id, created_at DESC, id DESC);

ALTER TABLE public.admin_audit_log ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON public.admin_audit_log FROM PUBLIC, anon, authenticated, service_role;
GRANT SELECT ON public.admin_audit_log TO authenticated, service_role;
