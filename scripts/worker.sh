#!/usr/bin/env bash
# A Celery worker that stops within a few seconds of SIGTERM or Ctrl-C.
#
# Celery's warm shutdown lets running tasks finish, then its pool threads wind down on
# one-second sleeps, which on a loaded machine took 4-7 s (and `make run` once left the
# main process behind). This wrapper forwards TERM/INT, asks for a cold shutdown (QUIT)
# after STOP_GRACE_DS tenths of a second, and kills what is left a second later. Calculator tasks are
# idempotent and acknowledged late, so a task cut short is delivered again.
#
# If celery exits without being asked to (crashed, killed), it is started again after 1 s.
#
# The embedded default (no REDIS_URL) runs the threads pool: kombu's filesystem transport
# has no event loop, and billiard's prefork helpers are what made stopping slow there.
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
STOP_GRACE_DS="${STOP_GRACE_DS:-25}"  # tenths of a second before the cold shutdown
POOL="${WORKER_POOL:-}"
if [ -z "$POOL" ]; then
  if [ -n "${REDIS_URL:-}" ]; then POOL=prefork; else POOL=threads; fi
fi

start() {
  "$BIN/celery" -A inferview worker --queues default,calculators --pool "$POOL" \
    --concurrency "${WORKER_CONCURRENCY:-2}" --without-mingle --without-gossip \
    --loglevel "${WORKER_LOGLEVEL:-INFO}" &
  WORKER=$!
}

# Every descendant of a process, read from /proc (no pkill: procps may be missing).
descendants() {
  local parent=$1 stat rest child
  for stat in /proc/[0-9]*/stat; do
    rest=$(cat "$stat" 2>/dev/null) || continue
    rest=${rest##*) }          # after the command name, which may hold spaces
    set -- $rest               # state ppid ...
    if [ "${2:-}" = "$parent" ]; then
      child=${stat#/proc/}; child=${child%/stat}
      echo "$child"
      descendants "$child"
    fi
  done
}

stop() {
  trap - TERM INT
  kill -TERM "$WORKER" 2>/dev/null
  local waited=0
  while kill -0 "$WORKER" 2>/dev/null; do
    sleep 0.1
    waited=$((waited + 1))
    if [ "$waited" -eq "$STOP_GRACE_DS" ]; then
      kill -QUIT "$WORKER" 2>/dev/null
    fi
    if [ "$waited" -ge "$((STOP_GRACE_DS + 10))" ]; then
      # Freeze the main process first, so it cannot fork a new pool child between our
      # reading its children and killing it; then kill every descendant, then it.
      kill -STOP "$WORKER" 2>/dev/null
      for pid in $(descendants "$WORKER"); do kill -KILL "$pid" 2>/dev/null; done
      kill -KILL "$WORKER" 2>/dev/null
      break
    fi
  done
  wait "$WORKER" 2>/dev/null
  exit 0
}
trap stop TERM INT
start
# A worker that exits by itself (a crash, an OOM kill, a broker error it gave up on) is
# started again, so `make run` never sits with a web server and no worker. TERM/INT
# still stop everything through the trap above, which exits.
while true; do
  wait "$WORKER"
  echo "worker.sh: celery exited with status $?; starting it again in 1 s" >&2
  sleep 1
  start
done
