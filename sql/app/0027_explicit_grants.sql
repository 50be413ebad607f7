-- Explicit grants on every table, as Supabase wants them since 2026-10-30:
-- new tables in public get nothing from the default privileges (platform
-- 0028), so a table is reachable through the Data API only once granted.
-- These are exactly the privileges the earlier defaults gave, less what
-- 0002 and later revoked (TestGrantsAreExplicit compares the two): a
-- database migrated before this file already holds them and nothing
-- changes; a new one gets them here. Row-level security still decides which
-- rows each role sees; column grants (streams, notifications, playlists,
-- early access) are where the table's migration put them.
--
-- A table added after this file grants what it needs in its own migration.
GRANT SELECT ON public.activity_log TO authenticated;
GRANT ALL ON public.activity_log TO service_role;
GRANT SELECT ON public.app_settings TO anon;
GRANT INSERT, SELECT, UPDATE ON public.app_settings TO authenticated;
GRANT ALL ON public.app_settings TO service_role;
GRANT SELECT ON public.artist_profiles TO anon;
GRANT DELETE, INSERT, SELECT, UPDATE ON public.artist_profiles TO authenticated;
GRANT ALL ON public.artist_profiles TO service_role;
GRANT SELECT ON public.banks TO anon;
GRANT SELECT ON public.banks TO authenticated;
GRANT ALL ON public.banks TO service_role;
GRANT SELECT ON public.cashout_requests TO authenticated;
GRANT ALL ON public.cashout_requests TO service_role;
GRANT SELECT ON public.daily_stream_limits TO authenticated;
GRANT ALL ON public.daily_stream_limits TO service_role;
GRANT SELECT ON public.device_fingerprints TO authenticated;
GRANT ALL ON public.device_fingerprints TO service_role;
GRANT ALL ON public.early_access_subscribers TO service_role;
GRANT SELECT ON public.fan_profiles TO anon;
GRANT DELETE, INSERT, SELECT, UPDATE ON public.fan_profiles TO authenticated;
GRANT ALL ON public.fan_profiles TO service_role;
GRANT SELECT ON public.favorites TO anon;
GRANT DELETE, INSERT, SELECT ON public.favorites TO authenticated;
GRANT ALL ON public.favorites TO service_role;
GRANT SELECT ON public.kyc_submissions TO authenticated;
GRANT ALL ON public.kyc_submissions TO service_role;
GRANT DELETE, SELECT ON public.notifications TO authenticated;
GRANT ALL ON public.notifications TO service_role;
GRANT SELECT ON public.payments TO authenticated;
GRANT ALL ON public.payments TO service_role;
GRANT SELECT ON public.play_sessions TO authenticated;
GRANT ALL ON public.play_sessions TO service_role;
GRANT DELETE, INSERT, SELECT ON public.playlist_tracks TO authenticated;
GRANT ALL ON public.playlist_tracks TO service_role;
GRANT DELETE, INSERT, SELECT ON public.playlists TO authenticated;
GRANT ALL ON public.playlists TO service_role;
GRANT SELECT ON public.public_profiles TO anon;
GRANT DELETE, INSERT, SELECT, UPDATE ON public.public_profiles TO authenticated;
GRANT ALL ON public.public_profiles TO service_role;
GRANT SELECT ON public.sponsor_artist_invites TO anon;
GRANT DELETE, INSERT, SELECT, UPDATE ON public.sponsor_artist_invites TO authenticated;
GRANT ALL ON public.sponsor_artist_invites TO service_role;
GRANT SELECT ON public.sponsor_profiles TO anon;
GRANT DELETE, INSERT, SELECT, UPDATE ON public.sponsor_profiles TO authenticated;
GRANT ALL ON public.sponsor_profiles TO service_role;
GRANT SELECT ON public.stream_records TO authenticated;
GRANT ALL ON public.stream_records TO service_role;
GRANT SELECT ON public.stream_settlements TO authenticated;
GRANT ALL ON public.stream_settlements TO service_role;
GRANT SELECT ON public.streams TO authenticated;
GRANT ALL ON public.streams TO service_role;
GRANT SELECT ON public.tracks TO anon;
GRANT DELETE, INSERT, SELECT, UPDATE ON public.tracks TO authenticated;
GRANT ALL ON public.tracks TO service_role;
GRANT SELECT ON public.transactions TO authenticated;
GRANT ALL ON public.transactions TO service_role;
GRANT SELECT ON public.user_roles TO anon;
GRANT DELETE, INSERT, SELECT, UPDATE ON public.user_roles TO authenticated;
GRANT ALL ON public.user_roles TO service_role;
GRANT SELECT ON public.user_sessions TO authenticated;
GRANT ALL ON public.user_sessions TO service_role;
GRANT SELECT ON public.verifications TO authenticated;
GRANT ALL ON public.verifications TO service_role;
GRANT SELECT ON public.wallets TO authenticated;
GRANT ALL ON public.wallets TO service_role;
