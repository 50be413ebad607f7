-- Settlement takes the track a payment is for (p_track_id, optional, so the
-- spec's four-argument call keeps working): the old signatures go here and
-- functions/ defines the new ones. Between this migration and the files no
-- settlement runs, so nothing can be paid twice or wrongly meanwhile.
DROP FUNCTION IF EXISTS public.settle_sponsored_stream(uuid, uuid, text, numeric);
DROP FUNCTION IF EXISTS backline.settle_stream(uuid, uuid, uuid, text, numeric);
