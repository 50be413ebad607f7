-- Device trust (spec section 5), recomputed from the submitted details:
-- 100, minus 50 headless, 20 cookies disabled, 30 invalid screen resolution,
-- 15 no hardware-concurrency, 40 WebDriver, 45 automation framework; 0..100.
CREATE OR REPLACE FUNCTION backline.device_trust_score(p_user_agent text, p_screen_resolution text, p_details jsonb)
RETURNS integer
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  d jsonb := coalesce(p_details, '{}');
  score int := 100;
  res text[];
BEGIN
  IF coalesce(p_user_agent, '') ~* 'headless' OR d ->> 'headless' = 'true' THEN
    score := score - 50;
  END IF;
  IF d ->> 'cookiesEnabled' = 'false' OR d ->> 'cookies_enabled' = 'false' THEN
    score := score - 20;
  END IF;
  res := regexp_match(coalesce(p_screen_resolution, ''), '^\s*(\d{1,5})\s*[xX×]\s*(\d{1,5})\s*$');
  IF res IS NULL OR res[1]::int < 100 OR res[2]::int < 100 THEN
    score := score - 30;
  END IF;
  IF NOT coalesce(jsonb_typeof(d -> 'hardwareConcurrency') = 'number' AND (d ->> 'hardwareConcurrency')::numeric > 0, false)
     AND NOT coalesce(jsonb_typeof(d -> 'hardware_concurrency') = 'number' AND (d ->> 'hardware_concurrency')::numeric > 0, false) THEN
    score := score - 15;
  END IF;
  IF d ->> 'webdriver' = 'true' THEN
    score := score - 40;
  END IF;
  IF coalesce(p_user_agent, '') ~* '(selenium|puppeteer|playwright|phantomjs|nightmare|cypress)'
     OR d ->> 'automation' = 'true' THEN
    score := score - 45;
  END IF;
  RETURN greatest(0, least(100, score));
END $$;

REVOKE ALL ON FUNCTION backline.device_trust_score(text, text, jsonb) FROM PUBLIC, anon, authenticated, service_role;
