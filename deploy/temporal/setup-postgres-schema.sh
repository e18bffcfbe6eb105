#!/bin/sh
# Creates Temporal's two PostgreSQL databases (persistence and visibility) and brings both schemas up to
# the version this admin-tools image ships with. Runs in temporalio/admin-tools as the one-shot
# `temporal-schema` service of docker-compose.temporal.yml. Safe to run again: `create` and `setup-schema`
# fail harmlessly on an existing database, and `update-schema` is how a server upgrade gets its changes.
set -eu

: "${POSTGRES_SEEDS:?POSTGRES_SEEDS (host of the Temporal PostgreSQL) is required}"
: "${POSTGRES_USER:?POSTGRES_USER is required}"
: "${SQL_PASSWORD:?SQL_PASSWORD is required}"
DB_PORT="${DB_PORT:-5432}"
SCHEMA_DIR=/etc/temporal/schema/postgresql/v12

sql_tool() {
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "$DB_PORT" -u "$POSTGRES_USER" "$@"
}

echo "waiting for PostgreSQL at ${POSTGRES_SEEDS}:${DB_PORT}"
until nc -z -w 5 "$POSTGRES_SEEDS" "$DB_PORT"; do sleep 2; done

for db in temporal temporal_visibility; do
  case "$db" in
    temporal) dir="$SCHEMA_DIR/temporal/versioned" ;;
    *) dir="$SCHEMA_DIR/visibility/versioned" ;;
  esac
  sql_tool --db "$db" create || echo "database $db already exists"
  sql_tool --db "$db" setup-schema -v 0.0 || echo "schema of $db already initialised"
  sql_tool --db "$db" update-schema -d "$dir"
done
echo "temporal schema setup complete"
