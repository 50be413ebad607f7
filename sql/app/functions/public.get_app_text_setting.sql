CREATE OR REPLACE FUNCTION public.get_app_text_setting(setting_key text) RETURNS text
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT coalesce((SELECT value #>> '{}' FROM public.app_settings
                   WHERE key = setting_key AND (is_public OR public.is_admin())), '')
$$;

REVOKE ALL ON FUNCTION public.get_app_text_setting(text) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.get_app_text_setting(text) TO PUBLIC, anon, authenticated, service_role;
