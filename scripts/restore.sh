#!/usr/bin/env bash
# Restore an archive made by scripts/backup.sh into a PostgreSQL database, with
# pg_restore, in one transaction: it either restores completely or leaves the database
# as it was.
#
#   DATABASE_URL=postgres://user:pass@host:5432/inferview_restored scripts/restore.sh FILE
#
# The target must exist and be empty (createdb it first): restoring over a live database
# is refused, so a slip of the URL cannot overwrite production. `--replace` drops the
# target's objects first (pg_restore --clean) for a deliberate restore over it.
# Then run `manage.py migrate` (a no-op unless the code is newer than the backup).
set -euo pipefail

replace=""
if [ "${1:-}" = "--replace" ]; then replace=1; shift; fi
file="${1:?usage: restore.sh [--replace] FILE}"
: "${DATABASE_URL:?set DATABASE_URL to the PostgreSQL database to restore into}"
case "$DATABASE_URL" in
  postgres://*|postgresql://*) ;;
  *) echo "restore.sh: DATABASE_URL must be a postgres:// URL" >&2; exit 2 ;;
esac
[ -r "$file" ] || { echo "restore.sh: cannot read $file" >&2; exit 2; }
pg_restore --list "$file" >/dev/null

tables="$(psql --dbname="$DATABASE_URL" -tAc \
  "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")"
if [ "$tables" != "0" ] && [ -z "$replace" ]; then
  echo "restore.sh: the target database already has $tables tables; restore into an empty" \
       "database, or pass --replace to drop them first" >&2
  exit 3
fi

pg_restore --no-owner --no-privileges --exit-on-error --single-transaction \
  ${replace:+--clean --if-exists} --dbname="$DATABASE_URL" "$file"
echo "restored $file"
