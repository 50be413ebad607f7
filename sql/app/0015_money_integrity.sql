-- Money integrity:
--
--   * a verification is extended once, however many payments for it
--     complete at once: the decision is taken under the profile's row lock
--     when a payment completes, and a payment that would buy a second
--     verification while one is valid (outside its renewal days) is credited
--     to the payer's wallet instead, so no paid reference goes missing;
--   * the ledger-wide invariant (all wallets sum to zero, users hold the
--     ledger's net movement into user wallets) is kept as running totals,
--     updated in the same transaction as every wallet and ledger change, so
--     the admin's check reads a few rows instead of the whole ledger; a full
--     recheck recomputes everything from the tables;
--   * the dashboards' statement, analytics and wallet history read only the
--     user's own rows at a million streams (bench/dashboards).

-- ---------------------------------------------------------------------------
-- Verification once.
--
-- 0007's guard refuses a purchase while a verification is valid, but two
-- checkouts opened before either is paid both pass it, and each completion
-- used to add a year. Nothing can be refused before the provider charges
-- (the charge happens on the provider's page), so the rule is enforced where
-- the money arrives: complete_payment locks the profile row, so completions
-- for one user run one after the other and each sees the expiry the one
-- before it set. Every paid reference is then credited exactly once: to a
-- verification (verifications.payment_id, unique below) or to the ledger
-- (transactions.reference, unique) under the top-up's reference.
CREATE UNIQUE INDEX verifications_payment_once ON public.verifications (payment_id) WHERE payment_id IS NOT NULL;

-- True while a verification is valid for more than the renewal days: no
-- purchase now. One rule for the checkout guard and the completion.
CREATE FUNCTION backline.verification_blocks_purchase(p public.public_profiles) RETURNS boolean
LANGUAGE sql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT coalesce(p.is_verified AND p.verification_expires_at
    > now() + make_interval(days => backline.setting_num('verification_renewal_days')::int), false)
$$;

CREATE OR REPLACE FUNCTION backline.guard_verification_payment() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  p public.public_profiles;
BEGIN
  IF NEW.purpose <> 'verification' THEN
    RETURN NEW;
  END IF;
  SELECT * INTO p FROM public.public_profiles WHERE id = NEW.user_id;
  IF p.role IS NULL OR p.role NOT IN ('artist', 'sponsor') THEN
    RAISE EXCEPTION 'Verification is for artists and sponsors' USING ERRCODE = 'P0001';
  END IF;
  IF backline.verification_blocks_purchase(p) THEN
    RAISE EXCEPTION 'Your verification is active until %. You can renew it in its last % days.',
      to_char(p.verification_expires_at AT TIME ZONE 'Africa/Lagos', 'FMDD Mon YYYY'),
      backline.setting_num('verification_renewal_days')::int
      USING ERRCODE = 'P0001';
  END IF;
  RETURN NEW;
END $$;

-- A successful verification payment: a year more of verification, or, when
-- one is already valid beyond its renewal days (another payment completed
-- first), the base amount into the payer's wallet as a top-up. Runs inside
-- complete_payment, which holds the payment's row lock.
CREATE FUNCTION backline.complete_verification(p public.payments) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  prof public.public_profiles;
  expires timestamptz;
  moved jsonb;
  msg text;
BEGIN
  -- Serialises every completion for this user; a concurrent one waits here
  -- and then reads the expiry the first one set.
  SELECT * INTO prof FROM public.public_profiles WHERE id = p.user_id FOR UPDATE;
  IF backline.verification_blocks_purchase(prof) THEN
    moved := public.transfer_funds(
      (SELECT id FROM public.wallets WHERE account = 'provider:' || p.provider), p.user_id, p.amount,
      'payment:' || p.provider || ':' || p.tx_ref, 'topup', NULL, NULL,
      jsonb_build_object('payment_id', p.id, 'tx_ref', p.tx_ref, 'purpose', 'verification',
        'reason', 'verification already active'));
    msg := format('Your profile is already verified until %s. ₦%s from this payment has been added to your wallet.',
      to_char(prof.verification_expires_at AT TIME ZONE 'Africa/Lagos', 'FMDD Mon YYYY'), backline.naira(p.amount));
    PERFORM backline.notify(p.user_id, 'system_update', 'Payment added to your wallet', msg,
      jsonb_build_object('amount', p.amount, 'tx_ref', p.tx_ref, 'expires_at', prof.verification_expires_at));
    RETURN jsonb_build_object('message', msg, 'expires', prof.verification_expires_at, 'moved', moved,
      'credited_to_wallet', true);
  END IF;
  expires := greatest(now(), coalesce(prof.verification_expires_at, now()))
    + make_interval(days => backline.setting_num('verification_valid_days')::int);
  UPDATE public.public_profiles SET is_verified = true, verification_expires_at = expires WHERE id = p.user_id;
  INSERT INTO public.verifications (user_id, payment_id, expires_at) VALUES (p.user_id, p.id, expires);
  msg := 'Verification successful! Your profile has been verified for 1 year.';
  PERFORM backline.notify(p.user_id, 'system_update', 'Verification successful', msg,
    jsonb_build_object('expires_at', expires, 'tx_ref', p.tx_ref));
  RETURN jsonb_build_object('message', msg, 'expires', expires, 'moved', NULL, 'credited_to_wallet', false);
END $$;

-- As in 0004, with the verification branch above.
CREATE OR REPLACE FUNCTION public.complete_payment(p_provider text, p_tx_ref text, p_user_id uuid, p_amount numeric,
  p_status text, p_raw jsonb DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  p public.payments;
  ok boolean := lower(coalesce(p_status, '')) IN ('successful', 'success', 'completed');
  moved jsonb;
  verified jsonb;
  msg text;
BEGIN
  SELECT * INTO p FROM public.payments WHERE provider = lower(p_provider) AND tx_ref = p_tx_ref FOR UPDATE;
  IF NOT FOUND THEN
    RETURN jsonb_build_object('success', false, 'message', 'Payment not found', 'already_processed', false,
      'session_mismatch', false, 'amount', NULL);
  END IF;
  IF p_user_id IS NOT NULL AND p_user_id <> p.user_id THEN
    PERFORM backline.log_activity(p_user_id, 'payment.session_mismatch', 'payment', p.tx_ref,
      jsonb_build_object('owner', p.user_id));
    RETURN jsonb_build_object('success', false,
      'message', 'Please ensure you''re logged in with the same account that started the payment.',
      'already_processed', p.status = 'successful', 'session_mismatch', true, 'amount', p.amount);
  END IF;
  IF p.status = 'successful' THEN
    RETURN jsonb_build_object('success', true, 'message', 'Payment already processed', 'already_processed', true,
      'session_mismatch', false, 'amount', p.amount, 'purpose', p.purpose,
      'credited_to_wallet', p.purpose = 'verification' AND p.transaction_id IS NOT NULL);
  END IF;
  IF NOT ok THEN
    UPDATE public.payments SET status = 'failed', provider_status = p_status, raw_verification = p_raw,
      completed_at = now() WHERE id = p.id;
    RETURN jsonb_build_object('success', false, 'message', format('Payment was not successful: %s', p_status),
      'already_processed', false, 'session_mismatch', false, 'amount', p.amount);
  END IF;
  IF p_amount IS NULL OR p_amount < p.total THEN
    UPDATE public.payments SET status = 'failed', provider_status = 'amount_mismatch', raw_verification = p_raw,
      completed_at = now() WHERE id = p.id;
    PERFORM backline.log_activity(p.user_id, 'payment.amount_mismatch', 'payment', p.tx_ref,
      jsonb_build_object('expected', p.total, 'paid', p_amount));
    RETURN jsonb_build_object('success', false,
      'message', format('Amount paid (%s) does not match the amount due (%s)', trim_scale(coalesce(p_amount, 0)), trim_scale(p.total)),
      'already_processed', false, 'session_mismatch', false, 'amount', p.amount);
  END IF;

  IF p.purpose = 'topup' THEN
    moved := public.transfer_funds(
      (SELECT id FROM public.wallets WHERE account = 'provider:' || p.provider), p.user_id, p.amount,
      'payment:' || p.provider || ':' || p.tx_ref, 'topup', NULL, NULL,
      jsonb_build_object('payment_id', p.id, 'tx_ref', p.tx_ref));
    msg := format('Wallet top-up successful! ₦%s has been added to your wallet.', backline.naira(p.amount));
  ELSE
    verified := backline.complete_verification(p);
    moved := verified -> 'moved';
    msg := verified ->> 'message';
  END IF;
  UPDATE public.payments SET status = 'successful', provider_status = p_status, raw_verification = p_raw,
    completed_at = now(), transaction_id = (moved ->> 'transaction_id')::uuid
  WHERE id = p.id;
  PERFORM backline.log_activity(p.user_id, 'payment.completed', 'payment', p.tx_ref,
    jsonb_build_object('purpose', p.purpose, 'amount', p.amount, 'provider', p.provider,
      'credited_to_wallet', coalesce((verified ->> 'credited_to_wallet')::boolean, false)));
  RETURN jsonb_build_object('success', true, 'message', msg, 'already_processed', false, 'session_mismatch', false,
    'amount', p.amount, 'purpose', p.purpose, 'verified_until', verified -> 'expires',
    'credited_to_wallet', coalesce((verified ->> 'credited_to_wallet')::boolean, false));
END $$;

-- ---------------------------------------------------------------------------
-- Ledger running totals.
--
-- Sixteen slots, each a partial sum; a backend adds to the slot of its
-- process id, so concurrent money movements rarely wait on one another. The
-- triggers are deferred to commit: a transaction takes its slot's row lock
-- only at the very end, after every wallet lock it needs, so the slot cannot
-- take part in a deadlock. Totals are exact in every snapshot: a change and
-- its totals commit together.
CREATE TABLE backline.ledger_totals (
  slot smallint PRIMARY KEY CHECK (slot BETWEEN 0 AND 15),
  wallets_total numeric NOT NULL DEFAULT 0,    -- sum of every wallet
  wallets_users numeric NOT NULL DEFAULT 0,    -- sum of users' wallets
  wallets_negative bigint NOT NULL DEFAULT 0,  -- non-external wallets below zero
  ledger_count bigint NOT NULL DEFAULT 0,      -- ledger rows
  ledger_users_net numeric NOT NULL DEFAULT 0  -- net movement into users' wallets
);
INSERT INTO backline.ledger_totals (slot) SELECT g FROM generate_series(0, 15) g;
REVOKE ALL ON backline.ledger_totals FROM PUBLIC;

CREATE FUNCTION backline.ledger_totals_slot() RETURNS smallint
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT (pg_backend_pid() % 16)::smallint
$$;

CREATE FUNCTION backline.count_wallet_change() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  d_total numeric := 0;
  d_users numeric := 0;
  d_negative int := 0;
BEGIN
  IF TG_OP <> 'INSERT' THEN
    d_total := d_total - OLD.balance;
    d_users := d_users - CASE WHEN OLD.kind = 'user' THEN OLD.balance ELSE 0 END;
    d_negative := d_negative - (OLD.kind <> 'external' AND OLD.balance < 0)::int;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    d_total := d_total + NEW.balance;
    d_users := d_users + CASE WHEN NEW.kind = 'user' THEN NEW.balance ELSE 0 END;
    d_negative := d_negative + (NEW.kind <> 'external' AND NEW.balance < 0)::int;
  END IF;
  UPDATE backline.ledger_totals SET wallets_total = wallets_total + d_total, wallets_users = wallets_users + d_users,
    wallets_negative = wallets_negative + d_negative
  WHERE slot = backline.ledger_totals_slot();
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER count_wallet_insert AFTER INSERT ON public.wallets DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (NEW.balance <> 0) EXECUTE FUNCTION backline.count_wallet_change();
CREATE CONSTRAINT TRIGGER count_wallet_update AFTER UPDATE ON public.wallets DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (OLD.balance IS DISTINCT FROM NEW.balance OR OLD.kind IS DISTINCT FROM NEW.kind)
  EXECUTE FUNCTION backline.count_wallet_change();
CREATE CONSTRAINT TRIGGER count_wallet_delete AFTER DELETE ON public.wallets DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (OLD.balance <> 0) EXECUTE FUNCTION backline.count_wallet_change();

-- A movement's effect on what users hold: + into a user's wallet, - out of one.
CREATE FUNCTION backline.users_net_of(p_from uuid, p_to uuid, p_amount numeric) RETURNS numeric
LANGUAGE sql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT p_amount * (count(*) FILTER (WHERE id = p_to) - count(*) FILTER (WHERE id = p_from))
  FROM public.wallets WHERE id IN (p_from, p_to) AND kind = 'user'
$$;

CREATE FUNCTION backline.count_ledger_change() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  d_count int := 0;
  d_net numeric := 0;
BEGIN
  IF TG_OP <> 'INSERT' THEN
    d_count := d_count - 1;
    d_net := d_net - backline.users_net_of(OLD.from_wallet, OLD.to_wallet, OLD.amount);
  END IF;
  IF TG_OP <> 'DELETE' THEN
    d_count := d_count + 1;
    d_net := d_net + backline.users_net_of(NEW.from_wallet, NEW.to_wallet, NEW.amount);
  END IF;
  UPDATE backline.ledger_totals SET ledger_count = ledger_count + d_count, ledger_users_net = ledger_users_net + d_net
  WHERE slot = backline.ledger_totals_slot();
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER count_ledger_insert AFTER INSERT ON public.transactions DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION backline.count_ledger_change();
CREATE CONSTRAINT TRIGGER count_ledger_update AFTER UPDATE ON public.transactions DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (OLD.amount IS DISTINCT FROM NEW.amount OR OLD.from_wallet IS DISTINCT FROM NEW.from_wallet
    OR OLD.to_wallet IS DISTINCT FROM NEW.to_wallet)
  EXECUTE FUNCTION backline.count_ledger_change();
CREATE CONSTRAINT TRIGGER count_ledger_delete AFTER DELETE ON public.transactions DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION backline.count_ledger_change();

-- The invariant's figures: running (summed over the slots) or recounted
-- from the tables.
CREATE TYPE backline.ledger_state AS (
  wallets_total numeric, wallets_users numeric, wallets_negative bigint, ledger_count bigint, ledger_users_net numeric
);

CREATE FUNCTION backline.ledger_state_running() RETURNS backline.ledger_state
LANGUAGE sql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT ROW(sum(wallets_total), sum(wallets_users), sum(wallets_negative)::bigint, sum(ledger_count)::bigint,
    sum(ledger_users_net))::backline.ledger_state
  FROM backline.ledger_totals
$$;

-- One pass over the wallets and one over the ledger.
CREATE FUNCTION backline.ledger_state_recount() RETURNS backline.ledger_state
LANGUAGE sql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT ROW(w.total, w.users, w.negative, l.n, l.net)::backline.ledger_state
  FROM (SELECT coalesce(sum(balance), 0) AS total, coalesce(sum(balance) FILTER (WHERE kind = 'user'), 0) AS users,
          count(*) FILTER (WHERE kind <> 'external' AND balance < 0) AS negative
        FROM public.wallets) w,
       (SELECT count(*) AS n,
          coalesce(sum(CASE WHEN tw.kind = 'user' THEN t.amount ELSE 0 END
            - CASE WHEN fw.kind = 'user' THEN t.amount ELSE 0 END), 0) AS net
        FROM public.transactions t
        JOIN public.wallets fw ON fw.id = t.from_wallet
        JOIN public.wallets tw ON tw.id = t.to_wallet) l
$$;

-- Sets the totals from the tables: after a bulk load with triggers off, or
-- a TRUNCATE. The table lock waits for transactions adding to a slot and
-- holds new ones back until this one ends, so none is counted twice or lost.
CREATE FUNCTION backline.reset_ledger_totals() RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE f backline.ledger_state;
BEGIN
  LOCK TABLE backline.ledger_totals IN EXCLUSIVE MODE;
  f := backline.ledger_state_recount();
  UPDATE backline.ledger_totals SET wallets_total = 0, wallets_users = 0, wallets_negative = 0, ledger_count = 0,
    ledger_users_net = 0 WHERE slot <> 0;
  UPDATE backline.ledger_totals SET wallets_total = f.wallets_total, wallets_users = f.wallets_users,
    wallets_negative = f.wallets_negative, ledger_count = f.ledger_count, ledger_users_net = f.ledger_users_net
  WHERE slot = 0;
END $$;

CREATE FUNCTION backline.ledger_truncated() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  PERFORM backline.reset_ledger_totals();
  RETURN NULL;
END $$;
CREATE TRIGGER ledger_totals_truncate AFTER TRUNCATE ON public.wallets
  FOR EACH STATEMENT EXECUTE FUNCTION backline.ledger_truncated();
CREATE TRIGGER ledger_totals_truncate AFTER TRUNCATE ON public.transactions
  FOR EACH STATEMENT EXECUTE FUNCTION backline.ledger_truncated();

SELECT backline.reset_ledger_totals();

-- The summary's shape (0013) from a set of figures.
CREATE FUNCTION backline.ledger_summary_of(f backline.ledger_state) RETURNS jsonb
LANGUAGE sql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT jsonb_build_object(
    'wallets', jsonb_build_object('total', f.wallets_total, 'users', f.wallets_users, 'negative', f.wallets_negative,
      -- System and external accounts only: the unique index on account.
      'accounts', (SELECT jsonb_object_agg(account, balance) FROM public.wallets WHERE account IS NOT NULL)),
    'ledger', jsonb_build_object('count', f.ledger_count, 'users_net', f.ledger_users_net),
    'checked_at', now(),
    'balanced', f.wallets_total = 0 AND f.wallets_negative = 0 AND f.wallets_users = f.ledger_users_net)
$$;

-- The admin's check on opening the transactions page: a read of the sixteen
-- slots and of the system accounts, whatever the size of the ledger. A
-- wallet changed behind the ledger's back (even by the owner) moves the
-- wallet totals and not the ledger's, so it shows as unbalanced.
CREATE OR REPLACE FUNCTION public.admin_ledger_summary() RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  PERFORM backline.admin_actor();
  RETURN backline.ledger_summary_of(backline.ledger_state_running()) || jsonb_build_object('method', 'running totals');
END $$;

-- The full recheck: everything recomputed from the tables (one pass over
-- the ledger and the wallets), compared with the running totals, plus every
-- wallet whose balance is not the net of its own ledger rows (which also
-- catches changes that cancel out across wallets, or made with triggers
-- off).
CREATE FUNCTION backline.ledger_recheck() RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  running backline.ledger_state := backline.ledger_state_running();
  actual backline.ledger_state := backline.ledger_state_recount();
  off jsonb;
  summary jsonb;
  totals_match boolean;
BEGIN
  SELECT jsonb_build_object('count', count(*), 'wallets', coalesce(jsonb_agg(jsonb_build_object(
      'id', x.id, 'account', x.account, 'user_id', x.user_id, 'balance', x.balance, 'ledger_net', x.net)
      ORDER BY x.id) FILTER (WHERE x.rn <= 20), '[]'::jsonb))
  INTO off
  FROM (SELECT w.id, w.account, w.user_id, w.balance, coalesce(m.net, 0) AS net, row_number() OVER (ORDER BY w.id) AS rn
        FROM public.wallets w
        LEFT JOIN (SELECT id, sum(d) AS net FROM (
            SELECT to_wallet AS id, amount AS d FROM public.transactions
            UNION ALL SELECT from_wallet, -amount FROM public.transactions) moves GROUP BY id) m ON m.id = w.id
        WHERE w.balance <> coalesce(m.net, 0)) x;
  totals_match := running IS NOT DISTINCT FROM actual;
  summary := backline.ledger_summary_of(actual);
  RETURN summary || jsonb_build_object('method', 'full recheck',
    'running', backline.ledger_summary_of(running) - 'checked_at',
    'totals_match', totals_match,
    'mismatched_wallets', off,
    'balanced', (summary ->> 'balanced')::boolean AND totals_match AND (off ->> 'count')::int = 0);
END $$;

CREATE FUNCTION public.admin_ledger_recheck() RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  PERFORM backline.admin_actor();
  RETURN backline.ledger_recheck();
END $$;

-- ---------------------------------------------------------------------------
-- The dashboards at a million streams (bench/dashboards).

-- The local day of a moment, inlined where it is used: with a search_path
-- of its own (0008) it ran as a function call per ledger row of the
-- sponsor's per-day chart.
CREATE OR REPLACE FUNCTION backline.lagos_day(p_at timestamptz) RETURNS date
LANGUAGE sql IMMUTABLE AS $$
  SELECT (p_at AT TIME ZONE 'Africa/Lagos')::date
$$;

-- As in 0008, but what the sponsor has paid (in all, per track, per artist)
-- comes from backline.sponsorship_spend, kept as each stream is paid (0013),
-- instead of reading the sponsor's whole payment history five times over.
CREATE OR REPLACE FUNCTION public.get_sponsor_dashboard() RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  uid uuid := backline.require_user();
  bal numeric := coalesce((SELECT balance FROM public.wallets WHERE id = uid), 0);
  per_stream numeric := backline.setting_num('stream_payment_amount');
  threshold numeric := backline.setting_num('low_balance_threshold');
  week numeric := (SELECT coalesce(sum(amount), 0) FROM public.transactions
    WHERE from_wallet = uid AND kind = 'sponsored_stream' AND created_at > now() - interval '7 days');
  spent numeric;
  paid bigint;
BEGIN
  SELECT coalesce(sum(amount), 0), coalesce(sum(streams), 0) INTO spent, paid
  FROM backline.sponsorship_spend WHERE sponsor_id = uid;
  RETURN jsonb_build_object(
    'wallet', jsonb_build_object('balance', bal, 'low', bal < threshold, 'threshold', threshold,
      'spent', spent, 'streams_paid', paid),
    'runway', jsonb_build_object('per_stream', per_stream, 'streams_left', floor(bal / per_stream),
      'spent_7d', week, 'days_left', CASE WHEN week > 0 THEN round(bal / (week / 7), 1) END),
    'tracks', (SELECT coalesce(jsonb_agg(jsonb_build_object(
        'id', t.id, 'title', t.title, 'artist_id', t.artist_id, 'artist_name', backline.person_name(t.artist_id),
        'cover_url', t.cover_url, 'streams', t.streams, 'streams_paid', coalesce(x.streams, 0), 'spent', coalesce(x.amount, 0))
        ORDER BY coalesce(x.amount, 0) DESC, t.created_at DESC), '[]'::jsonb)
      FROM public.tracks t
      LEFT JOIN backline.sponsorship_spend x ON x.sponsor_id = uid AND x.track_id = t.id
      WHERE t.sponsor_id = uid AND t.is_sponsored),
    'artists', (SELECT coalesce(jsonb_agg(jsonb_build_object('artist_id', a.artist_id,
        'artist_name', backline.person_name(a.artist_id), 'tracks', a.tracks, 'streams_paid', a.n, 'spent', a.amt)
        ORDER BY a.amt DESC), '[]'::jsonb)
      FROM (SELECT t.artist_id, count(*) AS tracks, coalesce(sum(x.streams), 0) AS n, coalesce(sum(x.amount), 0) AS amt
            FROM public.tracks t
            LEFT JOIN backline.sponsorship_spend x ON x.sponsor_id = uid AND x.track_id = t.id
            WHERE t.sponsor_id = uid AND t.is_sponsored GROUP BY t.artist_id) a),
    'invites', (SELECT coalesce(jsonb_agg(jsonb_build_object(
        'id', i.id, 'artist_id', i.artist_id, 'artist_name', backline.person_name(i.artist_id),
        'track_id', i.track_id, 'track_title', t.title, 'status', i.status, 'initiated_by', i.initiated_by,
        'pitch', i.pitch, 'created_at', i.created_at, 'responded_at', i.responded_at) ORDER BY i.created_at DESC), '[]'::jsonb)
      FROM (SELECT * FROM public.sponsor_artist_invites WHERE sponsor_id = uid ORDER BY created_at DESC LIMIT 50) i
      LEFT JOIN public.tracks t ON t.id = i.track_id));
END $$;

-- The wallet's history page (/transactions): the caller's own movements,
-- newest first, a page by offset, with the count; optionally one kind and
-- [p_from, p_to). Each side of a movement (paid from, paid to) is read
-- along its own index and the two are merged, so a page costs what the
-- user's rows cost. The same read through the table (either side, under
-- RLS, ordered by time) walked the whole ledger's newest-first index.
CREATE FUNCTION public.get_wallet_history(p_kind text DEFAULT NULL, p_from timestamptz DEFAULT NULL,
  p_to timestamptz DEFAULT NULL, p_offset integer DEFAULT 0, p_limit integer DEFAULT 20)
RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp
  SET plan_cache_mode = force_custom_plan AS $$
DECLARE
  uid uuid := backline.require_user();
  n int := least(greatest(coalesce(p_limit, 20), 1), 5000);
  skip int := least(greatest(coalesce(p_offset, 0), 0), 1000000);
  lo timestamptz := coalesce(p_from, '-infinity');
  hi timestamptz := coalesce(p_to, 'infinity');
BEGIN
  RETURN jsonb_build_object(
    'count',
      (SELECT count(*) FROM public.transactions t WHERE t.from_wallet = uid AND (p_kind IS NULL OR t.kind = p_kind)
         AND t.created_at >= lo AND t.created_at < hi)
      + (SELECT count(*) FROM public.transactions t WHERE t.to_wallet = uid AND (p_kind IS NULL OR t.kind = p_kind)
         AND t.created_at >= lo AND t.created_at < hi),
    'rows', (SELECT coalesce(jsonb_agg(jsonb_build_object('id', p.id, 'reference', p.reference, 'kind', p.kind,
        'amount', p.amount, 'from_wallet', p.from_wallet, 'to_wallet', p.to_wallet,
        'from_balance_after', p.from_balance_after, 'to_balance_after', p.to_balance_after,
        'created_at', p.created_at, 'track_id', p.track_id) ORDER BY p.created_at DESC, p.id DESC), '[]'::jsonb)
      FROM (SELECT * FROM (
          (SELECT t.* FROM public.transactions t WHERE t.from_wallet = uid AND (p_kind IS NULL OR t.kind = p_kind)
             AND t.created_at >= lo AND t.created_at < hi ORDER BY t.created_at DESC, t.id DESC LIMIT skip + n)
          UNION ALL
          (SELECT t.* FROM public.transactions t WHERE t.to_wallet = uid AND (p_kind IS NULL OR t.kind = p_kind)
             AND t.created_at >= lo AND t.created_at < hi ORDER BY t.created_at DESC, t.id DESC LIMIT skip + n)
        ) sides ORDER BY sides.created_at DESC, sides.id DESC OFFSET skip LIMIT n) p));
END $$;
REVOKE EXECUTE ON FUNCTION public.get_wallet_history(text, timestamptz, timestamptz, integer, integer) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.get_wallet_history(text, timestamptz, timestamptz, integer, integer) TO authenticated;

REVOKE EXECUTE ON FUNCTION public.admin_ledger_recheck() FROM PUBLIC, anon;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA backline FROM PUBLIC;
