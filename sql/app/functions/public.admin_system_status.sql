-- System status: the database (up, version, size, connections), the
-- migrations applied, queues waiting on people or providers, and the
-- replication slots realtime reads from (lag in bytes) once it runs. The
-- gateway's own figures (version, /metrics) are read by the app from the API.
CREATE OR REPLACE FUNCTION public.admin_system_status() RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  migrations jsonb;
  slots jsonb;
BEGIN
  PERFORM backline.admin_actor();
  IF to_regclass('basalt.schema_migrations') IS NOT NULL THEN
    EXECUTE $q$SELECT jsonb_object_agg(source, jsonb_build_object('version', version, 'name', name, 'applied_at', applied_at))
      FROM (SELECT DISTINCT ON (source) source, version, name, applied_at FROM basalt.schema_migrations
            ORDER BY source, length(version) DESC, version DESC) m$q$ INTO migrations;
  END IF;
  BEGIN
    SELECT coalesce(jsonb_agg(jsonb_build_object('name', slot_name, 'active', active, 'plugin', plugin,
        'lag_bytes', pg_wal_lsn_diff(pg_current_wal_lsn(), coalesce(confirmed_flush_lsn, restart_lsn))) ORDER BY slot_name), '[]')
      INTO slots FROM pg_replication_slots WHERE database = current_database();
  EXCEPTION WHEN OTHERS THEN
    slots := NULL; -- not readable here (a hot standby, or no privilege)
  END;
  RETURN jsonb_build_object(
    'database', jsonb_build_object('up', true, 'version', current_setting('server_version'),
      'size_bytes', pg_database_size(current_database()), 'started_at', pg_postmaster_start_time(),
      'connections', (SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()),
      'max_connections', current_setting('max_connections')::int),
    'migrations', migrations,
    'payments_pending', (SELECT jsonb_build_object('count', count(*), 'oldest', min(created_at),
        'older_than_hour', count(*) FILTER (WHERE created_at < now() - interval '1 hour'))
      FROM public.payments WHERE status = 'pending'),
    'cashouts_pending', (SELECT jsonb_build_object('count', count(*), 'amount', coalesce(sum(amount), 0))
      FROM public.cashout_requests WHERE status = 'pending'),
    'kyc_pending', (SELECT count(*) FROM public.kyc_submissions WHERE status = 'pending'),
    'replication_slots', slots,
    'checked_at', now());
END $$;

REVOKE ALL ON FUNCTION public.admin_system_status() FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.admin_system_status() TO authenticated, service_role;
