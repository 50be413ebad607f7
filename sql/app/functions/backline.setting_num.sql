-- A numeric setting; raises when it is missing, so money code fails closed.
CREATE OR REPLACE FUNCTION backline.setting_num(p_key text) RETURNS numeric
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE v jsonb;
BEGIN
  SELECT value INTO v FROM public.app_settings WHERE key = p_key;
  IF v IS NULL OR jsonb_typeof(v) NOT IN ('number', 'string') THEN
    RAISE EXCEPTION 'setting % is missing or not a number', p_key USING ERRCODE = 'P0002';
  END IF;
  RETURN (v #>> '{}')::numeric;
END $$;

REVOKE ALL ON FUNCTION backline.setting_num(text) FROM PUBLIC, anon, authenticated, service_role;
