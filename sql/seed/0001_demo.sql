-- Backline demo data for `basalt dev`: an admin, four artists with tracks,
-- two sponsors with funded wallets and accepted sponsorships, three fans,
-- some listening history and sponsor payments. Applied on every start after
-- the migrations, so every statement is idempotent (fixed ids, ON CONFLICT,
-- ledger references that transfer_funds treats as already processed).
--
-- Logins (password for all: backline123):
--   admin@backline.test            admin
--   kola@backline.test, zara@backline.test, lekan@backline.test, ife@backline.test   artists
--   lagoon@backline.test, harmattan@backline.test                                    sponsors
--   ada@backline.test, tunde@backline.test, chioma@backline.test                     fans
--
-- Track audio and covers point at the public storage buckets
-- (/storage/v1/object/public/tracks/<file>, .../covers/<file>); `basalt dev`
-- generates and uploads the files themselves after the seed runs.

-- Accounts. Inserting into auth.users fires the sign-up trigger, which
-- creates profile, role, role profile, wallet and welcome notification.
WITH people (id, email, meta) AS (VALUES
  ('5eed0000-0000-4000-8000-000000000001'::uuid, 'admin@backline.test', '{"display_name": "Backline Admin", "username": "admin"}'::jsonb),
  ('5eed0000-0000-4000-8000-000000000011', 'kola@backline.test', '{"role": "artist", "display_name": "Kola Ade", "username": "kolaade", "location": "Lagos, Nigeria"}'),
  ('5eed0000-0000-4000-8000-000000000012', 'zara@backline.test', '{"role": "artist", "display_name": "Zara Obi", "username": "zaraobi", "location": "Enugu, Nigeria"}'),
  ('5eed0000-0000-4000-8000-000000000013', 'lekan@backline.test', '{"role": "artist", "display_name": "DJ Lekan", "username": "djlekan", "location": "Ibadan, Nigeria"}'),
  ('5eed0000-0000-4000-8000-000000000014', 'ife@backline.test', '{"role": "artist", "display_name": "Ife Grace", "username": "ifegrace", "location": "Abuja, Nigeria"}'),
  ('5eed0000-0000-4000-8000-000000000021', 'lagoon@backline.test', '{"role": "sponsor", "display_name": "Lagoon Telecom", "username": "lagoontelecom", "company_name": "Lagoon Telecom Ltd", "website": "https://lagoon.example"}'),
  ('5eed0000-0000-4000-8000-000000000022', 'harmattan@backline.test', '{"role": "sponsor", "display_name": "Harmattan Drinks", "username": "harmattan", "company_name": "Harmattan Drinks Plc"}'),
  ('5eed0000-0000-4000-8000-000000000031', 'ada@backline.test', '{"role": "fan", "display_name": "Ada Nwosu", "username": "adanwosu"}'),
  ('5eed0000-0000-4000-8000-000000000032', 'tunde@backline.test', '{"role": "fan", "display_name": "Tunde Bello", "username": "tundebello"}'),
  ('5eed0000-0000-4000-8000-000000000033', 'chioma@backline.test', '{"role": "fan", "display_name": "Chioma Eze", "username": "chiomaeze"}')
), missing AS (
  SELECT * FROM people WHERE NOT EXISTS (SELECT 1 FROM auth.users u WHERE u.id = people.id)
), hash AS (
  -- One bcrypt hash for the shared demo password, computed only when needed.
  SELECT extensions.crypt('backline123', extensions.gen_salt('bf', 10)) AS pw WHERE EXISTS (SELECT 1 FROM missing)
), inserted AS (
  INSERT INTO auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
    raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
  SELECT '00000000-0000-0000-0000-000000000000', id, 'authenticated', 'authenticated', email,
    hash.pw, now(), '{"provider": "email", "providers": ["email"]}', meta, now(), now()
  FROM missing CROSS JOIN hash
  ON CONFLICT (id) DO NOTHING
  RETURNING id, email
)
INSERT INTO auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at, last_sign_in_at)
SELECT id::text, id, jsonb_build_object('sub', id::text, 'email', email, 'email_verified', true), 'email', now(), now(), now()
FROM inserted
ON CONFLICT (provider_id, provider) DO NOTHING;

SELECT backline.promote_to_admin('5eed0000-0000-4000-8000-000000000001')
WHERE NOT EXISTS (SELECT 1 FROM public.user_roles WHERE user_id = '5eed0000-0000-4000-8000-000000000001' AND role = 'admin');

UPDATE public.public_profiles SET bio = v.bio, location = v.location FROM (VALUES
  ('5eed0000-0000-4000-8000-000000000011'::uuid, 'Afrobeats from the heart of Lagos.', 'Lagos, Nigeria'),
  ('5eed0000-0000-4000-8000-000000000012', 'Highlife with a modern twist.', 'Enugu, Nigeria'),
  ('5eed0000-0000-4000-8000-000000000013', 'Amapiano nights, log drums and all.', 'Ibadan, Nigeria'),
  ('5eed0000-0000-4000-8000-000000000014', 'Gospel and soul.', 'Abuja, Nigeria'),
  ('5eed0000-0000-4000-8000-000000000021', 'Connecting Nigeria, one song at a time.', 'Lagos, Nigeria'),
  ('5eed0000-0000-4000-8000-000000000022', 'Cool drinks for hot beats.', 'Kano, Nigeria')
) AS v (id, bio, location)
WHERE public_profiles.id = v.id AND public_profiles.bio IS NULL;

UPDATE public.artist_profiles SET genres = v.genres, kyc_status = 'approved', kyc_expiry_date = now() + interval '1 year'
FROM (VALUES
  ('5eed0000-0000-4000-8000-000000000011'::uuid, '{Afrobeats}'::text[]),
  ('5eed0000-0000-4000-8000-000000000012', '{Highlife}'),
  ('5eed0000-0000-4000-8000-000000000013', '{Amapiano}'),
  ('5eed0000-0000-4000-8000-000000000014', '{Gospel}')
) AS v (id, genres)
WHERE artist_profiles.id = v.id AND artist_profiles.genres = '{}';

-- Tracks: three per artist.
INSERT INTO public.tracks (id, title, artist_id, audio_url, cover_url, duration, release_date, genre, description, is_explicit)
SELECT md5('seed-track-' || t.slug)::uuid, t.title, t.artist,
  '/storage/v1/object/public/tracks/' || t.slug || '.wav',
  '/storage/v1/object/public/covers/' || t.slug || '.jpg',
  t.duration, t.released, t.genre, t.description, t.explicit
FROM (VALUES
  ('lagos-sunrise', 'Lagos Sunrise', '5eed0000-0000-4000-8000-000000000011'::uuid, 214, date '2025-03-14', 'Afrobeats', 'Morning energy on Third Mainland Bridge.', false),
  ('danfo-dance', 'Danfo Dance', '5eed0000-0000-4000-8000-000000000011', 188, date '2025-06-01', 'Afrobeats', 'For the ride home.', false),
  ('owambe', 'Owambe', '5eed0000-0000-4000-8000-000000000011', 242, date '2025-09-20', 'Afrobeats', 'Party till dawn.', true),
  ('palm-wine-evening', 'Palm Wine Evening', '5eed0000-0000-4000-8000-000000000012', 231, date '2024-11-02', 'Highlife', 'Guitars under the stars.', false),
  ('coal-city-love', 'Coal City Love', '5eed0000-0000-4000-8000-000000000012', 205, date '2025-02-14', 'Highlife', 'A love song for Enugu.', false),
  ('udara', 'Udara', '5eed0000-0000-4000-8000-000000000012', 199, date '2025-07-07', 'Highlife', NULL, false),
  ('log-drum-theory', 'Log Drum Theory', '5eed0000-0000-4000-8000-000000000013', 276, date '2025-05-05', 'Amapiano', 'Deep and rolling.', false),
  ('bodija-nights', 'Bodija Nights', '5eed0000-0000-4000-8000-000000000013', 301, date '2025-08-18', 'Amapiano', NULL, true),
  ('yanga', 'Yanga', '5eed0000-0000-4000-8000-000000000013', 260, date '2025-10-10', 'Amapiano', NULL, false),
  ('grace-abounds', 'Grace Abounds', '5eed0000-0000-4000-8000-000000000014', 284, date '2024-12-25', 'Gospel', 'Choir and strings.', false),
  ('morning-praise', 'Morning Praise', '5eed0000-0000-4000-8000-000000000014', 223, date '2025-04-20', 'Gospel', NULL, false),
  ('still-waters', 'Still Waters', '5eed0000-0000-4000-8000-000000000014', 247, date '2025-09-01', 'Gospel', NULL, false)
) AS t (slug, title, artist, duration, released, genre, description, explicit)
ON CONFLICT (id) DO NOTHING;

-- Sponsor wallets, funded through the ledger (idempotent by reference).
SELECT backline.fund_wallet('5eed0000-0000-4000-8000-000000000021', 50000, 'seed-fund-lagoon');
SELECT backline.fund_wallet('5eed0000-0000-4000-8000-000000000022', 25000, 'seed-fund-harmattan');

-- Accepted sponsorships, and the tracks they sponsor.
INSERT INTO public.sponsor_artist_invites (id, artist_id, sponsor_id, track_id, status, initiated_by, pitch, responded_at)
VALUES
  (md5('seed-invite-1')::uuid, '5eed0000-0000-4000-8000-000000000011', '5eed0000-0000-4000-8000-000000000021',
   md5('seed-track-lagos-sunrise')::uuid, 'accepted', 'sponsor', 'Lagoon Telecom would love to back Lagos Sunrise.', now()),
  (md5('seed-invite-2')::uuid, '5eed0000-0000-4000-8000-000000000012', '5eed0000-0000-4000-8000-000000000021',
   md5('seed-track-palm-wine-evening')::uuid, 'accepted', 'artist', 'Palm Wine Evening fits your summer campaign.', now()),
  (md5('seed-invite-3')::uuid, '5eed0000-0000-4000-8000-000000000013', '5eed0000-0000-4000-8000-000000000022',
   md5('seed-track-log-drum-theory')::uuid, 'accepted', 'sponsor', 'Harmattan Drinks x Log Drum Theory.', now()),
  (md5('seed-invite-4')::uuid, '5eed0000-0000-4000-8000-000000000014', '5eed0000-0000-4000-8000-000000000022',
   md5('seed-track-grace-abounds')::uuid, 'pending', 'sponsor', 'We would like to sponsor Grace Abounds this Christmas.', NULL)
ON CONFLICT (id) DO NOTHING;

UPDATE public.tracks SET is_sponsored = true, sponsor_id = v.sponsor
FROM (VALUES
  (md5('seed-track-lagos-sunrise')::uuid, '5eed0000-0000-4000-8000-000000000021'::uuid),
  (md5('seed-track-palm-wine-evening')::uuid, '5eed0000-0000-4000-8000-000000000021'::uuid),
  (md5('seed-track-log-drum-theory')::uuid, '5eed0000-0000-4000-8000-000000000022'::uuid)
) AS v (id, sponsor)
WHERE tracks.id = v.id AND NOT tracks.is_sponsored;

-- Listening history over the last week: valid fan streams (the counters
-- follow through the stream trigger).
INSERT INTO public.streams (id, track_id, user_id, duration, is_valid, ip_address, created_at)
SELECT md5('seed-stream-' || g)::uuid,
  (ARRAY(SELECT md5('seed-track-' || s)::uuid FROM unnest(ARRAY['lagos-sunrise', 'danfo-dance', 'owambe',
    'palm-wine-evening', 'coal-city-love', 'udara', 'log-drum-theory', 'bodija-nights', 'yanga', 'grace-abounds',
    'morning-praise', 'still-waters']) s))[1 + (g * 7) % 12],
  (ARRAY['5eed0000-0000-4000-8000-000000000031', '5eed0000-0000-4000-8000-000000000032',
    '5eed0000-0000-4000-8000-000000000033']::uuid[])[1 + g % 3],
  180, true, backline.ip_key('10.20.' || (g % 3) || '.' || (g % 97)), now() - make_interval(hours => 2 + g * 2)
FROM generate_series(1, 60) g
ON CONFLICT (id) DO NOTHING;

-- Sponsor payments for the seeded streams of sponsored tracks, through the
-- ledger like live ones, each stream paid once.
SELECT public.transfer_funds(t.sponsor_id, t.artist_id, 50, 'seed-pay-' || s.id, 'sponsored_stream', s.id, t.id,
  '{"seed": true}')
FROM public.streams s JOIN public.tracks t ON t.id = s.track_id
WHERE s.id IN (SELECT md5('seed-stream-' || g)::uuid FROM generate_series(1, 60) g)
  AND t.is_sponsored AND s.paid_reference IS NULL
ORDER BY s.created_at;
UPDATE public.streams s SET paid_reference = 'seed-pay-' || s.id
WHERE s.paid_reference IS NULL AND EXISTS (SELECT 1 FROM public.transactions x WHERE x.reference = 'seed-pay-' || s.id);

-- Favorites.
INSERT INTO public.favorites (track_id, user_id)
SELECT md5('seed-track-' || f.slug)::uuid, f.fan::uuid FROM (VALUES
  ('lagos-sunrise', '5eed0000-0000-4000-8000-000000000031'), ('log-drum-theory', '5eed0000-0000-4000-8000-000000000031'),
  ('palm-wine-evening', '5eed0000-0000-4000-8000-000000000032'), ('grace-abounds', '5eed0000-0000-4000-8000-000000000033')
) AS f (slug, fan)
ON CONFLICT (track_id, user_id) DO NOTHING;
