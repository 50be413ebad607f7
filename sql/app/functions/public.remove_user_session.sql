CREATE OR REPLACE FUNCTION public.remove_user_session(p_session_id text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  IF auth.uid() IS NULL THEN
    RAISE EXCEPTION 'not signed in' USING ERRCODE = '42501';
  END IF;
  DELETE FROM public.user_sessions WHERE user_id = auth.uid() AND session_id = p_session_id;
END $$;

REVOKE ALL ON FUNCTION public.remove_user_session(text) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.remove_user_session(text) TO authenticated, service_role;
