-- HTTP from SQL and Database Webhooks: pg_net's interface (net.http_get,
-- net.http_post, net.http_delete queue a request and return its id; the
-- answer lands in net._http_response) and Supabase's webhook trigger
-- function supabase_functions.http_request with its supabase_functions.hooks
-- log. Queuing is one INSERT in the caller's transaction: nothing is sent
-- unless it commits, and a slow receiver never holds the commit up. Basalt's
-- sender (package netsend) claims committed requests with FOR UPDATE SKIP
-- LOCKED, woken by NOTIFY basalt_net, so with several nodes each request is
-- sent by one of them.

CREATE SCHEMA IF NOT EXISTS net;

CREATE TABLE IF NOT EXISTS net.http_request_queue (
  id                   bigserial PRIMARY KEY,
  method               text NOT NULL CHECK (method IN ('GET', 'POST', 'DELETE')),
  url                  text NOT NULL,
  headers              jsonb NOT NULL DEFAULT '{}',
  body                 bytea,
  timeout_milliseconds integer NOT NULL,
  -- Basalt's addition: while a sender holds a request it is leased until
  -- then; a lease that ran out (the node died mid-send) is claimed again.
  claimed_until        timestamptz
);

CREATE TABLE IF NOT EXISTS net._http_response (
  id           bigint,
  status_code  integer,
  content_type text,
  headers      jsonb,
  content      text,
  timed_out    boolean,
  error_msg    text,
  created      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS _http_response_created_idx ON net._http_response (created);
CREATE INDEX IF NOT EXISTS _http_response_id_idx ON net._http_response (id);

REVOKE ALL ON net.http_request_queue, net._http_response FROM PUBLIC;

-- Senders wait on this channel; the notification is sent when the queuing
-- transaction commits, once per statement.
CREATE OR REPLACE FUNCTION net._wake_senders() RETURNS trigger
LANGUAGE plpgsql SET search_path = '' AS $$
BEGIN
  PERFORM pg_notify('basalt_net', '');
  RETURN NULL;
END
$$;
DROP TRIGGER IF EXISTS wake_senders ON net.http_request_queue;
CREATE TRIGGER wake_senders AFTER INSERT ON net.http_request_queue
  FOR EACH STATEMENT EXECUTE FUNCTION net._wake_senders();

-- Percent-encodes s for a query string (RFC 3986 unreserved characters stay).
CREATE OR REPLACE FUNCTION net._urlencode(s text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT SET search_path = '' AS $$
  SELECT coalesce(string_agg(
    CASE WHEN b BETWEEN 48 AND 57 OR b BETWEEN 65 AND 90 OR b BETWEEN 97 AND 122 OR b IN (45, 46, 95, 126)
         THEN chr(b)
         ELSE '%' || upper(lpad(to_hex(b), 2, '0')) END, '' ORDER BY i), '')
  FROM (SELECT i, get_byte(convert_to(s, 'UTF8'), i) AS b
        FROM generate_series(0, octet_length(convert_to(s, 'UTF8')) - 1) AS i) AS bytes
$$;

-- Queues one request; the public functions below check their arguments
-- and call it.
CREATE OR REPLACE FUNCTION net._enqueue(method text, url text, params jsonb, headers jsonb, body bytea, timeout_milliseconds integer)
RETURNS bigint
LANGUAGE plpgsql SET search_path = '' AS $$
DECLARE
  query text;
  id bigint;
BEGIN
  IF url IS NULL OR url !~* '^https?://[^/?#]' THEN
    RAISE EXCEPTION 'url must be an absolute http:// or https:// URL, not %', coalesce(quote_literal(left(url, 200)), 'NULL')
      USING ERRCODE = '22023';
  END IF;
  IF params IS NOT NULL AND jsonb_typeof(params) <> 'object' THEN
    RAISE EXCEPTION 'params must be a JSON object' USING ERRCODE = '22023';
  END IF;
  IF headers IS NOT NULL AND jsonb_typeof(headers) <> 'object' THEN
    RAISE EXCEPTION 'headers must be a JSON object' USING ERRCODE = '22023';
  END IF;
  IF timeout_milliseconds IS NULL OR timeout_milliseconds <= 0 THEN
    RAISE EXCEPTION 'timeout_milliseconds must be a positive number of milliseconds' USING ERRCODE = '22023';
  END IF;
  SELECT string_agg(net._urlencode(p.key) || '=' ||
           net._urlencode(CASE jsonb_typeof(p.value) WHEN 'string' THEN p.value #>> '{}' ELSE p.value::text END),
           '&' ORDER BY p.key)
  INTO query
  FROM jsonb_each(coalesce(params, '{}')) AS p;
  IF query IS NOT NULL THEN
    url := url || CASE WHEN position('?' IN url) > 0 THEN '&' ELSE '?' END || query;
  END IF;
  INSERT INTO net.http_request_queue (method, url, headers, body, timeout_milliseconds)
  VALUES (method, url, coalesce(headers, '{}'), body, timeout_milliseconds)
  RETURNING http_request_queue.id INTO id;
  RETURN id;
END
$$;

CREATE OR REPLACE FUNCTION net.http_get(
  url text,
  params jsonb DEFAULT '{}',
  headers jsonb DEFAULT '{}',
  timeout_milliseconds integer DEFAULT 5000)
RETURNS bigint
LANGUAGE sql SECURITY DEFINER SET search_path = '' AS $$
  SELECT net._enqueue('GET', url, params, headers, NULL, timeout_milliseconds)
$$;

CREATE OR REPLACE FUNCTION net.http_post(
  url text,
  body jsonb DEFAULT '{}',
  params jsonb DEFAULT '{}',
  headers jsonb DEFAULT '{"Content-Type": "application/json"}',
  timeout_milliseconds integer DEFAULT 5000)
RETURNS bigint
LANGUAGE sql SECURITY DEFINER SET search_path = '' AS $$
  SELECT net._enqueue('POST', url, params, headers, convert_to(body::text, 'UTF8'), timeout_milliseconds)
$$;

CREATE OR REPLACE FUNCTION net.http_delete(
  url text,
  params jsonb DEFAULT '{}',
  headers jsonb DEFAULT '{}',
  timeout_milliseconds integer DEFAULT 5000,
  body jsonb DEFAULT NULL)
RETURNS bigint
LANGUAGE sql SECURITY DEFINER SET search_path = '' AS $$
  SELECT net._enqueue('DELETE', url, params, headers, convert_to(body::text, 'UTF8'), timeout_milliseconds)
$$;

-- As on Supabase: the API roles may queue requests (a webhook fires inside
-- their writes); only the owner reads the queue and the answers.
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA net FROM PUBLIC;
GRANT USAGE ON SCHEMA net TO anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION
  net.http_get(text, jsonb, jsonb, integer),
  net.http_post(text, jsonb, jsonb, jsonb, integer),
  net.http_delete(text, jsonb, jsonb, integer, jsonb)
TO anon, authenticated, service_role;

-- Database Webhooks, created the Supabase way:
--   CREATE TRIGGER my_hook AFTER INSERT ON my_table FOR EACH ROW
--   EXECUTE FUNCTION supabase_functions.http_request(
--     'https://example.com/hook', 'POST', '{"Content-Type":"application/json"}', '{}', '1000');
CREATE SCHEMA IF NOT EXISTS supabase_functions;
GRANT USAGE ON SCHEMA supabase_functions TO anon, authenticated, service_role;

CREATE TABLE IF NOT EXISTS supabase_functions.migrations (
  version     text PRIMARY KEY,
  inserted_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO supabase_functions.migrations (version) VALUES ('initial') ON CONFLICT DO NOTHING;

CREATE TABLE IF NOT EXISTS supabase_functions.hooks (
  id            bigserial PRIMARY KEY,
  hook_table_id integer NOT NULL,
  hook_name     text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  request_id    bigint
);
CREATE INDEX IF NOT EXISTS supabase_functions_hooks_request_id_idx ON supabase_functions.hooks (request_id);
CREATE INDEX IF NOT EXISTS supabase_functions_hooks_h_table_id_h_name_idx ON supabase_functions.hooks (hook_table_id, hook_name);
COMMENT ON TABLE supabase_functions.hooks IS 'Supabase Functions Hooks: Audit trail for triggered hooks.';
REVOKE ALL ON supabase_functions.hooks FROM PUBLIC;

-- The trigger's arguments: url, method (GET or POST), headers (JSON,
-- default Content-Type: application/json), params (JSON), timeout_ms
-- (default 1000). A POST carries {type, table, schema, record, old_record}.
-- It runs with its owner's rights, so a write by any role can fire it.
CREATE OR REPLACE FUNCTION supabase_functions.http_request() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = '' AS $$
DECLARE
  url text := TG_ARGV[0];
  method text := TG_ARGV[1];
  headers jsonb := '{"Content-Type": "application/json"}';
  params jsonb := '{}';
  timeout_ms integer := 1000;
  request_id bigint;
BEGIN
  IF url IS NULL OR url = 'null' THEN
    RAISE EXCEPTION 'url argument is missing';
  END IF;
  IF method IS NULL OR method = 'null' THEN
    RAISE EXCEPTION 'method argument is missing';
  END IF;
  IF TG_ARGV[2] IS NOT NULL AND TG_ARGV[2] <> 'null' THEN
    headers := TG_ARGV[2]::jsonb;
  END IF;
  IF TG_ARGV[3] IS NOT NULL AND TG_ARGV[3] <> 'null' THEN
    params := TG_ARGV[3]::jsonb;
  END IF;
  IF TG_ARGV[4] IS NOT NULL AND TG_ARGV[4] <> 'null' THEN
    timeout_ms := TG_ARGV[4]::integer;
  END IF;

  CASE method
    WHEN 'GET' THEN
      request_id := net.http_get(url, params, headers, timeout_ms);
    WHEN 'POST' THEN
      request_id := net.http_post(url,
        jsonb_build_object(
          'type', TG_OP,
          'table', TG_TABLE_NAME,
          'schema', TG_TABLE_SCHEMA,
          'record', CASE WHEN TG_LEVEL = 'ROW' AND TG_OP <> 'DELETE' THEN to_jsonb(NEW) END,
          'old_record', CASE WHEN TG_LEVEL = 'ROW' AND TG_OP <> 'INSERT' THEN to_jsonb(OLD) END),
        params, headers, timeout_ms);
    ELSE
      RAISE EXCEPTION 'method argument % is invalid', method;
  END CASE;

  INSERT INTO supabase_functions.hooks (hook_table_id, hook_name, request_id)
  VALUES (TG_RELID, TG_NAME, request_id);
  RETURN NEW;
END
$$;
REVOKE ALL ON FUNCTION supabase_functions.http_request() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION supabase_functions.http_request() TO anon, authenticated, service_role;
