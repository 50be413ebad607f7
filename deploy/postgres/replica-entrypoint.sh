#!/bin/bash
# The read replica: on first start, copy the primary with pg_basebackup -R
# (which writes standby.signal and primary_conninfo), then run PostgreSQL as
# a hot standby streaming from the primary's slot. Runs as user postgres.
set -euo pipefail
: "${PGDATA:=/var/lib/postgresql/data}"
: "${PRIMARY_HOST:=db}"
: "${PGPASSWORD:?set PGPASSWORD to the replication password}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    until pg_isready -q -h "$PRIMARY_HOST" -p 5432; do sleep 1; done
    pg_basebackup -h "$PRIMARY_HOST" -p 5432 -U replicator -D "$PGDATA" \
        -R -X stream -c fast -S basalt_replica
    chmod 0700 "$PGDATA"
fi
# hot_standby_feedback: long reads on the replica are not cancelled by the
# primary's vacuum (at the cost of some bloat on the primary).
exec postgres -c hot_standby=on -c hot_standby_feedback=on
