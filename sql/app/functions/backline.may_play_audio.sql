-- Whether the caller may play (and so have storage sign) the object p_name of
-- the tracks bucket: its uploader (the artist's own folder, a track's audio
-- before and after it is released) and admins always; anyone else, visitors
-- included (the spec's preview of any track), only the audio of an active
-- track: a hidden or removed track's audio is refused as its row is. A
-- suspended account counts as a visitor (backline.active_uid). Downloads are
-- signed-in fans' (spec: offline listening), and the app asks for them only
-- then; a visitor's signed URL is what the preview plays.
CREATE OR REPLACE FUNCTION backline.may_play_audio(p_name text) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT coalesce(p_name NOT LIKE '%..%' AND (
    split_part(p_name, '/', 1) = (SELECT backline.active_uid())::text
    OR (SELECT public.is_admin())
    OR EXISTS (SELECT 1 FROM public.tracks t
               WHERE t.audio_url = '/storage/v1/object/public/tracks/' || p_name AND t.status = 'active')), false)
$$;

REVOKE ALL ON FUNCTION backline.may_play_audio(text) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION backline.may_play_audio(text) TO anon, authenticated, service_role;
