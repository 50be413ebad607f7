-- Appends one audit row.
CREATE OR REPLACE FUNCTION backline.audit(p_actor uuid, p_action text, p_target_type text, p_target_id text, p_reason text,
  p_before jsonb, p_after jsonb) RETURNS bigint
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  INSERT INTO public.admin_audit_log (actor_id, action, target_type, target_id, reason, before, after, ip_address)
  VALUES (p_actor, p_action, p_target_type, p_target_id, nullif(btrim(p_reason), ''), p_before, p_after,
    backline.request_ip())
  RETURNING id
$$;

REVOKE ALL ON FUNCTION backline.audit(uuid, text, text, text, text, jsonb, jsonb) FROM PUBLIC, anon, authenticated, service_role;
