-- A sponsored stream is settled once per reference: the first call claims
-- the reference and runs settle_stream; the same listener calling again with
-- it gets the first result, and a reference someone else used is refused. An
-- unexpected error pays nothing (the subtransaction rolls back any partial
-- work) and is marked payment_failed: the rules did not refuse the payment,
-- it failed. The row returned names the artist and sponsor the result was
-- for, which decide what a caller may see of it (settlement_for_caller).
-- settle_sponsored_stream (the spec's transfer-payment) and finish_play (the
-- player's one call) both settle through it.
CREATE OR REPLACE FUNCTION backline.settle_once(p_uid uuid, p_artist_id uuid, p_sponsor_id uuid, p_reference text,
  p_amount numeric, p_track_id uuid, p_stream_id uuid)
RETURNS public.stream_settlements
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  v_row public.stream_settlements;
  v_result jsonb;
BEGIN
  -- Claim the reference; a concurrent call with it waits here for the first.
  INSERT INTO public.stream_settlements (reference, user_id, artist_id, sponsor_id)
  VALUES (p_reference, p_uid, p_artist_id, p_sponsor_id)
  ON CONFLICT (reference) DO NOTHING;
  IF NOT FOUND THEN
    SELECT * INTO v_row FROM public.stream_settlements WHERE reference = p_reference;
    IF v_row.user_id <> p_uid OR v_row.result IS NULL THEN
      v_row.result := backline.settlement_failure('Payment reference already used');
    END IF;
    RETURN v_row;
  END IF;

  BEGIN
    v_result := backline.settle_stream(p_uid, p_artist_id, p_sponsor_id, p_reference, p_amount, p_track_id, p_stream_id);
  EXCEPTION WHEN OTHERS THEN
    RAISE WARNING 'settle %: %', p_reference, SQLERRM;
    v_result := backline.settlement_failure('Payment could not be processed') || '{"payment_failed": true}';
  END;
  UPDATE public.stream_settlements SET result = v_result,
    success = (v_result ->> 'success')::boolean,
    stream_id = (SELECT id FROM public.streams WHERE paid_reference = p_reference)
  WHERE reference = p_reference
  RETURNING * INTO v_row;
  RETURN v_row;
END $$;

REVOKE ALL ON FUNCTION backline.settle_once(uuid, uuid, uuid, text, numeric, uuid, uuid) FROM PUBLIC, anon, authenticated, service_role;
