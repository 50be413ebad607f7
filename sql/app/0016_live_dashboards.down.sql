ALTER PUBLICATION supabase_realtime DROP TABLE public.wallets, public.sponsor_artist_invites,
  public.cashout_requests, public.kyc_submissions;
