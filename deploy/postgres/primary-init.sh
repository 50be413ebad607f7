#!/bin/bash
# Runs once, when the primary's data directory is first initialised (the
# postgres image runs /docker-entrypoint-initdb.d/*). It lets the read
# replica stream WAL: a replication role, a slot that keeps the WAL the
# replica has not received yet, and a pg_hba.conf line for it.
set -euo pipefail
: "${REPLICATION_PASSWORD:?set REPLICATION_PASSWORD}"
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
    -v password="$REPLICATION_PASSWORD" <<'SQL'
CREATE ROLE replicator WITH REPLICATION LOGIN PASSWORD :'password';
SELECT pg_create_physical_replication_slot('basalt_replica');
SQL
echo "host replication replicator all scram-sha-256" >> "$PGDATA/pg_hba.conf"
