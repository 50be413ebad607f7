-- The API's access log, one row per request the gateway answered, written
-- by every node in batches off the request path (internal/accesslog), so
-- Studio's Logs screen reads the whole cluster's requests without a log
-- stack of its own. Retention is bounded by age and by rows
-- (BASALT_LOG_RETENTION, BASALT_LOG_RETENTION_ROWS): each node sweeps.
CREATE TABLE IF NOT EXISTS basalt.access_logs (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at timestamptz NOT NULL,
  node text NOT NULL DEFAULT '',
  request_id text NOT NULL DEFAULT '',
  service text NOT NULL DEFAULT '',
  method text NOT NULL DEFAULT '',
  path text NOT NULL DEFAULT '',
  query text NOT NULL DEFAULT '',
  status integer NOT NULL,
  bytes bigint NOT NULL DEFAULT 0,
  duration_ms double precision NOT NULL DEFAULT 0,
  client_ip text NOT NULL DEFAULT '',
  user_agent text NOT NULL DEFAULT '',
  -- The caller's JWT subject and role, when it sent a verified token.
  user_id text NOT NULL DEFAULT '',
  role text NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS access_logs_at_idx ON basalt.access_logs (at DESC);
CREATE INDEX IF NOT EXISTS access_logs_request_id_idx ON basalt.access_logs (request_id);
CREATE INDEX IF NOT EXISTS access_logs_user_idx ON basalt.access_logs (user_id, at DESC) WHERE user_id <> '';

REVOKE ALL ON basalt.access_logs FROM PUBLIC;
