-- Called as the listener (transfer-payment runs it with the caller's
-- claims). The first result for a reference is kept: the same reference
-- again returns it and moves nothing. Any unexpected error pays nothing.
-- The caller sees the result cut by backline.settlement_for_caller. With
-- p_track_id only a stream of that track is paid (the spec's call names no
-- track: the artist's most recent one is).
CREATE OR REPLACE FUNCTION public.settle_sponsored_stream(p_artist_id uuid, p_sponsor_id uuid, p_reference text, p_amount numeric,
  p_track_id uuid DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := auth.uid();
  prior public.stream_settlements;
  v_result jsonb;
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

  -- Claim the reference; a concurrent call with it waits here for the first.
  INSERT INTO public.stream_settlements (reference, user_id, artist_id, sponsor_id)
  VALUES (p_reference, uid, p_artist_id, p_sponsor_id)
  ON CONFLICT (reference) DO NOTHING;
  IF NOT FOUND THEN
    SELECT * INTO prior FROM public.stream_settlements WHERE reference = p_reference;
    IF prior.user_id <> uid OR prior.result IS NULL THEN
      RETURN backline.settlement_failure('Payment reference already used');
    END IF;
    RETURN backline.settlement_for_caller(prior.result, prior.artist_id, prior.sponsor_id);
  END IF;

  BEGIN
    v_result := backline.settle_stream(uid, p_artist_id, p_sponsor_id, p_reference, p_amount, p_track_id);
  EXCEPTION WHEN OTHERS THEN
    -- The subtransaction rolled back any partial work: nothing moved.
    RAISE WARNING 'settle_sponsored_stream %: %', p_reference, SQLERRM;
    v_result := backline.settlement_failure('Payment could not be processed');
  END;
  UPDATE public.stream_settlements SET result = v_result,
    success = (v_result ->> 'success')::boolean,
    stream_id = (SELECT id FROM public.streams WHERE paid_reference = p_reference)
  WHERE reference = p_reference;
  RETURN backline.settlement_for_caller(v_result, p_artist_id, p_sponsor_id);
END $$;

REVOKE ALL ON FUNCTION public.settle_sponsored_stream(uuid, uuid, text, numeric, uuid) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.settle_sponsored_stream(uuid, uuid, text, numeric, uuid) TO authenticated, service_role;
