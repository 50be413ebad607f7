-- Undoes 0034: the tracks bucket is public again and the audio index goes.
-- The storage policy that asks backline.may_play_audio is a repeatable file's
-- and is applied again by the next up.
DROP INDEX IF EXISTS public.tracks_audio_url_idx;

DO $$
BEGIN
  IF to_regclass('storage.buckets') IS NOT NULL THEN
    UPDATE storage.buckets SET public = true WHERE id = 'tracks';
  END IF;
END $$;
