-- Realtime for the dashboards: an open page follows its owner's money,
-- invites, cash-outs and KYC as they change, instead of refetching on a
-- timer or after its own actions only.
--
-- Realtime delivers a change only to a subscriber allowed to SELECT the row
-- (0002's and 0014's policies, checked as each subscriber), so only tables
-- whose rows are private to their owner (their parties, for invites) and
-- admins are published. Public tables (tracks, public_profiles) stay out:
-- every visitor could follow every change to them. The ledger
-- (transactions) stays out too: each movement updates the wallets it
-- touches, and that is the signal the pages use.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_publication WHERE pubname = 'supabase_realtime') THEN
    CREATE PUBLICATION supabase_realtime;
  END IF;
  ALTER PUBLICATION supabase_realtime ADD TABLE public.wallets, public.sponsor_artist_invites,
    public.cashout_requests, public.kyc_submissions;
END $$;
