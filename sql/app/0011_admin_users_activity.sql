-- Admin dashboard: users and the activity feed.
--
-- Every list here is keyset-paginated: the caller passes the sort key of the
-- last row it has (p_before_*), never an offset, and each list walks an index
-- in its sort order, so page 1,000 costs what page 1 costs. Limits are
-- clamped to 1..200. Optional filters are written `p_x IS NULL OR col =
-- p_x`; a generic (cached) plan cannot pick an index for that, so the list
-- functions plan every call with its arguments (plan_cache_mode =
-- force_custom_plan), where the planner folds the test away.
--
-- Its functions (with their triggers) and policies moved to functions/ and
-- policies/, one file each. A database that applied it before keeps its record:
-- replaces: fc8b9e31a0f70d95279dd02b1e7b81f25064b0860c2c506ab4859098def948cb

CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA extensions;

-- What admins search users by: username, display name, name and e-mail in
-- one lower-cased text per user, kept next to the profile's creation time.
-- The e-mail lives in auth.users, so no single profile index could serve a
-- search over both; with one table the planner chooses per search between
-- walking the newest-first index (a broad text such as "gmail") and the
-- trigram index (a rare one). Triggers keep it current.
CREATE TABLE backline.user_search (
  id uuid PRIMARY KEY REFERENCES public.public_profiles (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  doc text NOT NULL
);
CREATE INDEX user_search_created_idx ON backline.user_search (created_at DESC, id DESC);
CREATE INDEX user_search_doc_idx ON backline.user_search USING gin (doc extensions.gin_trgm_ops);

INSERT INTO backline.user_search (id, created_at, doc)
SELECT p.id, p.created_at, lower(concat_ws(' ', p.username, p.display_name, p.name, u.email))
FROM public.public_profiles p LEFT JOIN auth.users u ON u.id = p.id;

CREATE INDEX public_profiles_created_idx ON public.public_profiles (created_at DESC, id DESC);
CREATE INDEX public_profiles_role_created_idx ON public.public_profiles (role, created_at DESC, id DESC);
CREATE INDEX public_profiles_suspended_idx ON public.public_profiles (created_at DESC, id DESC) WHERE is_suspended;
CREATE INDEX public_profiles_verified_idx ON public.public_profiles (created_at DESC, id DESC) WHERE is_verified;

-- The first user list (0004) read by offset; admin_search_users replaces it.
DROP FUNCTION IF EXISTS public.admin_list_users(integer, integer);

-- ---------------------------------------------------------------------------
-- The activity feed: what users did (activity_log: sign-ups, uploads,
-- payments, cash-out requests, invites, fraud flags), every stream with its
-- verdict, and every admin action (the audit log), newest first. Each source
-- is read along its own (created_at, id) index and the pages are merged; the
-- cursor is the last row's time and key ('a:' activity, 's:' stream,
-- 'x:' admin action), compared in the C collation.

-- The feed's kind of an activity_log action. An index is built on it, so it
-- lives here with the index: changing it means a new migration that
-- rebuilds activity_log_kind_idx.
CREATE FUNCTION backline.activity_kind(p_action text) RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT CASE
    WHEN p_action = 'user.signup' THEN 'signup'
    WHEN p_action LIKE 'track.%' THEN 'upload'
    WHEN p_action LIKE 'payment.%' THEN 'payment'
    WHEN p_action LIKE 'cashout.%' THEN 'cashout'
    WHEN p_action LIKE 'invite.%' THEN 'invite'
    WHEN p_action LIKE 'fraud.%' THEN 'fraud'
    WHEN p_action LIKE 'kyc.%' THEN 'verification'
    ELSE 'account' END
$$;
REVOKE ALL ON FUNCTION backline.activity_kind(text) FROM PUBLIC;

CREATE INDEX activity_log_feed_idx ON public.activity_log (created_at DESC, id DESC);
CREATE INDEX activity_log_kind_idx ON public.activity_log (backline.activity_kind(action), created_at DESC, id DESC);
CREATE INDEX streams_created_idx ON public.streams (created_at DESC, id DESC);
CREATE INDEX streams_rejected_idx ON public.streams (created_at DESC, id DESC) WHERE NOT is_valid;

REVOKE ALL ON backline.user_search FROM PUBLIC;
