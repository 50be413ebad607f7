-- How long a play was listened to: the stream is recorded at 30 s with that
-- listening as its duration, and the listener often goes on. The player
-- reports the whole listen (functions/public.record_listen.sql) when a play
-- pauses or ends; the server's clock caps it. NULL: never reported.
ALTER TABLE public.play_sessions ADD COLUMN listened_seconds integer
  CONSTRAINT play_sessions_listened_seconds_check CHECK (listened_seconds >= 0);
