-- One stream, one round trip: the player calls start_play when a track starts
-- and finish_play (functions/public.finish_play.sql) at 30 s, which records
-- the stream, checks the sponsored payment's eligibility and pays in one
-- transaction. A play keeps its outcome, so finishing it again answers the
-- same and pays nothing more.
ALTER TABLE public.play_sessions ADD COLUMN outcome jsonb;

-- start_play takes the device the play comes from (optional, so the
-- one-argument call keeps working), and settlement can be asked for one
-- stream: the earlier signatures go here and functions/ defines the new ones.
DROP FUNCTION IF EXISTS public.start_play(uuid);
DROP FUNCTION IF EXISTS backline.settle_stream(uuid, uuid, uuid, text, numeric, uuid);
