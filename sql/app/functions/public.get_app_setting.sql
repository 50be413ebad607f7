-- Settings and public stats.
CREATE OR REPLACE FUNCTION public.get_app_setting(setting_key text) RETURNS boolean
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE v jsonb;
BEGIN
  SELECT value INTO v FROM public.app_settings WHERE key = setting_key AND (is_public OR public.is_admin());
  IF v IS NULL THEN
    RETURN false;
  END IF;
  RETURN CASE jsonb_typeof(v)
    WHEN 'boolean' THEN v::text::boolean
    WHEN 'number' THEN (v::text)::numeric <> 0
    WHEN 'string' THEN lower(v #>> '{}') IN ('true', 't', '1', 'yes', 'on')
    ELSE false END;
END $$;

REVOKE ALL ON FUNCTION public.get_app_setting(text) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.get_app_setting(text) TO PUBLIC, anon, authenticated, service_role;
