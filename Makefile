# The two commands of the README:
#   make run   set up and run the site (web + Celery worker), migrated, starter content loaded
#   make test  set up and run the tests (lint, deploy checks, pytest)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test install lint check-deploy migrate clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet ".[test]"
	touch $(STAMP)

install: $(STAMP)

migrate: install
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py createcachetable

run: migrate
	$(BIN)/python manage.py import_content --only-new
	bash scripts/run.sh

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/mypy

check-deploy: install
	DJANGO_SETTINGS_MODULE=inferview.settings.production DEBUG=false \
	SECRET_KEY=ci-only-$$(printf '%064d' 0)-deploy-check ALLOWED_HOSTS=inferview.example \
	$(BIN)/python manage.py check --deploy --fail-level WARNING

# Without PostgreSQL the tests that need it are deselected (not skipped): see the
# "postgres" marker in pyproject.toml. CI runs them in its PostgreSQL + Redis pass.
PYTEST_ARGS ?= $(if $(filter postgres%,$(DATABASE_URL)),,-m "not postgres")

test: install lint check-deploy
	$(BIN)/python manage.py makemigrations --check --dry-run
	$(BIN)/pytest $(PYTEST_ARGS)

clean:
	rm -rf var staticfiles .pytest_cache
