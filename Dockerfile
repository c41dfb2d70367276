# One image for every role: web (gunicorn), worker (celery) and the one-shot migrate.
FROM python:3.11-slim-bookworm

ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DJANGO_SETTINGS_MODULE=inferview.settings.production \
    INFERVIEW_VAR_DIR=/tmp/inferview \
    STATIC_ROOT=/app/staticfiles

WORKDIR /app
# Dependencies first, so a code change does not reinstall them.
COPY pyproject.toml ./
# PyICU (display-name skeletons) compiles against ICU: the compiler goes after the build.
RUN apt-get update \
 && apt-get install -y --no-install-recommends g++ pkg-config libicu-dev \
 && pip install . \
 && apt-get purge -y g++ pkg-config && apt-get autoremove -y && rm -rf /var/lib/apt/lists/*
COPY . .
# Static files are built once, here, into whitenoise's manifest of hashed names; no web
# process collects them at start. The secret is a throwaway for this one command.
RUN SECRET_KEY="build-only-$(python -c 'import secrets; print(secrets.token_hex(32))')" \
    DATABASE_URL=sqlite:////tmp/build.sqlite3 \
    python manage.py collectstatic --noinput --verbosity 0 \
 && useradd --system --uid 10001 --home /app inferview

USER inferview
EXPOSE 8000
# compose.yaml and the Procfile set the command per role; the default is the web server.
CMD ["gunicorn", "-c", "gunicorn.conf.py", "inferview.wsgi"]
