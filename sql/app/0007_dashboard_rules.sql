-- The rules behind the artist, sponsor and fan dashboards that the database
-- did not hold yet, so a client that lies changes nothing:
--
--   * cash-outs name a bank from the list, a 10-digit NUBAN and an account
--     name (the minimum and the balance were already checked, under the
--     wallet's row lock, so two requests at once cannot overdraw);
--   * a verification is bought once: no second purchase while one is valid,
--     except in its last verification_renewal_days days, and only by
--     artists and sponsors;
--   * a track's audio and cover are the artist's own uploads, its duration
--     is measured by the server (set_track_duration), never claimed, and its
--     media objects go with the row;
--   * a sponsor's wallet falling under the low-balance threshold notifies
--     the sponsor;
--   * fans' playlists (owner only), ordered, reordered in one call;
--   * the dashboards' figures, each first screen in one call, and the
--     statement and analytics aggregates, computed where the rows are.
--
-- Its functions (with their triggers) and policies moved to functions/ and
-- policies/, one file each. A database that applied it before keeps its record:
-- replaces: 96d10c89a1d1f1eaa8e49b4fef92262e58ae8a479cc2889fede1c489cf5fe21e

INSERT INTO public.app_settings (key, value, description, is_public) VALUES
  ('verification_renewal_days', '30', 'Days before a verification expires from which it can be renewed', true)
ON CONFLICT (key) DO NOTHING;

-- ---------------------------------------------------------------------------
-- Banks a cash-out may go to (CBN codes). Public: the app's bank list.
CREATE TABLE public.banks (
  code text PRIMARY KEY,
  name text NOT NULL UNIQUE
);
ALTER TABLE public.banks ENABLE ROW LEVEL SECURITY;
REVOKE INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON public.banks FROM anon, authenticated;
INSERT INTO public.banks (code, name) VALUES
  ('044', 'Access Bank'), ('023', 'Citibank Nigeria'), ('050', 'Ecobank Nigeria'),
  ('070', 'Fidelity Bank'), ('011', 'First Bank of Nigeria'), ('214', 'First City Monument Bank'),
  ('00103', 'Globus Bank'), ('058', 'Guaranty Trust Bank'), ('030', 'Heritage Bank'),
  ('301', 'Jaiz Bank'), ('082', 'Keystone Bank'), ('50211', 'Kuda Microfinance Bank'),
  ('999992', 'OPay'), ('999991', 'PalmPay'), ('526', 'Parallex Bank'), ('076', 'Polaris Bank'),
  ('101', 'Providus Bank'), ('125', 'Rubies Microfinance Bank'), ('221', 'Stanbic IBTC Bank'),
  ('068', 'Standard Chartered Bank'), ('232', 'Sterling Bank'), ('100', 'Suntrust Bank'),
  ('302', 'TAJBank'), ('102', 'Titan Trust Bank'), ('032', 'Union Bank of Nigeria'),
  ('033', 'United Bank for Africa'), ('215', 'Unity Bank'), ('035', 'Wema Bank'), ('057', 'Zenith Bank')
ON CONFLICT (code) DO NOTHING;

-- ---------------------------------------------------------------------------
-- Playlists: a fan's own, read and changed by the owner alone.
CREATE TABLE public.playlists (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(btrim(name)) BETWEEN 1 AND 100),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX playlists_user_idx ON public.playlists (user_id, created_at);

CREATE TABLE public.playlist_tracks (
  playlist_id uuid NOT NULL REFERENCES public.playlists (id) ON DELETE CASCADE,
  track_id uuid NOT NULL REFERENCES public.tracks (id) ON DELETE CASCADE,
  position integer NOT NULL DEFAULT 0,
  added_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (playlist_id, track_id)
);
CREATE INDEX playlist_tracks_order_idx ON public.playlist_tracks (playlist_id, position);

ALTER TABLE public.playlists ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.playlist_tracks ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON public.playlists, public.playlist_tracks FROM anon;
REVOKE TRUNCATE, REFERENCES, TRIGGER ON public.playlists, public.playlist_tracks FROM authenticated;
-- The owner is the caller, always.
REVOKE UPDATE ON public.playlists FROM authenticated;
GRANT UPDATE (name) ON public.playlists TO authenticated;
REVOKE UPDATE ON public.playlist_tracks FROM authenticated;
GRANT UPDATE (position) ON public.playlist_tracks TO authenticated;
