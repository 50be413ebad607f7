-- Request budgets (GoTrue's per-address and per-project rate limits), as
-- fixed windows kept in Postgres so that every Basalt node of a project
-- counts against the same budget. Basalt's own table, read and written
-- only by the platform (internal/ratelimit).
CREATE TABLE IF NOT EXISTS basalt.rate_limits (
  key text PRIMARY KEY,
  window_start timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  hits integer NOT NULL
);
-- Expired windows are swept by age.
CREATE INDEX IF NOT EXISTS rate_limits_expires_at_idx ON basalt.rate_limits (expires_at);
REVOKE ALL ON basalt.rate_limits FROM PUBLIC;
