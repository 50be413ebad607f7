-- The measured duration, from the function that read the audio. Only when
-- the audio is still the one measured (an edit in between wins).
CREATE OR REPLACE FUNCTION public.set_track_duration(p_track_id uuid, p_audio_url text, p_seconds integer) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  IF p_seconds IS NULL OR p_seconds < 1 OR p_seconds > 86400 THEN
    RAISE EXCEPTION 'duration out of range' USING ERRCODE = '22023';
  END IF;
  UPDATE public.tracks SET duration = p_seconds WHERE id = p_track_id AND audio_url = p_audio_url;
  RETURN FOUND;
END $$;

REVOKE ALL ON FUNCTION public.set_track_duration(uuid, text, integer) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.set_track_duration(uuid, text, integer) TO service_role;
