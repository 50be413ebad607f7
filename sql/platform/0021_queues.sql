-- Queues: pgmq's SQL interface, implemented by Basalt. Each queue is a table
-- pgmq.q_<name> with an archive pgmq.a_<name>, listed in pgmq.meta; messages
-- are read under a visibility timeout (vt) with FOR UPDATE SKIP LOCKED, so
-- concurrent readers never receive the same message while it is invisible,
-- and archive/delete remove a message once (the second caller finds no row).
-- pgmq_public holds the wrappers Supabase exposes to the Data API.
--
-- Queue names are checked by pgmq._table before they reach any statement
-- (letters, digits and underscores, at most 47 characters, lower-cased as
-- pgmq does) and every identifier is quoted with format(%I).

CREATE SCHEMA IF NOT EXISTS pgmq;

CREATE TABLE IF NOT EXISTS pgmq.meta (
  queue_name     varchar PRIMARY KEY,
  is_partitioned boolean NOT NULL DEFAULT false,
  is_unlogged    boolean NOT NULL DEFAULT false,
  created_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TYPE pgmq.message_record AS (
  msg_id       bigint,
  read_ct      integer,
  enqueued_at  timestamptz,
  last_read_at timestamptz,
  vt           timestamptz,
  message      jsonb,
  headers      jsonb
);

CREATE TYPE pgmq.queue_record AS (
  queue_name     varchar,
  is_partitioned boolean,
  is_unlogged    boolean,
  created_at     timestamptz
);

CREATE TYPE pgmq.metrics_result AS (
  queue_name           text,
  queue_length         bigint,
  newest_msg_age_sec   integer,
  oldest_msg_age_sec   integer,
  total_messages       bigint,
  scrape_time          timestamptz,
  queue_visible_length bigint
);

-- The quoted, schema-qualified table of a queue ('q') or its archive ('a').
-- Anything but a plain identifier is refused here, so no caller-supplied
-- text reaches dynamic SQL unchecked.
CREATE OR REPLACE FUNCTION pgmq._table(kind text, queue_name text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF queue_name IS NULL OR queue_name !~ '^[A-Za-z_][A-Za-z0-9_]*$' THEN
    RAISE EXCEPTION 'invalid queue name %', coalesce(quote_literal(left(queue_name, 64)), 'NULL')
      USING ERRCODE = '22023',
            HINT = 'A queue name has letters, digits and underscores and starts with a letter or an underscore.';
  END IF;
  IF length(queue_name) > 47 THEN
    RAISE EXCEPTION 'queue name is too long, maximum length is 47 characters' USING ERRCODE = '22023';
  END IF;
  RETURN format('pgmq.%I', kind || '_' || lower(queue_name));
END
$$;

CREATE OR REPLACE FUNCTION pgmq._create(queue_name text, unlogged boolean) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  q text := pgmq._table('q', queue_name);
  a text := pgmq._table('a', queue_name);
  name text := lower(queue_name);
  kind text := CASE WHEN unlogged THEN 'UNLOGGED TABLE' ELSE 'TABLE' END;
BEGIN
  EXECUTE format($s$
    CREATE %s IF NOT EXISTS %s (
      msg_id       bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
      read_ct      integer NOT NULL DEFAULT 0,
      enqueued_at  timestamptz NOT NULL DEFAULT now(),
      last_read_at timestamptz,
      vt           timestamptz NOT NULL,
      message      jsonb,
      headers      jsonb
    )$s$, kind, q);
  EXECUTE format($s$
    CREATE %s IF NOT EXISTS %s (
      msg_id       bigint PRIMARY KEY,
      read_ct      integer NOT NULL DEFAULT 0,
      enqueued_at  timestamptz NOT NULL DEFAULT now(),
      last_read_at timestamptz,
      archived_at  timestamptz NOT NULL DEFAULT now(),
      vt           timestamptz NOT NULL,
      message      jsonb,
      headers      jsonb
    )$s$, kind, a);
  EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %s (archived_at)', 'a_' || name || '_archived_at_idx', a);
  -- The service role reaches every queue, as on Supabase; anon and
  -- authenticated only once the operator grants them a queue's tables.
  EXECUTE format('GRANT ALL ON %s, %s TO service_role', q, a);
  INSERT INTO pgmq.meta (queue_name, is_partitioned, is_unlogged)
  VALUES (name, false, unlogged)
  ON CONFLICT DO NOTHING;
END
$$;

CREATE OR REPLACE FUNCTION pgmq.create(queue_name text) RETURNS void
LANGUAGE sql AS $$ SELECT pgmq._create(queue_name, false) $$;

CREATE OR REPLACE FUNCTION pgmq.create_non_partitioned(queue_name text) RETURNS void
LANGUAGE sql AS $$ SELECT pgmq._create(queue_name, false) $$;

CREATE OR REPLACE FUNCTION pgmq.create_unlogged(queue_name text) RETURNS void
LANGUAGE sql AS $$ SELECT pgmq._create(queue_name, true) $$;

-- Sending: one core, called by every overload. vt is when the messages
-- become readable (now for no delay).
CREATE OR REPLACE FUNCTION pgmq._send(queue_name text, msgs jsonb[], headers jsonb[], vt timestamptz)
RETURNS SETOF bigint
LANGUAGE plpgsql AS $$
BEGIN
  IF headers IS NOT NULL AND cardinality(headers) <> cardinality(msgs) THEN
    RAISE EXCEPTION 'headers must have one entry per message (% messages, % headers)',
      cardinality(msgs), cardinality(headers) USING ERRCODE = '22023';
  END IF;
  IF cardinality(msgs) = 1 THEN
    RETURN QUERY EXECUTE format(
      'INSERT INTO %s (vt, message, headers) VALUES ($1, $2, $3) RETURNING msg_id',
      pgmq._table('q', queue_name)) USING vt, msgs[1], headers[1];
    RETURN;
  END IF;
  RETURN QUERY EXECUTE format(
    'INSERT INTO %s (vt, message, headers)
     SELECT $1, m.msg, $3[m.i] FROM unnest($2) WITH ORDINALITY AS m(msg, i) ORDER BY m.i
     RETURNING msg_id',
    pgmq._table('q', queue_name)) USING vt, msgs, headers;
END
$$;

CREATE OR REPLACE FUNCTION pgmq._after(delay integer) RETURNS timestamptz
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF delay IS NULL OR delay < 0 THEN
    RAISE EXCEPTION 'delay must be zero or more seconds, not %', coalesce(delay::text, 'NULL') USING ERRCODE = '22023';
  END IF;
  RETURN clock_timestamp() + make_interval(secs => delay);
END
$$;

-- The common call, send(queue, msg), takes the shortest path: one
-- statement, no arrays.
CREATE OR REPLACE FUNCTION pgmq.send(queue_name text, msg jsonb, delay integer DEFAULT 0) RETURNS SETOF bigint
LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format('INSERT INTO %s (vt, message) VALUES ($1, $2) RETURNING msg_id',
    pgmq._table('q', queue_name)) USING pgmq._after(delay), msg;
END
$$;
CREATE OR REPLACE FUNCTION pgmq.send(queue_name text, msg jsonb, delay timestamptz) RETURNS SETOF bigint
LANGUAGE sql AS $$ SELECT pgmq._send(queue_name, ARRAY[msg], NULL, delay) $$;
CREATE OR REPLACE FUNCTION pgmq.send(queue_name text, msg jsonb, headers jsonb, delay integer DEFAULT 0) RETURNS SETOF bigint
LANGUAGE sql AS $$ SELECT pgmq._send(queue_name, ARRAY[msg], ARRAY[headers], pgmq._after(delay)) $$;
CREATE OR REPLACE FUNCTION pgmq.send(queue_name text, msg jsonb, headers jsonb, delay timestamptz) RETURNS SETOF bigint
LANGUAGE sql AS $$ SELECT pgmq._send(queue_name, ARRAY[msg], ARRAY[headers], delay) $$;

CREATE OR REPLACE FUNCTION pgmq.send_batch(queue_name text, msgs jsonb[], delay integer DEFAULT 0) RETURNS SETOF bigint
LANGUAGE sql AS $$ SELECT pgmq._send(queue_name, msgs, NULL, pgmq._after(delay)) $$;
CREATE OR REPLACE FUNCTION pgmq.send_batch(queue_name text, msgs jsonb[], delay timestamptz) RETURNS SETOF bigint
LANGUAGE sql AS $$ SELECT pgmq._send(queue_name, msgs, NULL, delay) $$;
CREATE OR REPLACE FUNCTION pgmq.send_batch(queue_name text, msgs jsonb[], headers jsonb[], delay integer DEFAULT 0) RETURNS SETOF bigint
LANGUAGE sql AS $$ SELECT pgmq._send(queue_name, msgs, headers, pgmq._after(delay)) $$;
CREATE OR REPLACE FUNCTION pgmq.send_batch(queue_name text, msgs jsonb[], headers jsonb[], delay timestamptz) RETURNS SETOF bigint
LANGUAGE sql AS $$ SELECT pgmq._send(queue_name, msgs, headers, delay) $$;

-- Reading: the oldest visible messages, locked with SKIP LOCKED so that
-- concurrent readers take different ones, and made invisible for vt
-- seconds. A reader that meets a row another reader just took re-checks
-- the visibility condition on the new row version, and skips it.
CREATE OR REPLACE FUNCTION pgmq.read(queue_name text, vt integer, qty integer, conditional jsonb DEFAULT '{}')
RETURNS SETOF pgmq.message_record
LANGUAGE plpgsql AS $$
BEGIN
  IF vt IS NULL OR vt < 0 THEN
    RAISE EXCEPTION 'vt must be zero or more seconds, not %', coalesce(vt::text, 'NULL') USING ERRCODE = '22023';
  END IF;
  RETURN QUERY EXECUTE format($q$
    WITH picked AS (
      SELECT msg_id FROM %1$s
      WHERE vt <= clock_timestamp() AND ($3 = '{}'::jsonb OR message @> $3)
      ORDER BY msg_id
      LIMIT $1
      FOR UPDATE SKIP LOCKED
    )
    UPDATE %1$s m
    SET vt = clock_timestamp() + make_interval(secs => $2),
        read_ct = m.read_ct + 1,
        last_read_at = clock_timestamp()
    FROM picked
    WHERE m.msg_id = picked.msg_id
    RETURNING m.msg_id, m.read_ct, m.enqueued_at, m.last_read_at, m.vt, m.message, m.headers
  $q$, pgmq._table('q', queue_name)) USING greatest(qty, 0), vt, coalesce(conditional, '{}');
END
$$;

CREATE OR REPLACE FUNCTION pgmq.read_with_poll(
  queue_name text, vt integer, qty integer,
  max_poll_seconds integer DEFAULT 5, poll_interval_ms integer DEFAULT 100,
  conditional jsonb DEFAULT '{}')
RETURNS SETOF pgmq.message_record
LANGUAGE plpgsql AS $$
DECLARE
  deadline timestamptz := clock_timestamp() + make_interval(secs => greatest(max_poll_seconds, 0));
BEGIN
  LOOP
    RETURN QUERY SELECT * FROM pgmq.read(queue_name, vt, qty, conditional);
    EXIT WHEN FOUND OR clock_timestamp() >= deadline;
    PERFORM pg_sleep(greatest(poll_interval_ms, 1) / 1000.0);
  END LOOP;
END
$$;

-- pop reads and deletes at once: at-most-once delivery.
CREATE OR REPLACE FUNCTION pgmq.pop(queue_name text, qty integer DEFAULT 1)
RETURNS SETOF pgmq.message_record
LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format($q$
    WITH picked AS (
      SELECT msg_id FROM %1$s
      WHERE vt <= clock_timestamp()
      ORDER BY msg_id
      LIMIT $1
      FOR UPDATE SKIP LOCKED
    )
    DELETE FROM %1$s m USING picked
    WHERE m.msg_id = picked.msg_id
    RETURNING m.msg_id, m.read_ct, m.enqueued_at, m.last_read_at, m.vt, m.message, m.headers
  $q$, pgmq._table('q', queue_name)) USING greatest(qty, 0);
END
$$;

CREATE OR REPLACE FUNCTION pgmq.delete(queue_name text, msg_ids bigint[]) RETURNS SETOF bigint
LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format('DELETE FROM %s WHERE msg_id = ANY($1) RETURNING msg_id',
    pgmq._table('q', queue_name)) USING msg_ids;
END
$$;

CREATE OR REPLACE FUNCTION pgmq.delete(queue_name text, msg_id bigint) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  n bigint;
BEGIN
  EXECUTE format('DELETE FROM %s WHERE msg_id = $1', pgmq._table('q', queue_name)) USING msg_id;
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n > 0;
END
$$;

-- archive moves messages to the archive table in one statement; the
-- archive's primary key keeps a message there at most once.
CREATE OR REPLACE FUNCTION pgmq.archive(queue_name text, msg_ids bigint[]) RETURNS SETOF bigint
LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format($q$
    WITH gone AS (
      DELETE FROM %s WHERE msg_id = ANY($1)
      RETURNING msg_id, read_ct, enqueued_at, last_read_at, vt, message, headers
    )
    , kept AS (
      INSERT INTO %s (msg_id, read_ct, enqueued_at, last_read_at, vt, message, headers)
      SELECT msg_id, read_ct, enqueued_at, last_read_at, vt, message, headers FROM gone
    )
    SELECT msg_id FROM gone
  $q$, pgmq._table('q', queue_name), pgmq._table('a', queue_name)) USING msg_ids;
END
$$;

CREATE OR REPLACE FUNCTION pgmq.archive(queue_name text, msg_id bigint) RETURNS boolean
LANGUAGE sql AS $$
  SELECT EXISTS (SELECT FROM pgmq.archive(queue_name, ARRAY[msg_id]))
$$;

CREATE OR REPLACE FUNCTION pgmq.set_vt(queue_name text, msg_ids bigint[], vt timestamptz)
RETURNS SETOF pgmq.message_record
LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format($q$
    UPDATE %s SET vt = $2 WHERE msg_id = ANY($1)
    RETURNING msg_id, read_ct, enqueued_at, last_read_at, vt, message, headers
  $q$, pgmq._table('q', queue_name)) USING msg_ids, vt;
END
$$;

CREATE OR REPLACE FUNCTION pgmq.set_vt(queue_name text, msg_ids bigint[], vt integer)
RETURNS SETOF pgmq.message_record
LANGUAGE sql AS $$ SELECT * FROM pgmq.set_vt(queue_name, msg_ids, pgmq._after(vt)) $$;
CREATE OR REPLACE FUNCTION pgmq.set_vt(queue_name text, msg_id bigint, vt timestamptz)
RETURNS SETOF pgmq.message_record
LANGUAGE sql AS $$ SELECT * FROM pgmq.set_vt(queue_name, ARRAY[msg_id], vt) $$;
CREATE OR REPLACE FUNCTION pgmq.set_vt(queue_name text, msg_id bigint, vt integer)
RETURNS SETOF pgmq.message_record
LANGUAGE sql AS $$ SELECT * FROM pgmq.set_vt(queue_name, ARRAY[msg_id], pgmq._after(vt)) $$;

CREATE OR REPLACE FUNCTION pgmq.purge_queue(queue_name text) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  n bigint;
BEGIN
  EXECUTE format('DELETE FROM %s', pgmq._table('q', queue_name));
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END
$$;

CREATE OR REPLACE FUNCTION pgmq.drop_queue(queue_name text) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  q text := pgmq._table('q', queue_name);
  a text := pgmq._table('a', queue_name);
BEGIN
  IF NOT EXISTS (SELECT FROM pgmq.meta m WHERE m.queue_name = lower(drop_queue.queue_name)) THEN
    RAISE NOTICE 'pgmq queue `%` does not exist', lower(queue_name);
    RETURN false;
  END IF;
  EXECUTE format('DROP TABLE IF EXISTS %s, %s', q, a);
  DELETE FROM pgmq.meta m WHERE m.queue_name = lower(drop_queue.queue_name);
  RETURN true;
END
$$;

CREATE OR REPLACE FUNCTION pgmq.list_queues() RETURNS SETOF pgmq.queue_record
LANGUAGE sql STABLE AS $$
  SELECT queue_name, is_partitioned, is_unlogged, created_at FROM pgmq.meta ORDER BY queue_name
$$;

CREATE OR REPLACE FUNCTION pgmq.metrics(queue_name text) RETURNS pgmq.metrics_result
LANGUAGE plpgsql AS $$
DECLARE
  q text := pgmq._table('q', queue_name);
  r pgmq.metrics_result;
BEGIN
  EXECUTE format($q$
    SELECT $1::text,
           count(*),
           extract(epoch FROM clock_timestamp() - max(enqueued_at))::integer,
           extract(epoch FROM clock_timestamp() - min(enqueued_at))::integer,
           (SELECT CASE WHEN s.is_called THEN s.last_value ELSE 0 END FROM %s s),
           clock_timestamp(),
           count(*) FILTER (WHERE vt <= clock_timestamp())
    FROM %s
  $q$, pg_get_serial_sequence(q, 'msg_id'), q) INTO r USING lower(queue_name);
  RETURN r;
END
$$;

CREATE OR REPLACE FUNCTION pgmq.metrics_all() RETURNS SETOF pgmq.metrics_result
LANGUAGE sql AS $$
  SELECT (pgmq.metrics(m.queue_name)).* FROM pgmq.meta m ORDER BY m.queue_name
$$;

-- Rights, as a Supabase project has them once Queues are on: every API role
-- may use the schema and call the functions, the service role reaches every
-- queue table, and anon/authenticated reach a queue only through the
-- grants (and RLS policies) an operator gives its tables.
GRANT USAGE ON SCHEMA pgmq TO anon, authenticated, service_role;
GRANT ALL ON pgmq.meta TO service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA pgmq GRANT ALL ON TABLES TO service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA pgmq GRANT ALL ON SEQUENCES TO service_role;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA pgmq TO anon, authenticated, service_role;

-- pgmq_public: the functions supabase-js reaches with
-- .schema('pgmq_public').rpc(...). They run with the caller's rights, so a
-- role without grants on a queue's tables is refused there.
CREATE SCHEMA IF NOT EXISTS pgmq_public;
GRANT USAGE ON SCHEMA pgmq_public TO anon, authenticated, service_role;

CREATE OR REPLACE FUNCTION pgmq_public.send(queue_name text, message jsonb, sleep_seconds integer DEFAULT 0)
RETURNS SETOF bigint
LANGUAGE sql SET search_path = '' AS $$
  SELECT * FROM pgmq.send(queue_name := queue_name, msg := message, delay := sleep_seconds)
$$;
COMMENT ON FUNCTION pgmq_public.send(text, jsonb, integer) IS
  'Sends a message to the specified queue, optionally delaying its availability by a number of seconds.';

CREATE OR REPLACE FUNCTION pgmq_public.send_batch(queue_name text, messages jsonb[], sleep_seconds integer DEFAULT 0)
RETURNS SETOF bigint
LANGUAGE sql SET search_path = '' AS $$
  SELECT * FROM pgmq.send_batch(queue_name := queue_name, msgs := messages, delay := sleep_seconds)
$$;
COMMENT ON FUNCTION pgmq_public.send_batch(text, jsonb[], integer) IS
  'Sends a batch of messages to the specified queue, optionally delaying their availability by a number of seconds.';

CREATE OR REPLACE FUNCTION pgmq_public.read(queue_name text, sleep_seconds integer, n integer)
RETURNS SETOF pgmq.message_record
LANGUAGE sql SET search_path = '' AS $$
  SELECT * FROM pgmq.read(queue_name := queue_name, vt := sleep_seconds, qty := n)
$$;
COMMENT ON FUNCTION pgmq_public.read(text, integer, integer) IS
  'Reads up to "n" messages from the specified queue with an optional "sleep_seconds" (visibility timeout).';

CREATE OR REPLACE FUNCTION pgmq_public.pop(queue_name text)
RETURNS SETOF pgmq.message_record
LANGUAGE sql SET search_path = '' AS $$
  SELECT * FROM pgmq.pop(queue_name := queue_name)
$$;
COMMENT ON FUNCTION pgmq_public.pop(text) IS
  'Retrieves and locks the next message from the specified queue.';

CREATE OR REPLACE FUNCTION pgmq_public.archive(queue_name text, message_id bigint)
RETURNS boolean
LANGUAGE sql SET search_path = '' AS $$
  SELECT pgmq.archive(queue_name := queue_name, msg_id := message_id)
$$;
COMMENT ON FUNCTION pgmq_public.archive(text, bigint) IS
  'Archives a message by moving it from the queue to a permanent archive.';

CREATE OR REPLACE FUNCTION pgmq_public.delete(queue_name text, message_id bigint)
RETURNS boolean
LANGUAGE sql SET search_path = '' AS $$
  SELECT pgmq.delete(queue_name := queue_name, msg_id := message_id)
$$;
COMMENT ON FUNCTION pgmq_public.delete(text, bigint) IS
  'Permanently deletes a message from the specified queue.';

GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA pgmq_public TO anon, authenticated, service_role;
