#!/usr/bin/env bash
# Back up the PostgreSQL database with pg_dump: one compressed, self-describing archive
# (custom format, restored with scripts/restore.sh or pg_restore), written under a
# temporary name, checked with `pg_restore --list`, then renamed, so a file that looks
# finished always is. Old archives beyond BACKUP_KEEP are removed.
#
#   DATABASE_URL=postgres://user:pass@host:5432/inferview scripts/backup.sh [DIR]
#
# DIR defaults to $BACKUP_DIR, then var/backups. Prints the archive's path.
# pg_dump takes a consistent snapshot of a live database (one transaction), so the site
# keeps running; it never blocks writers. Use pg_dump from the server's major version or
# newer (compose runs it from the postgres image itself).
set -euo pipefail

: "${DATABASE_URL:?set DATABASE_URL to the PostgreSQL database to back up}"
case "$DATABASE_URL" in
  postgres://*|postgresql://*) ;;
  *) echo "backup.sh: DATABASE_URL must be a postgres:// URL (SQLite: copy the file)" >&2; exit 2 ;;
esac
dir="${1:-${BACKUP_DIR:-var/backups}}"
keep="${BACKUP_KEEP:-14}"
case "$keep" in ''|*[!0-9]*) echo "backup.sh: BACKUP_KEEP must be a whole number" >&2; exit 2 ;; esac
mkdir -p "$dir"

stamp="$(date -u +%Y%m%dT%H%M%SZ)"
final="$dir/inferview-$stamp.dump"
partial="$final.partial"
trap 'rm -f "$partial"' EXIT

# --no-owner/--no-privileges: the archive restores into a database owned by whoever
# restores it (a fresh server, another role), not only into one with the same roles.
pg_dump --format=custom --compress=6 --no-owner --no-privileges \
  --file="$partial" --dbname="$DATABASE_URL"
pg_restore --list "$partial" >/dev/null   # a truncated or corrupt archive fails here
mv "$partial" "$final"
trap - EXIT

# Keep the newest $keep archives (names sort by time).
if [ "$keep" -gt 0 ]; then
  ls -1 "$dir"/inferview-*.dump 2>/dev/null | sort -r | tail -n +"$((keep + 1))" | while read -r old; do
    rm -f -- "$old"
  done
fi
echo "$final"
