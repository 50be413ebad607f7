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
--
-- Its functions (with their triggers) and policies moved to functions/ and
-- policies/, one file each. A database that applied it before keeps its record:
-- replaces: 00aac01336e946ade7057494afeb3c5274baefe978e3afe079a988f23400874b

INSERT INTO public.wallets (id, account, kind) VALUES
  ('00000000-0000-0000-0000-00000000a001', 'platform:adjustments', 'external')
ON CONFLICT (id) DO NOTHING;

-- ---------------------------------------------------------------------------
-- Cash-outs.
CREATE INDEX cashout_requests_status_id_idx ON public.cashout_requests (status, created_at, id);
CREATE INDEX cashout_requests_created_idx ON public.cashout_requests (created_at DESC, id DESC);
CREATE INDEX cashout_requests_processed_idx ON public.cashout_requests (processed_at) WHERE processed_at IS NOT NULL;

-- ---------------------------------------------------------------------------
-- The ledger. Party indexes carry the id, so a user's movements are read by
-- keyset from each side and merged.
DROP INDEX public.transactions_from_idx;
DROP INDEX public.transactions_to_idx;
CREATE INDEX transactions_from_idx ON public.transactions (from_wallet, created_at DESC, id DESC);
CREATE INDEX transactions_to_idx ON public.transactions (to_wallet, created_at DESC, id DESC);
CREATE INDEX transactions_created_idx ON public.transactions (created_at DESC, id DESC);
CREATE INDEX transactions_kind_idx ON public.transactions (kind, created_at DESC, id DESC);

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

-- An admin can end an accepted sponsorship.
ALTER TABLE public.sponsor_artist_invites DROP CONSTRAINT sponsor_artist_invites_status_check;
ALTER TABLE public.sponsor_artist_invites ADD CONSTRAINT sponsor_artist_invites_status_check
  CHECK (status IN ('pending', 'accepted', 'rejected', 'ended'));
CREATE INDEX invites_created_idx ON public.sponsor_artist_invites (created_at DESC, id DESC);
CREATE INDEX invites_status_created_idx ON public.sponsor_artist_invites (status, created_at DESC, id DESC);
CREATE INDEX tracks_sponsored_created_idx ON public.tracks (created_at DESC, id DESC) WHERE is_sponsored;

REVOKE ALL ON backline.sponsorship_spend FROM PUBLIC;
