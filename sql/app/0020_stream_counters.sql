-- The stream counters are kept by one trigger on insert, delete and change
-- of a stream (functions/backline.count_valid_streams.sql), so the spec's
-- increment_* functions only read them instead of recounting under a lock on
-- every play.
--
-- The insert-only trigger takes its new name here, so streams inserted
-- while the files are applied are still counted; then the counters are set
-- from the rows once, with new streams held back meanwhile, in case a
-- deleted track or a hand-made change left them off.
DO $$
BEGIN
  IF to_regprocedure('backline.stream_after_insert()') IS NOT NULL THEN
    ALTER FUNCTION backline.stream_after_insert() RENAME TO count_valid_streams;
  END IF;
  IF EXISTS (SELECT FROM pg_trigger WHERE tgrelid = 'public.streams'::regclass AND tgname = 'stream_after_insert') THEN
    ALTER TRIGGER stream_after_insert ON public.streams RENAME TO count_valid_streams;
  END IF;
END $$;

LOCK TABLE public.streams IN SHARE MODE;
UPDATE public.tracks t SET streams = c.n
FROM (SELECT tr.id, count(s.id) AS n FROM public.tracks tr
      LEFT JOIN public.streams s ON s.track_id = tr.id AND s.is_valid GROUP BY tr.id) c
WHERE c.id = t.id AND t.streams IS DISTINCT FROM c.n;
UPDATE public.artist_profiles a SET stream_count = c.n
FROM (SELECT ap.id, coalesce(sum(tr.streams), 0) AS n FROM public.artist_profiles ap
      LEFT JOIN public.tracks tr ON tr.artist_id = ap.id GROUP BY ap.id) c
WHERE c.id = a.id AND a.stream_count IS DISTINCT FROM c.n;
