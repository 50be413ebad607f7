-- Test schema for the REST service: shaped after the postgrest-js test
-- fixture (users, channels, messages, best friends, M2M products) plus an
-- RLS-protected notes table.
CREATE TYPE user_status AS ENUM ('ONLINE', 'OFFLINE');

CREATE TABLE users (
  username text PRIMARY KEY,
  data jsonb,
  age_range int4range,
  status user_status,
  catchphrase tsvector
);
CREATE TABLE channels (id bigserial PRIMARY KEY, data jsonb, slug text);
CREATE TABLE channel_details (
  id bigint PRIMARY KEY REFERENCES channels(id),
  details text
);
CREATE TABLE messages (
  id bigserial PRIMARY KEY,
  data jsonb,
  message text,
  username text NOT NULL REFERENCES users(username),
  channel_id bigint NOT NULL REFERENCES channels(id)
);
CREATE TABLE best_friends (
  id bigserial PRIMARY KEY,
  first_user text REFERENCES users(username),
  second_user text REFERENCES users(username),
  third_wheel text REFERENCES users(username)
);
CREATE TABLE products (id serial PRIMARY KEY, name text, price numeric);
CREATE TABLE categories (id serial PRIMARY KEY, name text);
CREATE TABLE product_categories (
  product_id int REFERENCES products(id),
  category_id int REFERENCES categories(id),
  PRIMARY KEY (product_id, category_id)
);
CREATE TABLE collections (
  id serial PRIMARY KEY,
  name text,
  parent_id int REFERENCES collections(id)
);
CREATE TABLE cornercase (
  id int PRIMARY KEY,
  "column whitespace" text,
  array_column text[]
);
CREATE TABLE defaults (
  id serial PRIMARY KEY,
  name text NOT NULL DEFAULT 'unnamed',
  n int DEFAULT 7
);
CREATE TABLE nopk (a int, b text);
CREATE VIEW active_users AS SELECT username, data, status FROM users WHERE status = 'ONLINE';
CREATE VIEW recent_messages AS SELECT id, message, username, channel_id FROM messages;
-- Views that rename their columns: keys and relationships follow each
-- column to the base column it exposes, whatever it is called; a computed
-- column exposes none.
CREATE VIEW message_feed AS
  SELECT m.id AS message_id, m.message AS body, m.username AS author, m.channel_id AS room FROM messages m;
CREATE VIEW people AS SELECT username AS handle, status FROM users;
CREATE VIEW shouted AS SELECT id, upper(username) AS username FROM messages;
CREATE VIEW "odd names" AS SELECT id AS "the (id)", username AS "by\ {who}" FROM messages;
-- Media-type handlers: functions returning a domain named after a media
-- type answer that type as it is, with that Content-Type.
CREATE DOMAIN "text/html" AS text;
CREATE DOMAIN "application/vnd.basalt.bin" AS bytea;
CREATE DOMAIN "*/*" AS bytea;
CREATE DOMAIN "application/vnd.pgrst.object+json" AS json;
CREATE FUNCTION welcome(name text DEFAULT 'you') RETURNS "text/html" LANGUAGE sql STABLE
  AS $$ SELECT '<h1>Hello, ' || name || '</h1>' $$;
CREATE FUNCTION raw_bytes() RETURNS "application/vnd.basalt.bin" LANGUAGE sql STABLE
  AS $$ SELECT '\x00ff10'::bytea $$;
CREATE FUNCTION empty_blob() RETURNS "application/vnd.basalt.bin" LANGUAGE sql STABLE
  AS $$ SELECT NULL::bytea $$;
CREATE FUNCTION anything() RETURNS "*/*" LANGUAGE sql STABLE
  AS $$ SELECT convert_to('<x/>', 'UTF8') $$;
CREATE FUNCTION styled() RETURNS "*/*" LANGUAGE sql STABLE AS $$
  SELECT set_config('response.headers', '[{"Content-Type":"text/css"}]', true);
  SELECT convert_to('a{}', 'UTF8') $$;
CREATE FUNCTION vendor_object() RETURNS "application/vnd.pgrst.object+json" LANGUAGE sql STABLE
  AS $$ SELECT '{"a":1}'::json $$;
-- An exposed view over a table in a schema that is not exposed.
CREATE SCHEMA hidden;
CREATE TABLE hidden.labels (id int PRIMARY KEY, channel_id bigint REFERENCES channels(id), label text);
CREATE VIEW channel_labels AS SELECT id AS label_id, channel_id AS channel, label FROM hidden.labels;

-- RLS: each user sees and writes only their notes; anon sees public ones.
CREATE TABLE notes (
  id serial PRIMARY KEY,
  owner uuid NOT NULL DEFAULT auth.uid(),
  body text NOT NULL,
  public boolean NOT NULL DEFAULT false
);
ALTER TABLE notes ENABLE ROW LEVEL SECURITY;
CREATE POLICY notes_read ON notes FOR SELECT USING (public OR owner = auth.uid());
CREATE POLICY notes_insert ON notes FOR INSERT TO authenticated WITH CHECK (owner = auth.uid());
CREATE POLICY notes_update ON notes FOR UPDATE TO authenticated USING (owner = auth.uid());
CREATE POLICY notes_delete ON notes FOR DELETE TO authenticated USING (owner = auth.uid());

CREATE SCHEMA personal;
GRANT USAGE ON SCHEMA personal TO anon, authenticated, service_role;
CREATE TABLE personal.users (username text PRIMARY KEY, status user_status);
GRANT ALL ON personal.users TO anon, authenticated, service_role;

-- Functions
CREATE FUNCTION get_status(name_param text) RETURNS user_status LANGUAGE sql STABLE AS
  $$ SELECT status FROM users WHERE username = name_param $$;
CREATE FUNCTION get_username_and_status(name_param text) RETURNS TABLE(username text, status user_status)
  LANGUAGE sql STABLE AS $$ SELECT username, status FROM users WHERE username = name_param $$;
CREATE FUNCTION void_func() RETURNS void LANGUAGE sql AS $$ $$;
CREATE FUNCTION add_them(a int, b int DEFAULT 1) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT a + b $$;
CREATE FUNCTION overloaded(a int) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT a $$;
CREATE FUNCTION overloaded(a text) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT a $$;
CREATE FUNCTION overloaded(a int, b int) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT a + b $$;
CREATE FUNCTION overloaded() RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT 0 $$;
CREATE FUNCTION get_messages(channel_row channels) RETURNS SETOF messages LANGUAGE sql STABLE AS
  $$ SELECT * FROM messages WHERE channel_id = channel_row.id $$;
CREATE FUNCTION list_messages() RETURNS SETOF messages LANGUAGE sql STABLE AS $$ SELECT * FROM messages $$;
CREATE FUNCTION numbers() RETURNS SETOF int LANGUAGE sql IMMUTABLE AS $$ SELECT generate_series(1, 5) $$;
CREATE FUNCTION json_echo(json) RETURNS json LANGUAGE sql IMMUTABLE AS $$ SELECT $1 $$;
CREATE FUNCTION text_echo(text) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT $1 $$;
-- Unnamed parameters: called with the key "" (the body goes whole to a
-- single one); one that no body can be is not callable at all.
CREATE FUNCTION polymorphic_return(bool) RETURNS int LANGUAGE sql AS 'SELECT 1';
CREATE FUNCTION polymorphic_return(int) RETURNS int LANGUAGE sql AS 'SELECT 2';
CREATE FUNCTION polymorphic_return(text) RETURNS text LANGUAGE sql AS $$ SELECT 'foo' $$;
CREATE FUNCTION polymorphic_default() RETURNS int LANGUAGE sql AS 'SELECT 1';
CREATE FUNCTION polymorphic_default(int DEFAULT 42) RETURNS int LANGUAGE sql AS 'SELECT 2';
CREATE FUNCTION polymorphic_default(text DEFAULT 'default') RETURNS text LANGUAGE sql AS $$ SELECT $1 $$;
CREATE FUNCTION polymorphic_unnamed_integer(int) RETURNS int LANGUAGE sql AS 'SELECT 1';
CREATE FUNCTION polymorphic_unnamed_text(text) RETURNS int LANGUAGE sql AS 'SELECT 1';
CREATE FUNCTION sum_array(xs int[]) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT sum(x)::int FROM unnest(xs) x $$;
CREATE FUNCTION bump_channel(slug_param text) RETURNS channels LANGUAGE sql VOLATILE AS
  $$ INSERT INTO channels(slug) VALUES (slug_param) RETURNING * $$;
CREATE FUNCTION raise_custom() RETURNS void LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'custom failure' USING DETAIL = 'some detail', HINT = 'some hint'; END $$;
CREATE FUNCTION raise_payment() RETURNS void LANGUAGE plpgsql AS $$
BEGIN RAISE SQLSTATE 'PT402' USING MESSAGE = 'Payment Required'; END $$;
CREATE FUNCTION raise_pgrst() RETURNS void LANGUAGE plpgsql AS $$
BEGIN RAISE SQLSTATE 'PGRST' USING MESSAGE = '{"code":"123","message":"Payment Required","details":"Quota exceeded","hint":"Upgrade your plan"}',
  DETAIL = '{"status":402,"headers":{"X-Powered-By":"Nerd Rage"}}'; END $$;
CREATE FUNCTION set_headers() RETURNS int LANGUAGE plpgsql STABLE AS $$
BEGIN
  PERFORM set_config('response.headers', '[{"X-Custom":"yes"},{"Cache-Control":"no-cache"}]', true);
  PERFORM set_config('response.status', '202', true);
  RETURN 1;
END $$;
CREATE FUNCTION whoami() RETURNS json LANGUAGE sql STABLE AS $$
  SELECT json_build_object('role', current_user, 'sub', auth.uid(), 'method', current_setting('request.method'),
    'path', current_setting('request.path'), 'ip', current_setting('request.headers')::json->>'x-real-ip',
    'timeout', current_setting('statement_timeout'), 'cookie', current_setting('request.cookies')::json->>'session')
$$;

GRANT ALL ON ALL TABLES IN SCHEMA public TO anon, authenticated, service_role;
GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO anon, authenticated, service_role;

INSERT INTO users VALUES
  ('supabot', '{"foo":{"bar":{"baz":0}}}', '[1,2)', 'ONLINE', 'fat cat'),
  ('kiwicopple', '{"foo":{"bar":{"baz":1}}}', '[25,35)', 'OFFLINE', 'cat bat'),
  ('awailas', '{"foo":{"bar":{"baz":2}}}', '[25,35)', 'ONLINE', 'bat rat'),
  ('dragarcia', '{"foo":{"bar":{"baz":3}}}', '[20,30)', 'ONLINE', 'rat fat');
INSERT INTO channels(data, slug) VALUES (null, 'public'), (null, 'random');
INSERT INTO channel_details VALUES (1, 'details for public');
INSERT INTO messages(data, message, username, channel_id) VALUES
  (null, 'Hello World 👋', 'supabot', 1),
  (null, 'Perfection is attained, not when there is nothing more to add, but when there is nothing left to take away.', 'supabot', 2),
  (null, 'Supabase Launch Week is on fire', 'supabot', 1);
INSERT INTO best_friends(first_user, second_user, third_wheel) VALUES
  ('supabot', 'kiwicopple', 'awailas'), ('supabot', 'dragarcia', null);
INSERT INTO products(name, price) VALUES ('Laptop', 999.99), ('Phone', 499.5), ('Desk', 120);
INSERT INTO categories(name) VALUES ('Electronics'), ('Furniture');
INSERT INTO product_categories VALUES (1, 1), (2, 1), (3, 2);
INSERT INTO collections(name, parent_id) VALUES ('root', null), ('child a', 1), ('child b', 1), ('grandchild', 2);
INSERT INTO cornercase VALUES (1, 'foo', '{a,b}'), (2, 'bar', '{"c,d",e}');
INSERT INTO notes(owner, body, public) VALUES
  ('11111111-1111-1111-1111-111111111111', 'alice private', false),
  ('11111111-1111-1111-1111-111111111111', 'alice public', true),
  ('22222222-2222-2222-2222-222222222222', 'bob private', false);
INSERT INTO personal.users VALUES ('personal_bot', 'ONLINE');

-- Computed field: exposed as messages.blurb, selectable, filterable, orderable.
CREATE FUNCTION blurb(messages) RETURNS text LANGUAGE sql STABLE AS $$ SELECT substring($1.message, 1, 5) $$;

-- Write-only for anon: inserts without a SELECT policy (like a signup list).
CREATE TABLE inbox (id serial PRIMARY KEY, email text NOT NULL);
ALTER TABLE inbox ENABLE ROW LEVEL SECURITY;
CREATE POLICY inbox_insert ON inbox FOR INSERT TO anon WITH CHECK (true);
GRANT INSERT ON inbox TO anon;
GRANT USAGE ON SEQUENCE inbox_id_seq TO anon;
INSERT INTO hidden.labels VALUES (1, 1, 'general'), (2, 1, 'busy');
