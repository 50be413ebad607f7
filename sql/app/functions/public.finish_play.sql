-- The player's one call when a play reaches 30 s (start_play opened it): in
-- one transaction it records the play's stream (the stream trigger decides
-- whether it counts, in the spec's words, and the counters follow), and for a
-- counted stream of a sponsored track checks the payment's eligibility in the
-- spec's order and pays through the ledger (backline.settle_once, the rules
-- transfer-payment runs). The answer is the outcome:
--
--   outcome        counted | paid | not_eligible | payment_failed | not_counted | limit_reached
--   reason         why it was not counted, not eligible, or not paid (the spec's words; the
--                  sponsor's balance only for the sponsor and admins)
--   transaction    {amount, artist_balance, sponsor_balance} when paid, balances as
--                  settlement_for_caller shows them
--   play_id, stream_id, track_id, sponsored
--
-- A play keeps its outcome: finishing it again answers the same and records
-- and pays nothing more. p_duration is what the player measured; the server's
-- clock caps it. Only the play's listener may finish it.
CREATE OR REPLACE FUNCTION public.finish_play(p_play_id uuid, p_duration integer DEFAULT NULL) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := auth.uid();
  ps public.play_sessions;
  st public.streams;
  t public.tracks;
  settled public.stream_settlements;
  result jsonb;
  v_out jsonb;
BEGIN
  IF uid IS NULL THEN
    RAISE EXCEPTION 'not signed in' USING ERRCODE = '42501';
  END IF;
  PERFORM backline.require_active('User is suspended and cannot generate valid streams');
  -- start_play's and the stream trigger's lock first, then the play: two
  -- calls for one play run one after the other, and the second reads the
  -- first one's outcome.
  PERFORM backline.lock_key('user:' || uid);
  SELECT * INTO ps FROM public.play_sessions WHERE id = p_play_id AND user_id = uid FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'Play not found' USING ERRCODE = 'P0002';
  END IF;
  IF ps.outcome IS NOT NULL THEN
    RETURN ps.outcome;
  END IF;

  IF ps.stream_id IS NULL THEN
    -- The app's insert, naming the play: the trigger decides every column.
    INSERT INTO public.streams (track_id, user_id, duration, is_valid, play_session_id)
    VALUES (ps.track_id, uid, p_duration, true, ps.id)
    RETURNING * INTO st;
  ELSE
    -- A client recorded the stream itself; the play is settled from it.
    SELECT * INTO st FROM public.streams WHERE id = ps.stream_id;
  END IF;
  SELECT * INTO t FROM public.tracks WHERE id = ps.track_id;
  v_out := jsonb_build_object('play_id', ps.id, 'stream_id', st.id, 'track_id', ps.track_id,
    'sponsored', coalesce(t.is_sponsored AND t.sponsor_id IS NOT NULL, false), 'reason', NULL, 'transaction', NULL);

  IF st.id IS NULL OR NOT st.is_valid THEN
    v_out := v_out || jsonb_build_object(
      'outcome', CASE WHEN st.invalid_reason = 'Daily stream limit reached!' THEN 'limit_reached' ELSE 'not_counted' END,
      'reason', coalesce(st.invalid_reason, 'Stream not valid (no play of this track was started)'));
  ELSIF NOT (v_out ->> 'sponsored')::boolean THEN
    v_out := v_out || '{"outcome": "counted"}';
  ELSIF st.paid_reference IS NOT NULL THEN
    -- Paid already (transfer-payment named this stream's track).
    v_out := v_out || jsonb_build_object('outcome', 'paid', 'transaction', jsonb_build_object(
      'amount', (SELECT amount FROM public.transactions WHERE stream_id = st.id), 'artist_balance', NULL, 'sponsor_balance', NULL));
  ELSE
    settled := backline.settle_once(uid, t.artist_id, t.sponsor_id, 'stream-' || ps.id, NULL, t.id, st.id);
    result := backline.settlement_for_caller(settled.result, settled.artist_id, settled.sponsor_id);
    v_out := v_out || CASE
      WHEN (result ->> 'success')::boolean THEN jsonb_build_object('outcome', 'paid', 'transaction', result -> 'transaction')
      WHEN (settled.result ->> 'payment_failed')::boolean THEN jsonb_build_object('outcome', 'payment_failed', 'reason', result ->> 'error')
      ELSE jsonb_build_object('outcome', 'not_eligible', 'reason', result ->> 'error') END;
  END IF;

  UPDATE public.play_sessions SET outcome = v_out, closed_at = coalesce(closed_at, now()) WHERE id = ps.id;
  RETURN v_out;
END $$;

REVOKE ALL ON FUNCTION public.finish_play(uuid, integer) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.finish_play(uuid, integer) TO authenticated, service_role;
