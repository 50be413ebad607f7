-- Sign-up through an external provider (Google, Apple, …): the role is
-- chosen after the provider round trip, on the role chooser.
--
-- An email sign-up names its role in the metadata of signUp; a provider
-- sign-up cannot (the provider's profile is all the metadata there is), so
-- it used to become a fan without being asked. Now such an account starts
-- without a role: its public profile and wallet exist, user_roles and the
-- role profile wait for choose_signup_role, which the account may call
-- once. Accounts that have a role (every email, phone and anonymous
-- sign-up) cannot use it to change theirs.

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

-- assign_role gives a new account its role: user_roles, the role profile
-- and the welcome notification.
CREATE FUNCTION backline.assign_role(p_user_id uuid, r public.app_role, display text, meta jsonb) RETURNS void
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

-- choose_signup_role: the role chooser's answer for an account that has no
-- role yet. Once only; admin is never a choice.
CREATE FUNCTION public.choose_signup_role(p_role public.app_role) RETURNS public.app_role
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := auth.uid();
  display text;
BEGIN
  IF uid IS NULL THEN
    RAISE EXCEPTION 'Sign in to choose a role' USING ERRCODE = '42501';
  END IF;
  IF p_role IS NULL OR p_role NOT IN ('fan', 'artist', 'sponsor') THEN
    RAISE EXCEPTION 'Role must be fan, artist or sponsor' USING ERRCODE = '22023';
  END IF;
  -- Locked, so two choices racing cannot both pass the check.
  SELECT display_name INTO display FROM public.public_profiles WHERE id = uid FOR UPDATE;
  IF EXISTS (SELECT 1 FROM public.user_roles WHERE user_id = uid) THEN
    RAISE EXCEPTION 'Your account already has a role' USING ERRCODE = '42501';
  END IF;
  UPDATE public.public_profiles SET role = p_role WHERE id = uid;
  PERFORM backline.assign_role(uid, p_role, display, '{}');
  PERFORM backline.log_activity(uid, 'user.choose_role', 'user', uid::text, jsonb_build_object('role', p_role));
  RETURN p_role;
END $$;

REVOKE EXECUTE ON FUNCTION public.choose_signup_role(public.app_role) FROM PUBLIC, anon;
REVOKE ALL ON FUNCTION backline.assign_role(uuid, public.app_role, text, jsonb) FROM PUBLIC;
