#!/usr/bin/env bash
# Build step for a host without containers, run on each host with its copy of the code:
# install the pinned dependencies and collect static files into whitenoise's manifest.
set -euo pipefail
cd "$(dirname "$0")/.."
test -x .venv/bin/python || python3 -m venv .venv
.venv/bin/pip install --quiet .
.venv/bin/python manage.py collectstatic --noinput --verbosity 0
