-- Admin dashboard: cash-outs, the ledger and sponsorships.
--
-- Completing or rejecting a cash-out now needs a signed-in admin (not the
-- service role) and is audited; a rejection needs a reason. The request row
-- is locked first, so two admins acting on one request at once pay it once:
-- the second waits, then finds it no longer pending. The ledger list reads
-- every movement by keyset; the summary checks that the wallets sum to zero
-- and that what users hold equals the ledger's net movement into user
-- wallets. Manual adjustments move money through the ledger like any other
-- movement, against an external 'platform:adjustments' account, with a
-- reason. Ending a sponsorship unsponsors the track and ends the pair's
-- accepted invites for it, so no further stream is paid.

INSERT INTO public.wallets (id, account, kind) VALUES
  ('00000000-0000-0000-0000-00000000a001', 'platform:adjustments', 'external')
ON CONFLICT (id) DO NOTHING;

-- ---------------------------------------------------------------------------
-- Cash-outs.
CREATE INDEX cashout_requests_status_id_idx ON public.cashout_requests (status, created_at, id);
CREATE INDEX cashout_requests_created_idx ON public.cashout_requests (created_at DESC, id DESC);
CREATE INDEX cashout_requests_processed_idx ON public.cashout_requests (processed_at) WHERE processed_at IS NOT NULL;

CREATE FUNCTION backline.cashout_state(p_id uuid) RETURNS jsonb
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT jsonb_build_object('status', status, 'amount', amount, 'user_id', user_id, 'reason', reason,
    'processed_by', processed_by, 'processed_at', processed_at, 'settle_transaction_id', settle_transaction_id)
  FROM public.cashout_requests WHERE id = p_id
$$;

-- The held amount leaves the platform (cashout:held to cashout:paid) and the
-- artist is told.
CREATE OR REPLACE FUNCTION public.complete_cashout(p_id uuid) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  actor uuid := backline.admin_actor();
  req public.cashout_requests;
  before jsonb;
  moved jsonb;
BEGIN
  SELECT * INTO req FROM public.cashout_requests WHERE id = p_id FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'Cash-out request not found' USING ERRCODE = 'P0001';
  END IF;
  IF req.status <> 'pending' THEN
    RAISE EXCEPTION 'Cash-out request is already %', req.status USING ERRCODE = 'P0001';
  END IF;
  before := backline.cashout_state(req.id);
  moved := public.transfer_funds('00000000-0000-0000-0000-00000000c001', '00000000-0000-0000-0000-00000000c002',
    req.amount, 'cashout-paid:' || req.id, 'cashout_paid', NULL, NULL,
    jsonb_build_object('cashout_id', req.id, 'user_id', req.user_id));
  UPDATE public.cashout_requests SET status = 'completed', processed_by = actor, processed_at = now(),
    settle_transaction_id = (moved ->> 'transaction_id')::uuid
  WHERE id = req.id;
  PERFORM backline.notify(req.user_id, 'cashout_completed', 'Cash-out Completed',
    format('Your cash-out of ₦%s has been completed.', backline.naira(req.amount)),
    jsonb_build_object('amount', req.amount, 'cashout_id', req.id));
  PERFORM backline.log_activity(actor, 'cashout.completed', 'cashout', req.id::text, jsonb_build_object('amount', req.amount));
  PERFORM backline.audit(actor, 'cashout.complete', 'cashout', req.id::text, NULL, before, backline.cashout_state(req.id));
  RETURN jsonb_build_object('success', true, 'id', req.id, 'status', 'completed', 'amount', req.amount);
END $$;

-- The hold goes back to the artist's wallet, with the reason.
CREATE OR REPLACE FUNCTION public.reject_cashout(p_id uuid, p_reason text DEFAULT NULL) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  actor uuid := backline.admin_actor();
  req public.cashout_requests;
  before jsonb;
  moved jsonb;
  v_reason text;
BEGIN
  SELECT * INTO req FROM public.cashout_requests WHERE id = p_id FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'Cash-out request not found' USING ERRCODE = 'P0001';
  END IF;
  IF req.status <> 'pending' THEN
    RAISE EXCEPTION 'Cash-out request is already %', req.status USING ERRCODE = 'P0001';
  END IF;
  v_reason := backline.require_reason(p_reason);
  before := backline.cashout_state(req.id);
  moved := public.transfer_funds('00000000-0000-0000-0000-00000000c001', req.user_id, req.amount,
    'cashout-release:' || req.id, 'cashout_release', NULL, NULL, jsonb_build_object('cashout_id', req.id));
  UPDATE public.cashout_requests SET status = 'rejected', reason = v_reason, processed_by = actor,
    processed_at = now(), settle_transaction_id = (moved ->> 'transaction_id')::uuid
  WHERE id = req.id;
  PERFORM backline.notify(req.user_id, 'cashout_updated', 'Cash-out Rejected',
    format('Your cash-out request of ₦%s was rejected: %s. The amount has been returned to your wallet.',
      backline.naira(req.amount), v_reason),
    jsonb_build_object('amount', req.amount, 'cashout_id', req.id, 'status', 'rejected', 'reason', v_reason));
  PERFORM backline.log_activity(actor, 'cashout.rejected', 'cashout', req.id::text,
    jsonb_build_object('amount', req.amount, 'reason', v_reason));
  PERFORM backline.audit(actor, 'cashout.reject', 'cashout', req.id::text, v_reason, before, backline.cashout_state(req.id));
  RETURN jsonb_build_object('success', true, 'id', req.id, 'status', 'rejected', 'amount', req.amount);
END $$;

-- Cash-out requests: pending ones oldest first (the queue, cursor = the last
-- row seen, rows after it), the others newest first (rows before it).
CREATE FUNCTION public.admin_list_cashouts(p_status text DEFAULT 'pending', p_cursor_created timestamptz DEFAULT NULL,
  p_cursor_id uuid DEFAULT NULL, p_limit integer DEFAULT 50)
RETURNS TABLE (id uuid, user_id uuid, user_name text, email text, amount numeric, status text, bank_name text,
  account_number text, account_name text, reason text, wallet_balance numeric, processed_by uuid,
  processed_by_name text, processed_at timestamptz, created_at timestamptz)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp
  SET plan_cache_mode = force_custom_plan AS $$
DECLARE
  n int := backline.page_size(p_limit);
BEGIN
  PERFORM backline.admin_actor();
  IF p_status IS NOT NULL AND p_status NOT IN ('pending', 'completed', 'rejected') THEN
    RAISE EXCEPTION 'Unknown cash-out status %', p_status USING ERRCODE = 'P0001';
  END IF;
  RETURN QUERY
  WITH page AS (
    (SELECT c.* FROM public.cashout_requests c
     WHERE p_status = 'pending' AND c.status = 'pending'
       AND (p_cursor_created IS NULL OR (c.created_at, c.id) > (p_cursor_created, coalesce(p_cursor_id, '00000000-0000-0000-0000-000000000000')))
     ORDER BY c.created_at, c.id LIMIT n)
    UNION ALL
    (SELECT c.* FROM public.cashout_requests c
     WHERE p_status IS DISTINCT FROM 'pending' AND (p_status IS NULL OR c.status = p_status)
       AND (p_cursor_created IS NULL OR (c.created_at, c.id) < (p_cursor_created, coalesce(p_cursor_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff')))
     ORDER BY c.created_at DESC, c.id DESC LIMIT n)
  )
  SELECT page.id, page.user_id, backline.person_name(page.user_id), u.email::text, page.amount, page.status,
    page.bank_name, page.account_number, page.account_name, page.reason, w.balance, page.processed_by,
    CASE WHEN page.processed_by IS NOT NULL THEN backline.person_name(page.processed_by) END,
    page.processed_at, page.created_at
  FROM page
  LEFT JOIN auth.users u ON u.id = page.user_id
  LEFT JOIN public.wallets w ON w.id = page.user_id
  ORDER BY CASE WHEN p_status = 'pending' THEN page.created_at END,
    CASE WHEN p_status = 'pending' THEN page.id END,
    page.created_at DESC, page.id DESC;
END $$;

-- Per day (Lagos time) over the last p_days days: requests made, and
-- requests completed and rejected that day; plus what is pending now.
CREATE FUNCTION public.admin_cashout_totals(p_days integer DEFAULT 14) RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  days int := least(greatest(coalesce(p_days, 14), 1), 366);
  since timestamptz := (backline.today() - (days - 1)) AT TIME ZONE 'Africa/Lagos';
BEGIN
  PERFORM backline.admin_actor();
  RETURN jsonb_build_object(
    'pending', (SELECT jsonb_build_object('count', count(*), 'amount', coalesce(sum(amount), 0), 'oldest', min(created_at))
      FROM public.cashout_requests WHERE status = 'pending'),
    'days', (SELECT coalesce(jsonb_agg(jsonb_build_object('day', d.day,
        'requested_count', coalesce(r.n, 0), 'requested_amount', coalesce(r.amount, 0),
        'completed_count', coalesce(p.completed_n, 0), 'completed_amount', coalesce(p.completed_amount, 0),
        'rejected_count', coalesce(p.rejected_n, 0), 'rejected_amount', coalesce(p.rejected_amount, 0)) ORDER BY d.day DESC), '[]')
      FROM (SELECT backline.today() - i AS day FROM generate_series(0, days - 1) AS g(i)) d
      LEFT JOIN (SELECT (created_at AT TIME ZONE 'Africa/Lagos')::date AS day, count(*) AS n, sum(amount) AS amount
        FROM public.cashout_requests WHERE created_at >= since GROUP BY 1) r ON r.day = d.day
      LEFT JOIN (SELECT (processed_at AT TIME ZONE 'Africa/Lagos')::date AS day,
          count(*) FILTER (WHERE status = 'completed') AS completed_n,
          sum(amount) FILTER (WHERE status = 'completed') AS completed_amount,
          count(*) FILTER (WHERE status = 'rejected') AS rejected_n,
          sum(amount) FILTER (WHERE status = 'rejected') AS rejected_amount
        FROM public.cashout_requests WHERE processed_at >= since GROUP BY 1) p ON p.day = d.day));
END $$;

-- ---------------------------------------------------------------------------
-- The ledger. Party indexes carry the id, so a user's movements are read by
-- keyset from each side and merged.
DROP INDEX public.transactions_from_idx;
DROP INDEX public.transactions_to_idx;
CREATE INDEX transactions_from_idx ON public.transactions (from_wallet, created_at DESC, id DESC);
CREATE INDEX transactions_to_idx ON public.transactions (to_wallet, created_at DESC, id DESC);
CREATE INDEX transactions_created_idx ON public.transactions (created_at DESC, id DESC);
CREATE INDEX transactions_kind_idx ON public.transactions (kind, created_at DESC, id DESC);

CREATE FUNCTION public.admin_list_transactions(p_kind text DEFAULT NULL, p_user_id uuid DEFAULT NULL,
  p_reference text DEFAULT NULL, p_from timestamptz DEFAULT NULL, p_to timestamptz DEFAULT NULL,
  p_before_created timestamptz DEFAULT NULL, p_before_id uuid DEFAULT NULL, p_limit integer DEFAULT 50)
RETURNS TABLE (id uuid, reference text, kind text, from_wallet uuid, from_name text, to_wallet uuid, to_name text,
  amount numeric, from_balance_after numeric, to_balance_after numeric, track_id uuid, metadata jsonb,
  created_at timestamptz)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp
  SET plan_cache_mode = force_custom_plan AS $$
DECLARE
  n int := backline.page_size(p_limit);
  c_at timestamptz := coalesce(p_before_created, 'infinity');
  c_id uuid := coalesce(p_before_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff');
  lo timestamptz := coalesce(p_from, '-infinity');
  hi timestamptz := coalesce(p_to, 'infinity');
  ref text := nullif(btrim(coalesce(p_reference, '')), '');
BEGIN
  PERFORM backline.admin_actor();
  RETURN QUERY
  WITH page AS (
    -- A reference names one movement.
    (SELECT t.* FROM public.transactions t WHERE ref IS NOT NULL AND t.reference = ref
       AND (p_kind IS NULL OR t.kind = p_kind)
       AND (p_user_id IS NULL OR p_user_id IN (t.from_wallet, t.to_wallet))
       AND (t.created_at, t.id) < (c_at, c_id))
    UNION ALL
    -- One user's movements: each side along its own index, then merged.
    (SELECT t.* FROM public.transactions t
     WHERE ref IS NULL AND p_user_id IS NOT NULL AND t.from_wallet = p_user_id
       AND (p_kind IS NULL OR t.kind = p_kind) AND t.created_at >= lo AND t.created_at < hi
       AND (t.created_at, t.id) < (c_at, c_id)
     ORDER BY t.created_at DESC, t.id DESC LIMIT n)
    UNION ALL
    (SELECT t.* FROM public.transactions t
     WHERE ref IS NULL AND p_user_id IS NOT NULL AND t.to_wallet = p_user_id
       AND (p_kind IS NULL OR t.kind = p_kind) AND t.created_at >= lo AND t.created_at < hi
       AND (t.created_at, t.id) < (c_at, c_id)
     ORDER BY t.created_at DESC, t.id DESC LIMIT n)
    UNION ALL
    (SELECT t.* FROM public.transactions t
     WHERE ref IS NULL AND p_user_id IS NULL AND p_kind IS NOT NULL AND t.kind = p_kind
       AND t.created_at >= lo AND t.created_at < hi AND (t.created_at, t.id) < (c_at, c_id)
     ORDER BY t.created_at DESC, t.id DESC LIMIT n)
    UNION ALL
    (SELECT t.* FROM public.transactions t
     WHERE ref IS NULL AND p_user_id IS NULL AND p_kind IS NULL
       AND t.created_at >= lo AND t.created_at < hi AND (t.created_at, t.id) < (c_at, c_id)
     ORDER BY t.created_at DESC, t.id DESC LIMIT n)
  ), top AS (
    SELECT * FROM page ORDER BY page.created_at DESC, page.id DESC LIMIT n
  )
  -- A wallet's name: the system account's, or its owner's.
  SELECT top.id, top.reference, top.kind, top.from_wallet,
    coalesce(fw.account, backline.person_name(fw.user_id)), top.to_wallet,
    coalesce(tw.account, backline.person_name(tw.user_id)), top.amount, top.from_balance_after, top.to_balance_after,
    top.track_id, top.metadata, top.created_at
  FROM top
  JOIN public.wallets fw ON fw.id = top.from_wallet
  JOIN public.wallets tw ON tw.id = top.to_wallet
  ORDER BY top.created_at DESC, top.id DESC;
END $$;

-- The ledger-wide invariant, checked on demand: all wallets sum to zero,
-- none but external accounts is negative, and the users' wallets hold
-- exactly the ledger's net movement into user wallets. The ledger side is
-- one pass over transactions.
CREATE FUNCTION public.admin_ledger_summary() RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  accounts uuid[];
  w jsonb;
  ledger jsonb;
BEGIN
  PERFORM backline.admin_actor();
  SELECT array_agg(id) INTO accounts FROM public.wallets WHERE kind <> 'user';
  SELECT jsonb_build_object(
      'total', coalesce(sum(balance), 0),
      'users', coalesce(sum(balance) FILTER (WHERE kind = 'user'), 0),
      'negative', count(*) FILTER (WHERE kind <> 'external' AND balance < 0),
      'accounts', (SELECT jsonb_object_agg(account, balance) FROM public.wallets WHERE kind <> 'user'))
    INTO w FROM public.wallets;
  SELECT jsonb_build_object('count', count(*),
      'users_net', coalesce(sum(amount) FILTER (WHERE NOT to_wallet = ANY (accounts)), 0)
        - coalesce(sum(amount) FILTER (WHERE NOT from_wallet = ANY (accounts)), 0))
    INTO ledger FROM public.transactions;
  RETURN jsonb_build_object('wallets', w, 'ledger', ledger, 'checked_at', now(),
    'balanced', (w ->> 'total')::numeric = 0 AND (w ->> 'negative')::int = 0
      AND (w ->> 'users')::numeric = (ledger ->> 'users_net')::numeric);
END $$;

-- Credits (positive) or debits (negative) a user's wallet, with a reason,
-- through the ledger. A debit cannot overdraw the wallet.
CREATE FUNCTION public.admin_adjust_wallet(p_user_id uuid, p_amount numeric, p_reason text) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  actor uuid := backline.admin_actor();
  v_reason text := backline.require_reason(p_reason);
  adjustments uuid := '00000000-0000-0000-0000-00000000a001';
  before numeric;
  moved jsonb;
  ref text := 'adjustment:' || gen_random_uuid();
BEGIN
  IF p_amount IS NULL OR p_amount = 0 OR p_amount <> round(p_amount, 2) OR abs(p_amount) > 10000000 THEN
    RAISE EXCEPTION 'Enter a non-zero amount of at most ₦10,000,000 with at most two decimals' USING ERRCODE = 'P0001';
  END IF;
  SELECT balance INTO before FROM public.wallets WHERE id = p_user_id AND kind = 'user';
  IF before IS NULL THEN
    RAISE EXCEPTION 'Wallet not found' USING ERRCODE = 'P0001';
  END IF;
  BEGIN
    IF p_amount > 0 THEN
      moved := public.transfer_funds(adjustments, p_user_id, p_amount, ref, 'adjustment', NULL, NULL,
        jsonb_build_object('reason', v_reason, 'admin_id', actor));
    ELSE
      moved := public.transfer_funds(p_user_id, adjustments, -p_amount, ref, 'adjustment', NULL, NULL,
        jsonb_build_object('reason', v_reason, 'admin_id', actor));
    END IF;
  EXCEPTION WHEN SQLSTATE 'P0001' THEN
    RAISE EXCEPTION 'Insufficient balance. Has ₦%, cannot debit ₦%', backline.naira(before), backline.naira(-p_amount)
      USING ERRCODE = 'P0001';
  END;
  PERFORM backline.audit(actor, 'wallet.adjust', 'wallet', p_user_id::text, v_reason,
    jsonb_build_object('balance', before),
    jsonb_build_object('balance', CASE WHEN p_amount > 0 THEN moved -> 'to_balance' ELSE moved -> 'from_balance' END,
      'amount', p_amount, 'reference', ref, 'transaction_id', moved -> 'transaction_id'));
  PERFORM backline.notify(p_user_id, 'system_update', 'Wallet adjusted',
    format('Your wallet was %s ₦%s: %s', CASE WHEN p_amount > 0 THEN 'credited' ELSE 'debited' END,
      backline.naira(abs(p_amount)), v_reason), jsonb_build_object('amount', p_amount, 'reference', ref));
  RETURN jsonb_build_object('success', true, 'reference', ref, 'amount', p_amount,
    'balance', CASE WHEN p_amount > 0 THEN moved -> 'to_balance' ELSE moved -> 'from_balance' END);
END $$;

-- ---------------------------------------------------------------------------
-- Sponsorships. What a sponsor has paid per track is kept as it is paid, so
-- a list shows spend without summing the ledger per row.
CREATE TABLE backline.sponsorship_spend (
  sponsor_id uuid NOT NULL,
  track_id uuid NOT NULL,
  streams bigint NOT NULL DEFAULT 0,
  amount numeric(14, 2) NOT NULL DEFAULT 0,
  last_paid_at timestamptz,
  PRIMARY KEY (sponsor_id, track_id)
);
INSERT INTO backline.sponsorship_spend (sponsor_id, track_id, streams, amount, last_paid_at)
SELECT from_wallet, track_id, count(*), sum(amount), max(created_at) FROM public.transactions
WHERE kind = 'sponsored_stream' AND track_id IS NOT NULL GROUP BY 1, 2;

CREATE FUNCTION backline.count_sponsorship_spend() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  INSERT INTO backline.sponsorship_spend AS s (sponsor_id, track_id, streams, amount, last_paid_at)
  VALUES (NEW.from_wallet, NEW.track_id, 1, NEW.amount, NEW.created_at)
  ON CONFLICT (sponsor_id, track_id) DO UPDATE SET streams = s.streams + 1, amount = s.amount + EXCLUDED.amount,
    last_paid_at = greatest(s.last_paid_at, EXCLUDED.last_paid_at);
  RETURN NULL;
END $$;
CREATE TRIGGER count_sponsorship_spend AFTER INSERT ON public.transactions
  FOR EACH ROW WHEN (NEW.kind = 'sponsored_stream' AND NEW.track_id IS NOT NULL)
  EXECUTE FUNCTION backline.count_sponsorship_spend();

-- An admin can end an accepted sponsorship.
ALTER TABLE public.sponsor_artist_invites DROP CONSTRAINT sponsor_artist_invites_status_check;
ALTER TABLE public.sponsor_artist_invites ADD CONSTRAINT sponsor_artist_invites_status_check
  CHECK (status IN ('pending', 'accepted', 'rejected', 'ended'));
CREATE INDEX invites_created_idx ON public.sponsor_artist_invites (created_at DESC, id DESC);
CREATE INDEX invites_status_created_idx ON public.sponsor_artist_invites (status, created_at DESC, id DESC);
CREATE INDEX tracks_sponsored_created_idx ON public.tracks (created_at DESC, id DESC) WHERE is_sponsored;

-- Every invite, newest first, with the sponsor's balance and what the
-- sponsor has paid for the invite's track (or all the artist's tracks).
CREATE FUNCTION public.admin_list_invites(p_status text DEFAULT NULL, p_before_created timestamptz DEFAULT NULL,
  p_before_id uuid DEFAULT NULL, p_limit integer DEFAULT 50)
RETURNS TABLE (id uuid, artist_id uuid, artist_name text, sponsor_id uuid, sponsor_name text, track_id uuid,
  track_title text, status text, initiated_by text, pitch text, sponsor_balance numeric, spend_streams bigint,
  spend_amount numeric, created_at timestamptz, responded_at timestamptz)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp
  SET plan_cache_mode = force_custom_plan AS $$
BEGIN
  PERFORM backline.admin_actor();
  RETURN QUERY
  WITH page AS (
    SELECT i.* FROM public.sponsor_artist_invites i
    WHERE (p_status IS NULL OR i.status = p_status)
      AND (p_before_created IS NULL OR (i.created_at, i.id) < (p_before_created, coalesce(p_before_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff')))
    ORDER BY i.created_at DESC, i.id DESC
    LIMIT backline.page_size(p_limit)
  )
  SELECT page.id, page.artist_id, backline.person_name(page.artist_id), page.sponsor_id,
    backline.person_name(page.sponsor_id), page.track_id, t.title, page.status, page.initiated_by, page.pitch,
    w.balance, coalesce(sp.streams, 0)::bigint, coalesce(sp.amount, 0), page.created_at, page.responded_at
  FROM page
  LEFT JOIN public.tracks t ON t.id = page.track_id
  LEFT JOIN public.wallets w ON w.id = page.sponsor_id
  LEFT JOIN LATERAL (
    SELECT sum(s.streams) AS streams, sum(s.amount) AS amount FROM backline.sponsorship_spend s
    WHERE s.sponsor_id = page.sponsor_id
      AND (s.track_id = page.track_id OR (page.track_id IS NULL
        AND s.track_id IN (SELECT a.id FROM public.tracks a WHERE a.artist_id = page.artist_id)))) sp ON true
  ORDER BY page.created_at DESC, page.id DESC;
END $$;

-- Sponsored tracks, newest first, with the sponsor's spend and balance.
CREATE FUNCTION public.admin_list_sponsored_tracks(p_sponsor_id uuid DEFAULT NULL,
  p_before_created timestamptz DEFAULT NULL, p_before_id uuid DEFAULT NULL, p_limit integer DEFAULT 50)
RETURNS TABLE (track_id uuid, title text, status text, artist_id uuid, artist_name text, sponsor_id uuid,
  sponsor_name text, sponsor_balance numeric, paid_streams bigint, paid_amount numeric, last_paid_at timestamptz,
  streams bigint, created_at timestamptz)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp
  SET plan_cache_mode = force_custom_plan AS $$
BEGIN
  PERFORM backline.admin_actor();
  RETURN QUERY
  WITH page AS (
    SELECT t.* FROM public.tracks t
    WHERE t.is_sponsored AND (p_sponsor_id IS NULL OR t.sponsor_id = p_sponsor_id)
      AND (p_before_created IS NULL OR (t.created_at, t.id) < (p_before_created, coalesce(p_before_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff')))
    ORDER BY t.created_at DESC, t.id DESC
    LIMIT backline.page_size(p_limit)
  )
  SELECT page.id, page.title, page.status, page.artist_id, backline.person_name(page.artist_id), page.sponsor_id,
    backline.person_name(page.sponsor_id), w.balance, coalesce(sp.streams, 0), coalesce(sp.amount, 0),
    sp.last_paid_at, page.streams, page.created_at
  FROM page
  LEFT JOIN public.wallets w ON w.id = page.sponsor_id
  LEFT JOIN backline.sponsorship_spend sp ON sp.sponsor_id = page.sponsor_id AND sp.track_id = page.id
  ORDER BY page.created_at DESC, page.id DESC;
END $$;

-- Ends a track's sponsorship: the track is unsponsored, and the pair's
-- accepted invites for it (or for no track in particular) end, so the track
-- cannot be re-sponsored without a new invite. Both parties are told.
CREATE FUNCTION public.admin_end_sponsorship(p_track_id uuid, p_reason text) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  actor uuid := backline.admin_actor();
  v_reason text := backline.require_reason(p_reason);
  t public.tracks;
  ended int;
BEGIN
  SELECT * INTO t FROM public.tracks WHERE id = p_track_id FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'Track not found' USING ERRCODE = 'P0001';
  END IF;
  IF NOT t.is_sponsored OR t.sponsor_id IS NULL THEN
    RAISE EXCEPTION 'Track is not sponsored' USING ERRCODE = 'P0001';
  END IF;
  UPDATE public.tracks SET is_sponsored = false, sponsor_id = NULL WHERE id = t.id;
  UPDATE public.sponsor_artist_invites SET status = 'ended', responded_at = coalesce(responded_at, now())
  WHERE artist_id = t.artist_id AND sponsor_id = t.sponsor_id AND status = 'accepted'
    AND (track_id = t.id OR track_id IS NULL);
  GET DIAGNOSTICS ended = ROW_COUNT;
  PERFORM backline.audit(actor, 'sponsorship.end', 'track', t.id::text, v_reason,
    jsonb_build_object('is_sponsored', true, 'sponsor_id', t.sponsor_id),
    jsonb_build_object('is_sponsored', false, 'sponsor_id', NULL, 'invites_ended', ended));
  PERFORM backline.notify(t.artist_id, 'system_update', 'Sponsorship ended',
    format('The sponsorship of "%s" by %s has ended: %s', t.title, backline.person_name(t.sponsor_id), v_reason),
    jsonb_build_object('track_id', t.id, 'sponsor_id', t.sponsor_id, 'reason', v_reason));
  PERFORM backline.notify(t.sponsor_id, 'system_update', 'Sponsorship ended',
    format('Your sponsorship of "%s" has ended: %s', t.title, v_reason),
    jsonb_build_object('track_id', t.id, 'artist_id', t.artist_id, 'reason', v_reason));
  RETURN jsonb_build_object('success', true, 'track_id', t.id, 'invites_ended', ended);
END $$;

REVOKE EXECUTE ON FUNCTION
  public.admin_list_cashouts(text, timestamptz, uuid, integer),
  public.admin_cashout_totals(integer),
  public.admin_list_transactions(text, uuid, text, timestamptz, timestamptz, timestamptz, uuid, integer),
  public.admin_ledger_summary(),
  public.admin_adjust_wallet(uuid, numeric, text),
  public.admin_list_invites(text, timestamptz, uuid, integer),
  public.admin_list_sponsored_tracks(uuid, timestamptz, uuid, integer),
  public.admin_end_sponsorship(uuid, text)
FROM PUBLIC, anon;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA backline FROM PUBLIC;
REVOKE ALL ON backline.sponsorship_spend FROM PUBLIC;
