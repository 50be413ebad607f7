CREATE OR REPLACE FUNCTION backline.notify(p_user uuid, p_type text, p_title text, p_message text,
  p_data jsonb DEFAULT '{}') RETURNS uuid
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  INSERT INTO public.notifications (user_id, type, title, message, data)
  VALUES (p_user, p_type, p_title, p_message, coalesce(p_data, '{}'))
  RETURNING id
$$;

REVOKE ALL ON FUNCTION backline.notify(uuid, text, text, text, jsonb) FROM PUBLIC, anon, authenticated, service_role;
