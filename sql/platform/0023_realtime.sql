-- Budgets counted in order, stopping at the first one that refuses: a
-- caller's own share first, then the shares it draws on (realtime's
-- anonymous part of the project, then the whole project), so a hit refused
-- by its own share never uses up a budget others share. One statement per
-- event, as for a single budget (internal/ratelimit).
CREATE OR REPLACE FUNCTION basalt.rate_limit_take(p_keys text[], p_maxes integer[], p_now timestamptz, p_period interval)
RETURNS TABLE (refused integer, window_end timestamptz)
LANGUAGE plpgsql
SET search_path = ''
AS $$
DECLARE
  v_hits integer;
  v_end timestamptz;
  v_first_end timestamptz;
BEGIN
  FOR i IN 1 .. coalesce(array_length(p_keys, 1), 0) LOOP
    -- A window that has ended starts anew with this hit.
    INSERT INTO basalt.rate_limits AS r (key, window_start, expires_at, hits)
    VALUES (p_keys[i], p_now, p_now + p_period, 1)
    ON CONFLICT (key) DO UPDATE SET
      window_start = CASE WHEN r.expires_at <= p_now THEN p_now ELSE r.window_start END,
      expires_at = CASE WHEN r.expires_at <= p_now THEN p_now + p_period ELSE r.expires_at END,
      hits = CASE WHEN r.expires_at <= p_now THEN 1 ELSE r.hits + 1 END
    RETURNING r.hits, r.expires_at INTO v_hits, v_end;
    IF v_hits > p_maxes[i] THEN
      RETURN QUERY SELECT i, v_end;
      RETURN;
    END IF;
    v_first_end := coalesce(v_first_end, v_end);
  END LOOP;
  RETURN QUERY SELECT 0, v_first_end;
END
$$;
REVOKE ALL ON FUNCTION basalt.rate_limit_take(text[], integer[], timestamptz, interval) FROM PUBLIC;

-- Private channels are authorized when they are joined (and when their
-- token changes); after a change that takes a user's access away (a
-- suspension, a revoked membership), realtime.reauthorize_user(user id)
-- makes every Basalt node run the read policies of that user's open
-- private channels again and close those that now fail, as a channel whose
-- token expired is closed. The notification goes out when the calling
-- transaction commits, so the policies see its changes. Not SECURITY
-- DEFINER: sending a notification needs no privilege; only the service
-- role (and functions owned by the database owner, such as an app's admin
-- functions) may call it, so clients cannot make every node re-run
-- policies at will.
CREATE OR REPLACE FUNCTION realtime.reauthorize_user(p_user_id uuid)
RETURNS void
LANGUAGE sql
STRICT
SET search_path = ''
AS $$
  SELECT pg_catalog.pg_notify('realtime_reauthorize', p_user_id::text)
$$;
REVOKE ALL ON FUNCTION realtime.reauthorize_user(uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION realtime.reauthorize_user(uuid) TO service_role;
