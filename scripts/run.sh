#!/usr/bin/env bash
# Runs the web server, a Celery worker and Celery beat (scheduled publishing) together;
# Ctrl-C stops all three.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
HOST="${HOST:-127.0.0.1}"
PORT="${PORT:-8000}"

# The worker wrapper stops within a few seconds of TERM/INT (scripts/worker.sh).
bash scripts/worker.sh &
WORKER=$!
# Exactly one beat process: it only queues questions.publish_due every 30 s (settings).
"$BIN/celery" -A inferview beat --loglevel "${BEAT_LOGLEVEL:-WARNING}" &
BEAT=$!
trap 'kill -TERM $WORKER $BEAT 2>/dev/null || true; wait $WORKER $BEAT 2>/dev/null || true' EXIT INT TERM

if [ "${DEBUG:-true}" = "false" ]; then
  "$BIN/python" manage.py collectstatic --noinput >/dev/null
  "$BIN/gunicorn" inferview.wsgi --bind "$HOST:$PORT" --workers "${WEB_WORKERS:-3}"
else
  echo "Inferview on http://$HOST:$PORT/ (admin at /admin/; create a user with: .venv/bin/python manage.py createsuperuser)"
  "$BIN/python" manage.py runserver "$HOST:$PORT"
fi
