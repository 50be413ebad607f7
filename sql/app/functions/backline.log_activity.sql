CREATE OR REPLACE FUNCTION backline.log_activity(p_actor uuid, p_action text, p_entity_type text, p_entity_id text,
  p_details jsonb DEFAULT '{}') RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  INSERT INTO public.activity_log (actor_id, action, entity_type, entity_id, details, ip_address)
  VALUES (p_actor, p_action, p_entity_type, p_entity_id, coalesce(p_details, '{}'), backline.request_ip())
$$;

REVOKE ALL ON FUNCTION backline.log_activity(uuid, text, text, text, jsonb) FROM PUBLIC, anon, authenticated, service_role;
