CREATE OR REPLACE FUNCTION backline.user_search_changed() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  PERFORM backline.refresh_user_search(NEW.id);
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER user_search AFTER INSERT OR UPDATE OF username, display_name, name, created_at ON public.public_profiles
  FOR EACH ROW EXECUTE FUNCTION backline.user_search_changed();

CREATE OR REPLACE TRIGGER backline_user_search AFTER UPDATE OF email ON auth.users
  FOR EACH ROW EXECUTE FUNCTION backline.user_search_changed();

REVOKE ALL ON FUNCTION backline.user_search_changed() FROM PUBLIC, anon, authenticated, service_role;
