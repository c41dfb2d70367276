#!/usr/bin/env bash
# The release step: run ONCE per deploy, before the new web and worker processes start
# (the Procfile's `release:`, compose's `migrate` service). Migrations include the
# database cache table (questions 0007), so nothing else is needed for a fresh database.
# Static files are not collected here: each host builds them with its code
# (Dockerfile, or scripts/build.sh on hosts without containers).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python}"
[ -x .venv/bin/python ] && [ -z "${PYTHON:-}" ] && PY=.venv/bin/python
"$PY" manage.py migrate --noinput
