-- Cron: the engine is pg_cron (cron.schedule, cron.unschedule,
-- cron.alter_job, cron.job, cron.job_run_details). It runs inside the
-- database server, so however many Basalt nodes share the database, each
-- tick runs once. pg_cron only works where the server preloads it
-- (shared_preload_libraries) with cron.database_name naming this database,
-- and only a superuser can create it; basalt.enable_cron() creates it when
-- all of that holds (here, and again on every start, so a server set up
-- later is picked up) and basalt.cron_status() says what is missing.

-- The state of pg_cron in this database, and how to enable it when it is
-- off: {"enabled": bool, "version": text, "seconds": bool, "problem": text}.
CREATE OR REPLACE FUNCTION basalt.cron_status() RETURNS jsonb
LANGUAGE plpgsql STABLE SET search_path = '' AS $$
DECLARE
  installed text := (SELECT extversion FROM pg_catalog.pg_extension WHERE extname = 'pg_cron');
  available boolean := EXISTS (SELECT FROM pg_catalog.pg_available_extensions WHERE name = 'pg_cron');
  -- The setting exists only when the library is loaded.
  cron_db text := current_setting('cron.database_name', true);
  major int := current_setting('server_version_num')::int / 10000;
  v int[];
  enable text;
BEGIN
  enable := format('add pg_cron to shared_preload_libraries, set cron.database_name = %L and restart PostgreSQL',
    current_database());
  IF installed IS NOT NULL THEN
    v := (SELECT array_agg(x::int) FROM unnest(regexp_match(installed, '^(\d+)\.(\d+)')) AS x);
    RETURN jsonb_build_object('enabled', true, 'version', installed,
      -- Second-granularity schedules ('5 seconds') came with pg_cron 1.5.
      'seconds', v >= ARRAY[1, 5]);
  END IF;
  IF NOT available THEN
    RETURN jsonb_build_object('enabled', false, 'problem', format(
      'pg_cron is not installed on the database server: install it (Debian/Ubuntu: apt-get install postgresql-%s-cron), then %s',
      major, enable));
  END IF;
  IF cron_db IS NULL THEN
    RETURN jsonb_build_object('enabled', false, 'problem', 'pg_cron is installed but not loaded: ' || enable);
  END IF;
  IF cron_db <> current_database() THEN
    RETURN jsonb_build_object('enabled', false, 'problem', format(
      'pg_cron runs jobs of database %L, not %L: set cron.database_name = %L and restart PostgreSQL',
      cron_db, current_database(), current_database()));
  END IF;
  RETURN jsonb_build_object('enabled', false, 'problem',
    'pg_cron is loaded for this database but not created: run CREATE EXTENSION pg_cron as a superuser');
END
$$;

-- Creates pg_cron when the server is ready for it and the role may; never
-- fails (a role that may not create it leaves the status saying so).
CREATE OR REPLACE FUNCTION basalt.enable_cron() RETURNS jsonb
LANGUAGE plpgsql SET search_path = '' AS $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_extension WHERE extname = 'pg_cron')
     AND current_setting('cron.database_name', true) = current_database()
     AND EXISTS (SELECT FROM pg_catalog.pg_available_extensions WHERE name = 'pg_cron') THEN
    BEGIN
      CREATE EXTENSION IF NOT EXISTS pg_cron WITH SCHEMA pg_catalog;
    EXCEPTION WHEN insufficient_privilege THEN
      NULL;
    END;
  END IF;
  RETURN basalt.cron_status();
END
$$;

REVOKE ALL ON FUNCTION basalt.cron_status(), basalt.enable_cron() FROM PUBLIC;

SELECT basalt.enable_cron();
