-- assign_role gives a new account its role: user_roles, the role profile
-- and the welcome notification.
CREATE OR REPLACE FUNCTION backline.assign_role(p_user_id uuid, r public.app_role, display text, meta jsonb) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  INSERT INTO public.user_roles (user_id, role) VALUES (p_user_id, r) ON CONFLICT (user_id) DO NOTHING;
  IF r = 'artist' THEN
    INSERT INTO public.artist_profiles (id, name, phone, location)
    VALUES (p_user_id, coalesce(display, 'Artist'), nullif(meta ->> 'phone', ''), nullif(meta ->> 'location', ''))
    ON CONFLICT (id) DO NOTHING;
  ELSIF r = 'sponsor' THEN
    INSERT INTO public.sponsor_profiles (id, name, company_name, phone, website)
    VALUES (p_user_id, display, nullif(meta ->> 'company_name', ''), nullif(meta ->> 'phone', ''), nullif(meta ->> 'website', ''))
    ON CONFLICT (id) DO NOTHING;
  ELSE
    INSERT INTO public.fan_profiles (id, phone) VALUES (p_user_id, nullif(meta ->> 'phone', ''))
    ON CONFLICT (id) DO NOTHING;
  END IF;
  PERFORM backline.notify(p_user_id, 'welcome', 'Welcome to Backline!',
    CASE r
      WHEN 'artist' THEN 'Your artist account is ready. Upload your first track and connect with sponsors.'
      WHEN 'sponsor' THEN 'Your sponsor account is ready. Fund your wallet and start backing artists.'
      ELSE 'Your fan account is ready. Start listening and support your favourite artists.'
    END,
    jsonb_build_object('role', r));
END $$;

REVOKE ALL ON FUNCTION backline.assign_role(uuid, public.app_role, text, jsonb) FROM PUBLIC, anon, authenticated, service_role;
