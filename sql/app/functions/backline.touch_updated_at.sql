-- Keeps updated_at current on every table that has one.
CREATE OR REPLACE FUNCTION backline.touch_updated_at() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  NEW.updated_at := now();
  RETURN NEW;
END $$;

DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['public_profiles', 'artist_profiles', 'sponsor_profiles', 'fan_profiles', 'tracks',
    'sponsor_artist_invites', 'wallets', 'daily_stream_limits', 'app_settings', 'playlists']
  LOOP
    EXECUTE format('CREATE OR REPLACE TRIGGER touch_updated_at BEFORE UPDATE ON public.%I FOR EACH ROW EXECUTE FUNCTION backline.touch_updated_at()', t);
  END LOOP;
END $$;

REVOKE ALL ON FUNCTION backline.touch_updated_at() FROM PUBLIC, anon, authenticated, service_role;
