-- Realtime: the publication postgres_changes stream from, realtime.messages
-- (the table whose RLS policies authorize private channels, and where
-- realtime.send() stores database broadcasts), and the SQL helpers Supabase
-- projects call: realtime.topic(), realtime.send(), realtime.broadcast_changes().

DO $$
BEGIN
  -- Created empty, as Supabase does: tables join it with
  -- ALTER PUBLICATION supabase_realtime ADD TABLE ...
  IF NOT EXISTS (SELECT 1 FROM pg_publication WHERE pubname = 'supabase_realtime') THEN
    CREATE PUBLICATION supabase_realtime;
  END IF;
END
$$;

CREATE TABLE IF NOT EXISTS realtime.messages (
  id             uuid NOT NULL DEFAULT gen_random_uuid(),
  topic          text NOT NULL,
  extension      text NOT NULL,
  payload        jsonb,
  event          text,
  private        boolean DEFAULT false,
  binary_payload bytea,
  inserted_at    timestamp without time zone NOT NULL DEFAULT now(),
  updated_at     timestamp without time zone NOT NULL DEFAULT now(),
  PRIMARY KEY (id, inserted_at)
);
CREATE INDEX IF NOT EXISTS messages_topic_inserted_at_idx ON realtime.messages (topic, inserted_at);
-- For purging messages older than 72 h, as the reference drops old partitions.
CREATE INDEX IF NOT EXISTS messages_inserted_at_idx ON realtime.messages (inserted_at);
ALTER TABLE realtime.messages ENABLE ROW LEVEL SECURITY;
GRANT SELECT, INSERT, UPDATE ON realtime.messages TO anon, authenticated, service_role;

-- The channel name a policy on realtime.messages is evaluated for.
CREATE OR REPLACE FUNCTION realtime.topic() RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT nullif(current_setting('realtime.topic', true), '')
$$;
GRANT EXECUTE ON FUNCTION realtime.topic() TO anon, authenticated, service_role;

-- Broadcast from SQL: the message is stored and every Basalt node is told
-- its id when the transaction commits. As upstream it runs with the
-- caller's rights, so the insert passes the caller's policies on
-- realtime.messages; errors are warnings: a failed broadcast never aborts
-- the caller's transaction.
CREATE OR REPLACE FUNCTION realtime.send(payload jsonb, event text, topic text, private boolean DEFAULT true)
RETURNS void
LANGUAGE plpgsql
SET search_path = ''
AS $$
DECLARE
  generated_id uuid := gen_random_uuid();
  final_payload jsonb := payload;
BEGIN
  BEGIN
    IF NOT (payload ? 'id') THEN
      final_payload := jsonb_set(payload, '{id}', to_jsonb(generated_id));
    END IF;
    PERFORM set_config('realtime.topic', topic, true);
    INSERT INTO realtime.messages (id, payload, event, topic, private, extension)
    VALUES (generated_id, final_payload, event, topic, private, 'broadcast');
    PERFORM pg_notify('realtime_messages', generated_id::text);
  EXCEPTION WHEN OTHERS THEN
    RAISE WARNING 'WarnSendingBroadcastMessage: %', SQLERRM;
  END;
END
$$;
GRANT EXECUTE ON FUNCTION realtime.send(jsonb, text, text, boolean) TO anon, authenticated, service_role;

-- For row triggers: broadcasts {operation, table, schema, record, old_record}.
CREATE OR REPLACE FUNCTION realtime.broadcast_changes(
  topic_name text, event_name text, operation text, table_name text, table_schema text,
  new record, old record, level text DEFAULT 'ROW')
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
  row_data jsonb;
BEGIN
  IF level = 'STATEMENT' THEN
    RAISE EXCEPTION 'function can only be triggered for each row, not for each statement';
  END IF;
  IF operation IN ('INSERT', 'UPDATE', 'DELETE') THEN
    row_data := jsonb_build_object('old_record', old, 'record', new, 'operation', operation,
      'table', table_name, 'schema', table_schema);
    PERFORM realtime.send(row_data, event_name, topic_name);
  ELSE
    RAISE EXCEPTION 'Unexpected operation type: %', operation;
  END IF;
EXCEPTION WHEN OTHERS THEN
  RAISE EXCEPTION 'Failed to process the row: %', SQLERRM;
END
$$;
GRANT EXECUTE ON FUNCTION realtime.broadcast_changes(text, text, text, text, text, record, record, text)
  TO anon, authenticated, service_role;

-- Cross-node messages too large for a NOTIFY payload: the notification
-- carries the row id. Unlogged and short-lived (nodes delete rows older
-- than a minute).
CREATE UNLOGGED TABLE IF NOT EXISTS realtime.cluster_messages (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  body        text NOT NULL,
  inserted_at timestamptz NOT NULL DEFAULT now()
);
