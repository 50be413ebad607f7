-- Track audio is private: storage serves it only through signed URLs, and it
-- signs one only when the storage.objects SELECT policy lets the caller read
-- the object (backline.may_play_audio, in policies/storage.objects.sql). The
-- public URL of a track's audio stays what the row keeps (it names the
-- object) but no longer serves it. The index finds a track by its audio for
-- that policy. Skipped for the bucket when the storage schema is absent.
CREATE INDEX IF NOT EXISTS tracks_audio_url_idx ON public.tracks (audio_url) WHERE audio_url IS NOT NULL;

DO $$
BEGIN
  IF to_regclass('storage.buckets') IS NULL THEN
    RAISE NOTICE 'storage schema not present: tracks bucket left as it is';
    RETURN;
  END IF;
  UPDATE storage.buckets SET public = false WHERE id = 'tracks';
END $$;
