-- Sign-up: one supabase.auth.signUp call creates everything a user needs: a
-- public profile, a role, the role profile, an NGN wallet and a welcome
-- notification. The role comes from the sign-up metadata, but only fan,
-- artist or sponsor: admin is never taken from metadata. A sign-up through
-- an external provider (whose metadata names no role) starts without one:
-- its profile and wallet exist, user_roles and the role profile wait for
-- choose_signup_role.
CREATE OR REPLACE FUNCTION backline.handle_new_user() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  meta jsonb := coalesce(NEW.raw_user_meta_data, '{}');
  wished text := lower(coalesce(meta ->> 'role', ''));
  -- An external provider's sign-up without a role in its metadata.
  pending boolean := coalesce(NEW.raw_app_meta_data ->> 'provider', 'email') NOT IN ('email', 'phone') AND NOT meta ? 'role';
  r public.app_role := CASE WHEN wished IN ('fan', 'artist', 'sponsor') THEN wished::public.app_role ELSE 'fan' END;
  display text := nullif(btrim(coalesce(meta ->> 'display_name', meta ->> 'full_name', meta ->> 'name', '')), '');
  uname text;
BEGIN
  IF pending THEN
    r := NULL;
  END IF;
  IF display IS NULL THEN
    display := nullif(split_part(coalesce(NEW.email, ''), '@', 1), '');
  END IF;
  uname := backline.free_username(coalesce(nullif(meta ->> 'username', ''), display, split_part(coalesce(NEW.email, ''), '@', 1)));

  INSERT INTO public.public_profiles (id, display_name, username, role, name, avatar_url)
  VALUES (NEW.id, display, uname, r, coalesce(nullif(meta ->> 'name', ''), display), nullif(meta ->> 'avatar_url', ''))
  ON CONFLICT (id) DO NOTHING;
  INSERT INTO public.wallets (id, user_id, kind) VALUES (NEW.id, NEW.id, 'user') ON CONFLICT DO NOTHING;
  PERFORM backline.log_activity(NEW.id, 'user.signup', 'user', NEW.id::text, jsonb_build_object('role', r));
  IF pending THEN
    RETURN NEW;
  END IF;
  PERFORM backline.assign_role(NEW.id, r, display, meta);
  RETURN NEW;
END $$;

CREATE OR REPLACE TRIGGER on_auth_user_created AFTER INSERT ON auth.users
  FOR EACH ROW EXECUTE FUNCTION backline.handle_new_user();

REVOKE ALL ON FUNCTION backline.handle_new_user() FROM PUBLIC, anon, authenticated, service_role;
