-- The caller's allowance row for today, created on first use.
CREATE OR REPLACE FUNCTION backline.daily_limit(p_user_id uuid) RETURNS public.daily_stream_limits
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE r public.daily_stream_limits;
BEGIN
  INSERT INTO public.daily_stream_limits (user_id, limit_date, daily_limit)
  VALUES (p_user_id, backline.today(), backline.setting_num('daily_stream_allowance')::int)
  ON CONFLICT (user_id, limit_date) DO NOTHING;
  SELECT * INTO r FROM public.daily_stream_limits WHERE user_id = p_user_id AND limit_date = backline.today();
  RETURN r;
END $$;

REVOKE ALL ON FUNCTION backline.daily_limit(uuid) FROM PUBLIC, anon, authenticated, service_role;
