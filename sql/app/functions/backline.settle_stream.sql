-- The eligibility rules of spec section 5, in order, for the caller's most
-- recent valid, unpaid stream of the artist's track (p_track_id when given,
-- else preferring one the sponsor sponsors), then the transfer. Runs inside settle_sponsored_stream.
-- The configured amount is paid: p_amount is the client's claim and decides
-- nothing. A refusal whose text carries the sponsor's balance also gives
-- public_error, the text for callers who may not read that balance. A track
-- that is not active (hidden or removed), or whose artist is suspended, pays
-- nothing.
CREATE OR REPLACE FUNCTION backline.settle_stream(p_uid uuid, p_artist_id uuid, p_sponsor_id uuid, p_reference text,
  p_amount numeric, p_track_id uuid)
RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  amount numeric := backline.setting_num('stream_payment_amount');
  win interval := make_interval(mins => backline.setting_num('settlement_window_minutes')::int);
  dup_max int := backline.setting_num('duplicate_limit_per_ip')::int;
  dup_hours int := backline.setting_num('duplicate_window_hours')::int;
  per_hour int := backline.setting_num('velocity_per_hour')::int;
  per_day int := backline.setting_num('velocity_per_day')::int;
  s record;
  fraud jsonb;
  n int;
  sponsor_balance numeric;
  moved jsonb;
BEGIN
  -- 1. The listener must not be the artist.
  IF p_uid = p_artist_id THEN
    RETURN backline.settlement_failure('Artist cannot stream own tracks for payment');
  END IF;

  -- 2. The stream and its track. The row lock makes a stream payable once:
  -- a concurrent settlement that paid it first makes the recheck skip it.
  SELECT st.id, st.track_id, st.ip_address, t.artist_id, t.sponsor_id, t.is_sponsored, t.status INTO s
  FROM public.streams st JOIN public.tracks t ON t.id = st.track_id
  WHERE st.user_id = p_uid AND st.is_valid AND st.paid_reference IS NULL AND st.created_at > now() - win
    AND (p_track_id IS NULL OR st.track_id = p_track_id)
  ORDER BY (t.artist_id = p_artist_id) DESC, (t.sponsor_id = p_sponsor_id AND t.is_sponsored) DESC, st.created_at DESC
  LIMIT 1
  FOR UPDATE OF st;
  IF NOT FOUND THEN
    RETURN backline.settlement_failure('Track not found');
  END IF;
  IF s.artist_id <> p_artist_id THEN
    RETURN backline.settlement_failure('Artist ID mismatch');
  END IF;
  IF NOT s.is_sponsored OR s.sponsor_id IS NULL THEN
    RETURN backline.settlement_failure('Track is not sponsored');
  END IF;
  -- A track an admin hid or removed earns nothing, even for a stream made
  -- before it was hidden.
  IF s.status <> 'active' THEN
    RETURN backline.settlement_failure('Track is not available');
  END IF;
  -- A suspended artist's tracks stay playable but earn nothing, and the
  -- sponsor pays nothing for them. The share lock orders this check with
  -- admin_suspend_user's row lock: a suspension either commits first and is
  -- seen here, or waits for this payment.
  IF (SELECT is_suspended FROM public.public_profiles WHERE id = s.artist_id FOR SHARE) THEN
    RETURN backline.settlement_failure('Artist is suspended');
  END IF;

  -- 3. Fraud: a check that cannot run pays nothing.
  BEGIN
    fraud := backline.assess_fraud(p_uid, s.track_id, backline.latest_fingerprint(p_uid), s.ip_address);
  EXCEPTION WHEN OTHERS THEN
    RETURN backline.settlement_failure('Fraud detection system error');
  END;
  IF fraud IS NULL THEN
    RETURN backline.settlement_failure('Fraud detection system error');
  END IF;
  IF fraud ->> 'recommendation' = 'block' THEN
    RETURN backline.settlement_failure(format('Stream blocked due to %s fraud risk: %s', fraud ->> 'risk_level',
      array_to_string(ARRAY(SELECT jsonb_array_elements_text(fraud -> 'fraud_reasons')), ', ')));
  END IF;

  -- 4. Duplicates: per IP, or per user when the address is unknown.
  IF s.ip_address IS NOT NULL THEN
    SELECT count(*) INTO n FROM public.streams
    WHERE track_id = s.track_id AND ip_address = s.ip_address AND is_valid
      AND created_at > now() - make_interval(hours => dup_hours);
  ELSE
    SELECT count(*) INTO n FROM public.streams
    WHERE track_id = s.track_id AND user_id = p_uid AND is_valid
      AND created_at > now() - make_interval(hours => dup_hours);
  END IF;
  IF n > dup_max THEN
    RETURN backline.settlement_failure(format(
      'This track has been streamed %s times from your location in %s hours (max: %s)', n, dup_hours, dup_max));
  END IF;

  -- 5. Velocity.
  SELECT count(*) INTO n FROM public.streams
  WHERE user_id = p_uid AND is_valid AND created_at > now() - interval '1 hour';
  IF n > per_hour THEN
    RETURN backline.settlement_failure(format('Too many streams (%s) in the last hour. Maximum allowed: %s/hour', n, per_hour));
  END IF;
  SELECT count(*) INTO n FROM public.streams
  WHERE user_id = p_uid AND is_valid AND created_at > now() - interval '24 hours';
  IF n > per_day THEN
    RETURN backline.settlement_failure(format('Too many streams (%s) in the last 24 hours. Maximum allowed: %s/day', n, per_day));
  END IF;

  -- 6. The relationship: this sponsor sponsors this track (an accepted invite
  -- for another track does not make someone else's sponsorship payable).
  IF s.sponsor_id <> p_sponsor_id OR NOT public.check_active_sponsorship(p_artist_id, p_sponsor_id) THEN
    RETURN backline.settlement_failure('No active sponsorship relationship found');
  END IF;

  -- 7. The sponsor's balance, read under the same locks transfer_funds takes
  -- (reference first, then both wallets by id), so the check holds.
  PERFORM backline.lock_key('ref:' || p_reference);
  PERFORM 1 FROM public.wallets WHERE id IN (p_artist_id, p_sponsor_id) ORDER BY id FOR UPDATE;
  SELECT balance INTO sponsor_balance FROM public.wallets WHERE id = p_sponsor_id AND kind = 'user';
  IF sponsor_balance IS NULL THEN
    RETURN backline.settlement_failure('Cannot verify sponsor wallet');
  END IF;
  IF sponsor_balance < amount THEN
    RETURN backline.settlement_failure(format('Insufficient sponsor balance. Has %s, needs %s',
      trim_scale(sponsor_balance), trim_scale(amount))) || '{"public_error": "Insufficient sponsor balance"}';
  END IF;

  moved := public.transfer_funds(p_sponsor_id, p_artist_id, amount, p_reference, 'sponsored_stream', s.id, s.track_id,
    jsonb_build_object('listener_id', p_uid));
  UPDATE public.streams SET paid_reference = p_reference WHERE id = s.id;
  PERFORM backline.log_activity(p_uid, 'payment.sponsored_stream', 'stream', s.id::text,
    jsonb_build_object('reference', p_reference, 'amount', amount, 'artist_id', p_artist_id, 'sponsor_id', p_sponsor_id));
  RETURN jsonb_build_object('success', true, 'error', NULL, 'transaction', jsonb_build_object(
    'amount', amount, 'artist_balance', moved -> 'to_balance', 'sponsor_balance', moved -> 'from_balance'));
END $$;

REVOKE ALL ON FUNCTION backline.settle_stream(uuid, uuid, uuid, text, numeric, uuid) FROM PUBLIC, anon, authenticated, service_role;
