-- Admin enforcement and the audit trail.
--
-- Every admin action is decided here, never in the app: the admin_*
-- functions of the next migrations start with backline.admin_actor(), which
-- refuses (42501, which the REST layer answers with 401 or 403) anyone who is
-- not a signed-in, unsuspended admin, the service role included, because an
-- action needs a person to answer for it. Each action writes one row to
-- admin_audit_log: who, what, on what, the row before and after, the reason
-- and when. Nobody changes or removes an audit row: API roles have no write
-- privilege on the table and a trigger refuses UPDATE, DELETE and TRUNCATE
-- for every role, the owner and SECURITY DEFINER code included.
--
-- The admin policies of 0002 (direct table writes by admins) stay, and are
-- audited too: a trigger on each of those tables records an admin's change
-- to someone else's row. Two rules hold on every path: an admin cannot
-- demote or suspend themselves, and the last active admin cannot be demoted
-- or suspended.

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
CREATE POLICY "admin can read the audit log" ON public.admin_audit_log
  FOR SELECT TO authenticated USING ((SELECT public.is_admin()));
REVOKE ALL ON public.admin_audit_log FROM PUBLIC, anon, authenticated, service_role;
GRANT SELECT ON public.admin_audit_log TO authenticated, service_role;

-- Append-only for everyone: privileges stop the API roles, this stops the
-- owner and any SECURITY DEFINER function.
CREATE FUNCTION backline.audit_is_append_only() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  RAISE EXCEPTION 'audit rows cannot be changed or removed' USING ERRCODE = '42501';
END $$;
CREATE TRIGGER append_only BEFORE UPDATE OR DELETE ON public.admin_audit_log
  FOR EACH ROW EXECUTE FUNCTION backline.audit_is_append_only();
CREATE TRIGGER append_only_truncate BEFORE TRUNCATE ON public.admin_audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION backline.audit_is_append_only();

-- ---------------------------------------------------------------------------
-- Who is an admin. A suspended admin keeps the role but loses its powers,
-- in the policies (is_admin) as in the functions (admin_actor).
CREATE OR REPLACE FUNCTION public.is_admin() RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT EXISTS (SELECT 1 FROM public.user_roles r JOIN public.public_profiles p ON p.id = r.user_id
                 WHERE r.user_id = auth.uid() AND r.role = 'admin' AND NOT p.is_suspended)
$$;

-- The admin a request acts for, or 42501. Only a signed-in request counts:
-- the service role carries no person, so it cannot act as an admin. The
-- transaction-local flag tells the direct-write audit trigger that the
-- function writes its own, richer audit row.
CREATE FUNCTION backline.admin_actor() RETURNS uuid
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE uid uuid := auth.uid();
BEGIN
  IF uid IS NULL OR current_setting('role', true) IS DISTINCT FROM 'authenticated' OR NOT public.is_admin() THEN
    RAISE EXCEPTION 'Only admins can do this' USING ERRCODE = '42501';
  END IF;
  PERFORM set_config('backline.admin_call', 'on', true);
  RETURN uid;
END $$;

-- A reason an action must carry: trimmed, at most 500 characters.
CREATE FUNCTION backline.require_reason(p_reason text) RETURNS text
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF coalesce(btrim(p_reason), '') = '' THEN
    RAISE EXCEPTION 'A reason is required' USING ERRCODE = 'P0001';
  END IF;
  RETURN left(btrim(p_reason), 500);
END $$;

-- Appends one audit row.
CREATE FUNCTION backline.audit(p_actor uuid, p_action text, p_target_type text, p_target_id text, p_reason text,
  p_before jsonb, p_after jsonb) RETURNS bigint
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  INSERT INTO public.admin_audit_log (actor_id, action, target_type, target_id, reason, before, after, ip_address)
  VALUES (p_actor, p_action, p_target_type, p_target_id, nullif(btrim(p_reason), ''), p_before, p_after,
    backline.request_ip())
  RETURNING id
$$;

-- ---------------------------------------------------------------------------
-- Admins may not take away their own powers, nor leave the platform without
-- an active admin. Checked for every signed-in caller on every path (the
-- admin functions and the direct writes 0002 allows); the operator's psql
-- session (no caller) is not limited.
CREATE FUNCTION backline.guard_admin_accounts() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := auth.uid();
  target uuid;
  was_admin boolean;
  stays_admin boolean := false;
  others int;
BEGIN
  IF uid IS NULL THEN
    RETURN CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END;
  END IF;
  IF TG_TABLE_NAME = 'user_roles' THEN
    target := OLD.user_id;
    was_admin := OLD.role = 'admin'
      AND NOT coalesce((SELECT is_suspended FROM public.public_profiles WHERE id = OLD.user_id), false);
    stays_admin := TG_OP = 'UPDATE' AND NEW.role = 'admin' AND NEW.user_id = OLD.user_id;
  ELSE
    target := OLD.id;
    was_admin := NOT OLD.is_suspended
      AND EXISTS (SELECT 1 FROM public.user_roles WHERE user_id = OLD.id AND role = 'admin');
    stays_admin := TG_OP = 'UPDATE' AND NOT NEW.is_suspended
      AND (NEW.role IS NOT DISTINCT FROM OLD.role OR NEW.role = 'admin');
  END IF;
  IF was_admin AND NOT stays_admin THEN
    IF target = uid THEN
      RAISE EXCEPTION 'Admins cannot demote or suspend themselves' USING ERRCODE = 'P0001';
    END IF;
    -- Serialise: two admins demoting each other at once must not both pass.
    PERFORM backline.lock_key('backline:active-admins');
    SELECT count(*) INTO others FROM public.user_roles r JOIN public.public_profiles p ON p.id = r.user_id
    WHERE r.role = 'admin' AND NOT p.is_suspended AND r.user_id <> target;
    IF others = 0 THEN
      RAISE EXCEPTION 'The last admin cannot be demoted or suspended' USING ERRCODE = 'P0001';
    END IF;
  END IF;
  RETURN CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END;
END $$;
CREATE TRIGGER guard_admin_accounts BEFORE UPDATE OR DELETE ON public.user_roles
  FOR EACH ROW EXECUTE FUNCTION backline.guard_admin_accounts();
CREATE TRIGGER guard_admin_accounts BEFORE UPDATE OF role, is_suspended OR DELETE ON public.public_profiles
  FOR EACH ROW EXECUTE FUNCTION backline.guard_admin_accounts();

-- ---------------------------------------------------------------------------
-- Direct admin writes (the admin policies of 0002) are audited as
-- '<table>.<op>' with the whole row before and after. An admin editing their
-- own row (their profile) is a user, not an admin action. Writes made inside
-- an admin function are skipped: the function audits the action itself.
-- TG_ARGV[0] names the column that says whose row it is.
CREATE FUNCTION backline.audit_admin_write() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := auth.uid();
  old_row jsonb := CASE WHEN TG_OP <> 'INSERT' THEN to_jsonb(OLD) END;
  new_row jsonb := CASE WHEN TG_OP <> 'DELETE' THEN to_jsonb(NEW) END;
  row_owner text := coalesce(new_row, old_row) ->> TG_ARGV[0];
  target text := coalesce(new_row, old_row) ->> TG_ARGV[1];
BEGIN
  IF uid IS NULL OR current_setting('backline.admin_call', true) = 'on' OR NOT public.is_admin() THEN
    RETURN NULL;
  END IF;
  IF row_owner = uid::text AND TG_TABLE_NAME <> 'user_roles' THEN
    RETURN NULL;
  END IF;
  PERFORM backline.audit(uid, TG_TABLE_NAME || '.' || lower(TG_OP), TG_TABLE_NAME, target,
    CASE WHEN TG_TABLE_NAME = 'public_profiles' THEN new_row ->> 'suspended_reason' END, old_row, new_row);
  RETURN NULL;
END $$;

DO $$
DECLARE
  t record;
BEGIN
  FOR t IN SELECT * FROM (VALUES
    ('public_profiles', 'UPDATE OR DELETE', 'id', 'id'),
    ('user_roles', 'INSERT OR UPDATE OR DELETE', 'user_id', 'user_id'),
    ('artist_profiles', 'UPDATE OR DELETE', 'id', 'id'),
    ('sponsor_profiles', 'UPDATE OR DELETE', 'id', 'id'),
    ('fan_profiles', 'UPDATE', 'id', 'id'),
    ('tracks', 'UPDATE OR DELETE', 'artist_id', 'id'),
    -- The parties' own answers are theirs: an admin who is neither is acting as one.
    ('sponsor_artist_invites', 'INSERT OR UPDATE OR DELETE', 'sponsor_id', 'id'),
    ('app_settings', 'INSERT OR UPDATE', 'key', 'key'),
    ('early_access_subscribers', 'DELETE', 'id', 'id')
  ) AS v(tbl, ops, owner_col, id_col) LOOP
    EXECUTE format('CREATE TRIGGER audit_admin_write AFTER %s ON public.%I FOR EACH ROW
      EXECUTE FUNCTION backline.audit_admin_write(%L, %L)', t.ops, t.tbl, t.owner_col, t.id_col);
  END LOOP;
END $$;

REVOKE ALL ON ALL FUNCTIONS IN SCHEMA backline FROM PUBLIC;
