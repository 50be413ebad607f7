-- Backline schema: the entities of the product spec (section 3) plus what the
-- product needs behind them (money ledger, payments, verifications, play
-- sessions, activity log) and the settings table holding the business
-- constants (section 9).
--
-- Grants are in 0002. Internal helpers live in schema "backline", which the
-- REST layer does not expose; public holds only what callers may reach.
--
-- Its functions (with their triggers) and policies moved to functions/ and
-- policies/, one file each. A database that applied it before keeps its record:
-- replaces: 6070d76c8e8a0d00d1da0ecc6dabe42ebd3dcd7dc3e603fa83367a6ec8d212aa

CREATE SCHEMA IF NOT EXISTS backline;
REVOKE ALL ON SCHEMA backline FROM PUBLIC;

DO $$ BEGIN
  CREATE TYPE public.app_role AS ENUM ('fan', 'artist', 'sponsor', 'admin');
EXCEPTION WHEN duplicate_object THEN NULL; END $$;

-- ---------------------------------------------------------------------------
-- Settings: one row per constant, so an operator changes them without a deploy.
-- value is jsonb: numbers, booleans and strings keep their JSON type.
CREATE TABLE public.app_settings (
  key text PRIMARY KEY,
  value jsonb NOT NULL,
  description text NOT NULL DEFAULT '',
  -- Public settings are readable by visitors (coming-soon mode, countdown).
  is_public boolean NOT NULL DEFAULT false,
  updated_at timestamptz NOT NULL DEFAULT now()
);

INSERT INTO public.app_settings (key, value, description, is_public) VALUES
  ('stream_payment_amount', '50', 'Naira moved from sponsor to artist per valid sponsored stream', true),
  ('sponsor_payment_per_listen', '100', 'Landing-copy figure a sponsor pays per complete listen', true),
  ('min_stream_seconds', '30', 'Minimum server-measured listening time for a valid stream', true),
  ('play_clock_grace_seconds', '2', 'Allowance for network delay between the player''s clock and the server''s', false),
  ('preview_seconds', '10', 'Visitor preview length', true),
  ('duplicate_limit_per_ip', '3', 'Valid streams of one track from one IP per window', true),
  ('duplicate_window_hours', '24', 'Window of the duplicate limit', true),
  ('velocity_per_hour', '25', 'Valid streams per user per hour', true),
  ('velocity_per_day', '200', 'Valid streams per user per 24 hours', true),
  ('device_trust_suspicious_below', '60', 'Device trust score under which a device is suspicious', true),
  ('verification_fee', '60000', 'Naira price of the paid verification badge', true),
  ('verification_valid_days', '365', 'Days a paid verification lasts', true),
  ('min_cashout', '1000', 'Minimum naira amount of a cash-out request', true),
  ('low_balance_threshold', '100', 'Naira under which a wallet is shown as low', true),
  ('checkout_vat_rate', '0.075', 'VAT rate applied to the checkout base amount', true),
  ('checkout_processing_fee', '1000', 'Flat naira processing fee added at checkout', true),
  ('daily_stream_allowance', '100', 'Streams a fan may make per day', true),
  ('settlement_window_minutes', '10', 'How old a stream may be when its sponsor payment is requested', false),
  ('online_window_seconds', '180', 'A session seen this recently counts as online', false),
  ('min_topup', '100', 'Minimum naira amount of a wallet top-up', true),
  ('max_topup', '5000000', 'Maximum naira amount of a wallet top-up', true),
  ('coming_soon_enabled', 'false', 'Pre-launch mode: visitors see the waitlist page', true),
  ('countdown_target_date', '""', 'Launch date shown by the countdown (ISO 8601)', true)
ON CONFLICT (key) DO NOTHING;

-- ---------------------------------------------------------------------------
-- People.
CREATE TABLE public.public_profiles (
  id uuid PRIMARY KEY REFERENCES auth.users (id) ON DELETE CASCADE,
  display_name text,
  username text,
  avatar_url text,
  bio text,
  location text,
  website text,
  role public.app_role,
  name text,
  is_verified boolean NOT NULL DEFAULT false,
  verification_expires_at timestamptz,
  is_suspended boolean NOT NULL DEFAULT false,
  suspended_reason text,
  suspended_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT public_profiles_username_format CHECK (username IS NULL OR username ~ '^[a-z0-9_.]{3,30}$')
);
CREATE UNIQUE INDEX public_profiles_username_key ON public.public_profiles (lower(username));
CREATE INDEX public_profiles_role_idx ON public.public_profiles (role);
CREATE INDEX public_profiles_verification_expiry_idx ON public.public_profiles (verification_expires_at) WHERE is_verified;

CREATE TABLE public.user_roles (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL UNIQUE REFERENCES auth.users (id) ON DELETE CASCADE,
  role public.app_role NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX user_roles_role_idx ON public.user_roles (role);

CREATE TABLE public.artist_profiles (
  id uuid PRIMARY KEY REFERENCES public.public_profiles (id) ON DELETE CASCADE,
  name text NOT NULL DEFAULT 'Artist',
  phone text,
  bio text,
  track_count integer NOT NULL DEFAULT 0,
  stream_count bigint NOT NULL DEFAULT 0,
  avatar_url text,
  genres text[] NOT NULL DEFAULT '{}',
  kyc_status text NOT NULL DEFAULT 'none' CHECK (kyc_status IN ('none', 'pending', 'approved', 'rejected')),
  kyc_expiry_date timestamptz,
  location text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE public.sponsor_profiles (
  id uuid PRIMARY KEY REFERENCES public.public_profiles (id) ON DELETE CASCADE,
  name text,
  avatar_url text,
  bio text,
  company_name text,
  website text,
  phone text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE public.fan_profiles (
  id uuid PRIMARY KEY REFERENCES public.public_profiles (id) ON DELETE CASCADE,
  phone text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- ---------------------------------------------------------------------------
-- Music.
CREATE TABLE public.tracks (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  title text NOT NULL CHECK (length(btrim(title)) BETWEEN 1 AND 200),
  artist_id uuid NOT NULL REFERENCES public.artist_profiles (id) ON DELETE CASCADE,
  sponsor_id uuid REFERENCES public.sponsor_profiles (id) ON DELETE SET NULL,
  is_sponsored boolean NOT NULL DEFAULT false,
  streams bigint NOT NULL DEFAULT 0,
  -- Storage paths such as /storage/v1/object/public/tracks/<file>, or URLs.
  cover_url text,
  audio_url text,
  duration integer CHECK (duration IS NULL OR duration >= 0), -- seconds
  release_date date,
  description text,
  genre text,
  is_explicit boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- A sponsored track names its sponsor.
  CONSTRAINT tracks_sponsored_has_sponsor CHECK (NOT is_sponsored OR sponsor_id IS NOT NULL)
);
CREATE INDEX tracks_artist_idx ON public.tracks (artist_id, created_at DESC);
CREATE INDEX tracks_sponsor_idx ON public.tracks (sponsor_id, created_at DESC) WHERE sponsor_id IS NOT NULL;
CREATE INDEX tracks_created_idx ON public.tracks (created_at DESC);
CREATE INDEX tracks_streams_idx ON public.tracks (streams DESC);

-- A play session starts when the player starts a track (start_play); the
-- server measures listening time from it, so a client cannot claim 30 s.
CREATE TABLE public.play_sessions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  track_id uuid NOT NULL REFERENCES public.tracks (id) ON DELETE CASCADE,
  started_at timestamptz NOT NULL DEFAULT now(),
  ip_address text,
  -- Set when another play starts or a stream is recorded from this one.
  closed_at timestamptz,
  stream_id uuid,
  -- The daily allowance is consumed once per play (consume_stream or the stream).
  allowance_consumed boolean NOT NULL DEFAULT false
);
CREATE INDEX play_sessions_open_idx ON public.play_sessions (user_id, track_id, started_at DESC) WHERE closed_at IS NULL;

CREATE TABLE public.streams (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  track_id uuid NOT NULL REFERENCES public.tracks (id) ON DELETE CASCADE,
  user_id uuid REFERENCES auth.users (id) ON DELETE SET NULL,
  duration integer, -- seconds, capped by the server-measured play time
  is_valid boolean NOT NULL DEFAULT false,
  ip_address text, -- backline.ip_key of the caller's address, set by the server
  created_at timestamptz NOT NULL DEFAULT now(),
  play_session_id uuid REFERENCES public.play_sessions (id) ON DELETE SET NULL,
  -- Why the server did not count the stream; null for a valid stream.
  invalid_reason text,
  -- Set once, when the sponsor payment for this stream is made.
  paid_reference text UNIQUE
);
CREATE INDEX streams_track_ip_idx ON public.streams (track_id, ip_address, created_at DESC) WHERE is_valid;
CREATE INDEX streams_user_idx ON public.streams (user_id, created_at DESC);
CREATE INDEX streams_valid_user_idx ON public.streams (user_id, created_at DESC) WHERE is_valid;
CREATE INDEX streams_valid_track_idx ON public.streams (track_id) WHERE is_valid;
-- The fraud check counts accounts per address.
CREATE INDEX streams_valid_ip_idx ON public.streams (ip_address, created_at DESC) WHERE is_valid;

CREATE TABLE public.favorites (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  track_id uuid NOT NULL REFERENCES public.tracks (id) ON DELETE CASCADE,
  user_id uuid NOT NULL DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (track_id, user_id)
);
CREATE INDEX favorites_user_idx ON public.favorites (user_id, created_at DESC);

-- ---------------------------------------------------------------------------
-- Sponsorship. An invite is started by one party and answered by the other:
-- a sponsor invites an artist (sponsor_invite notification to the artist),
-- or an artist pitches a track to a sponsor (artist_invite to the sponsor).
CREATE TABLE public.sponsor_artist_invites (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  artist_id uuid NOT NULL REFERENCES public.artist_profiles (id) ON DELETE CASCADE,
  sponsor_id uuid NOT NULL REFERENCES public.sponsor_profiles (id) ON DELETE CASCADE,
  track_id uuid REFERENCES public.tracks (id) ON DELETE SET NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'rejected')),
  initiated_by text NOT NULL DEFAULT 'sponsor' CHECK (initiated_by IN ('sponsor', 'artist')),
  pitch text,
  created_at timestamptz NOT NULL DEFAULT now(),
  responded_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX invites_artist_idx ON public.sponsor_artist_invites (artist_id, sponsor_id, status);
CREATE INDEX invites_sponsor_idx ON public.sponsor_artist_invites (sponsor_id, status);
-- One open invite per pair and track.
CREATE UNIQUE INDEX invites_pending_once ON public.sponsor_artist_invites
  (artist_id, sponsor_id, coalesce(track_id, '00000000-0000-0000-0000-000000000000'::uuid)) WHERE status = 'pending';

-- ---------------------------------------------------------------------------
-- Money. Amounts are numeric naira with kobo precision, never floats.
-- A wallet is an account in the ledger: a user's wallet has id = user id;
-- system accounts have fixed ids. External accounts (card providers, the
-- banks cash-outs go to) may go negative: their balance is the money that
-- crossed the platform's edge, so the sum of all wallets is always zero.
CREATE TABLE public.wallets (
  id uuid PRIMARY KEY,
  user_id uuid UNIQUE REFERENCES auth.users (id) ON DELETE SET NULL,
  account text UNIQUE, -- name of a system account; null for users
  kind text NOT NULL DEFAULT 'user' CHECK (kind IN ('user', 'system', 'external')),
  balance numeric(14, 2) NOT NULL DEFAULT 0,
  currency text NOT NULL DEFAULT 'NGN' CHECK (currency = 'NGN'),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT wallets_no_overdraw CHECK (kind = 'external' OR balance >= 0),
  CONSTRAINT wallets_user_or_account CHECK ((kind = 'user') = (account IS NULL))
);

-- System accounts: money from each card provider, money held for pending
-- cash-outs, money paid out to banks.
INSERT INTO public.wallets (id, account, kind) VALUES
  ('00000000-0000-0000-0000-00000000f001', 'provider:flutterwave', 'external'),
  ('00000000-0000-0000-0000-00000000f002', 'provider:paystack', 'external'),
  ('00000000-0000-0000-0000-00000000f003', 'provider:sandbox', 'external'),
  ('00000000-0000-0000-0000-00000000f004', 'provider:seed', 'external'),
  ('00000000-0000-0000-0000-00000000c001', 'cashout:held', 'system'),
  ('00000000-0000-0000-0000-00000000c002', 'cashout:paid', 'external')
ON CONFLICT (id) DO NOTHING;

-- The ledger: one row per movement. Balances after the movement make every
-- row auditable on its own.
CREATE TABLE public.transactions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  reference text NOT NULL UNIQUE CHECK (length(reference) BETWEEN 1 AND 200),
  kind text NOT NULL CHECK (kind IN ('sponsored_stream', 'topup', 'cashout_hold', 'cashout_paid',
    'cashout_release', 'transfer', 'adjustment')),
  from_wallet uuid NOT NULL REFERENCES public.wallets (id),
  to_wallet uuid NOT NULL REFERENCES public.wallets (id),
  amount numeric(14, 2) NOT NULL CHECK (amount > 0),
  from_balance_after numeric(14, 2) NOT NULL,
  to_balance_after numeric(14, 2) NOT NULL,
  stream_id uuid UNIQUE REFERENCES public.streams (id) ON DELETE SET NULL,
  track_id uuid REFERENCES public.tracks (id) ON DELETE SET NULL,
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (from_wallet <> to_wallet)
);
CREATE INDEX transactions_from_idx ON public.transactions (from_wallet, created_at DESC);
CREATE INDEX transactions_to_idx ON public.transactions (to_wallet, created_at DESC);

-- The first result of each sponsored-stream settlement, by reference, so a
-- repeated reference returns it instead of paying twice.
CREATE TABLE public.stream_settlements (
  reference text PRIMARY KEY,
  user_id uuid NOT NULL,
  stream_id uuid,
  success boolean NOT NULL DEFAULT false,
  result jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Card payments: a wallet top-up or the verification purchase.
CREATE TABLE public.payments (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  provider text NOT NULL CHECK (provider IN ('flutterwave', 'paystack', 'sandbox')),
  tx_ref text NOT NULL,
  purpose text NOT NULL CHECK (purpose IN ('topup', 'verification')),
  amount numeric(14, 2) NOT NULL CHECK (amount > 0), -- base amount credited or charged for
  vat numeric(14, 2) NOT NULL DEFAULT 0,
  fee numeric(14, 2) NOT NULL DEFAULT 0,
  total numeric(14, 2) NOT NULL,
  currency text NOT NULL DEFAULT 'NGN',
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'successful', 'failed')),
  provider_status text,
  raw_verification jsonb,
  transaction_id uuid REFERENCES public.transactions (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz,
  UNIQUE (provider, tx_ref)
);
CREATE INDEX payments_user_idx ON public.payments (user_id, created_at DESC);

CREATE TABLE public.verifications (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  payment_id uuid REFERENCES public.payments (id),
  granted_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  source text NOT NULL DEFAULT 'payment' CHECK (source IN ('payment', 'admin'))
);
CREATE INDEX verifications_user_idx ON public.verifications (user_id, expires_at DESC);

CREATE TABLE public.cashout_requests (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  amount numeric(14, 2) NOT NULL CHECK (amount > 0),
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'completed', 'rejected')),
  bank_name text,
  account_number text,
  account_name text,
  reason text,
  hold_transaction_id uuid REFERENCES public.transactions (id),
  settle_transaction_id uuid REFERENCES public.transactions (id),
  processed_by uuid,
  processed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX cashout_requests_user_idx ON public.cashout_requests (user_id, created_at DESC);
CREATE INDEX cashout_requests_status_idx ON public.cashout_requests (status, created_at);

-- ---------------------------------------------------------------------------
-- Notifications, sessions, limits, fraud signals, waitlist, activity.
CREATE TABLE public.notifications (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  type text NOT NULL CHECK (type IN ('welcome', 'sponsor_invite', 'artist_invite', 'system_update',
    'profile_completion', 'cashout_completed', 'cashout_submitted', 'cashout_updated')),
  title text NOT NULL,
  message text NOT NULL,
  is_read boolean NOT NULL DEFAULT false,
  data jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX notifications_user_idx ON public.notifications (user_id, created_at DESC);
CREATE INDEX notifications_unread_idx ON public.notifications (user_id) WHERE NOT is_read;

CREATE TABLE public.early_access_subscribers (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email text NOT NULL CHECK (email ~* '^[^@\s]+@[^@\s]+\.[^@\s]+$' AND length(email) <= 320),
  role text NOT NULL CHECK (role IN ('fan', 'artist', 'sponsor')),
  created_at timestamptz NOT NULL DEFAULT now()
);
-- A unique index, so a repeated address is SQLSTATE 23505 as the spec expects.
CREATE UNIQUE INDEX early_access_subscribers_email_key ON public.early_access_subscribers (lower(email));

-- One row per signed-in device (the spec's session record); online = seen recently.
CREATE TABLE public.user_sessions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  session_id text NOT NULL CHECK (length(session_id) BETWEEN 1 AND 200),
  device_info text,
  ip_address text, -- as the gateway saw it, never as the client claims
  created_at timestamptz NOT NULL DEFAULT now(),
  last_seen timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, session_id)
);
CREATE INDEX user_sessions_last_seen_idx ON public.user_sessions (last_seen DESC);

CREATE TABLE public.daily_stream_limits (
  user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  limit_date date NOT NULL,
  daily_limit integer NOT NULL,
  streams_used integer NOT NULL DEFAULT 0,
  streams_remaining integer GENERATED ALWAYS AS (greatest(daily_limit - streams_used, 0)) STORED,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, limit_date)
);

CREATE TABLE public.device_fingerprints (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  fingerprint text NOT NULL CHECK (length(fingerprint) BETWEEN 1 AND 500),
  user_agent text,
  screen_resolution text,
  timezone text,
  language text,
  platform text,
  details jsonb NOT NULL DEFAULT '{}',
  ip_address text,
  trust_score integer NOT NULL DEFAULT 100,
  first_seen timestamptz NOT NULL DEFAULT now(),
  last_seen timestamptz NOT NULL DEFAULT now(),
  seen_count integer NOT NULL DEFAULT 1,
  UNIQUE (user_id, fingerprint)
);
CREATE INDEX device_fingerprints_fp_idx ON public.device_fingerprints (fingerprint, last_seen DESC);
CREATE INDEX device_fingerprints_user_idx ON public.device_fingerprints (user_id, last_seen DESC);

-- What record_stream_for_duplicate_prevention writes: a per-play trace with
-- the device, used by the fraud check to see devices shared by accounts.
CREATE TABLE public.stream_records (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  track_id uuid NOT NULL REFERENCES public.tracks (id) ON DELETE CASCADE,
  device_fingerprint text,
  session_id text,
  ip_address text,
  stream_duration integer,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX stream_records_track_idx ON public.stream_records (track_id, user_id, created_at DESC);
CREATE INDEX stream_records_fp_idx ON public.stream_records (device_fingerprint, created_at DESC);

-- The admin dashboard's activity feed.
CREATE TABLE public.activity_log (
  id bigserial PRIMARY KEY,
  actor_id uuid,
  action text NOT NULL,
  entity_type text,
  entity_id text,
  details jsonb NOT NULL DEFAULT '{}',
  ip_address text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX activity_log_created_idx ON public.activity_log (created_at DESC);
CREATE INDEX activity_log_actor_idx ON public.activity_log (actor_id, created_at DESC);

-- ---------------------------------------------------------------------------
-- A secret for keyed hashes (backline.ip_key), made once per database.
CREATE TABLE backline.secrets (
  name text PRIMARY KEY,
  value text NOT NULL
);
INSERT INTO backline.secrets (name, value) VALUES ('ip_key', encode(extensions.gen_random_bytes(32), 'hex'));

-- Realtime: the notifications bell subscribes to INSERTs on notifications;
-- full replica identity gives subscribers the old row (with user_id, for
-- filters and RLS) on updates and deletes too.
ALTER TABLE public.notifications REPLICA IDENTITY FULL;
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_publication WHERE pubname = 'supabase_realtime') THEN
    CREATE PUBLICATION supabase_realtime;
  END IF;
  ALTER PUBLICATION supabase_realtime ADD TABLE public.notifications;
END $$;
