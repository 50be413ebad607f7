-- The spec's transfer-payment, called as the listener (the edge function
-- runs it with the caller's claims), for third-party clients that record the
-- stream themselves; the player settles through finish_play. The same rules
-- run (backline.settle_once): the first result for a reference is kept, the
-- same reference again returns it and moves nothing. The caller sees the
-- result cut by backline.settlement_for_caller. With p_track_id only a
-- stream of that track is paid (the spec's call names no track: the
-- artist's most recent one is).
CREATE OR REPLACE FUNCTION public.settle_sponsored_stream(p_artist_id uuid, p_sponsor_id uuid, p_reference text, p_amount numeric,
  p_track_id uuid DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := auth.uid();
  settled public.stream_settlements;
BEGIN
  IF uid IS NULL THEN
    RETURN backline.settlement_failure('Authentication required');
  END IF;
  IF NOT backline.caller_is_active() THEN
    RETURN backline.settlement_failure('User is suspended and cannot generate valid streams');
  END IF;
  IF p_artist_id IS NULL OR p_sponsor_id IS NULL THEN
    RETURN backline.settlement_failure('artist_id and sponsor_id are required');
  END IF;
  IF coalesce(btrim(p_reference), '') = '' OR length(p_reference) > 200 THEN
    RETURN backline.settlement_failure('A payment reference is required');
  END IF;
  settled := backline.settle_once(uid, p_artist_id, p_sponsor_id, p_reference, p_amount, p_track_id, NULL);
  RETURN backline.settlement_for_caller(settled.result, settled.artist_id, settled.sponsor_id);
END $$;

REVOKE ALL ON FUNCTION public.settle_sponsored_stream(uuid, uuid, text, numeric, uuid) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.settle_sponsored_stream(uuid, uuid, text, numeric, uuid) TO authenticated, service_role;
