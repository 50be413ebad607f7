-- Direct admin writes (the admin policies of 0002) are audited as
-- '<table>.<op>' with the whole row before and after. An admin editing their
-- own row (their profile) is a user, not an admin action. Writes made inside
-- an admin function are skipped: the function audits the action itself.
-- TG_ARGV[0] names the column that says whose row it is.
CREATE OR REPLACE FUNCTION backline.audit_admin_write() RETURNS trigger
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
    EXECUTE format('CREATE OR REPLACE TRIGGER audit_admin_write AFTER %s ON public.%I FOR EACH ROW
      EXECUTE FUNCTION backline.audit_admin_write(%L, %L)', t.ops, t.tbl, t.owner_col, t.id_col);
  END LOOP;
END $$;

REVOKE ALL ON FUNCTION backline.audit_admin_write() FROM PUBLIC, anon, authenticated, service_role;
