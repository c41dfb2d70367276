"""Production plumbing in-process: health probes, request ids and JSON logs, the Content
Security Policy, and the production settings' deploy checks."""

import json
import logging
import re
import time
from pathlib import Path

import pytest

from inferview import health

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.django_db(transaction=True)
def test_healthz_answers_without_touching_anything_and_skips_host_checks(client):
    response = client.get("/healthz", HTTP_HOST="10.1.2.3:8000")  # a probe's bare pod IP
    assert response.status_code == 200 and response.json() == {"status": "ok"}
    assert response["Cache-Control"] == "no-store"


@pytest.mark.django_db(transaction=True)
def test_readyz_is_ready_when_database_and_broker_answer(client):
    response = client.get("/readyz")
    assert response.status_code == 200, response.content
    assert response.json()["checks"] == {"database": "ok", "broker": "ok"}


@pytest.mark.django_db(transaction=True)
def test_readyz_names_an_unreachable_broker_within_its_timeout(client, settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:9/0"  # nothing listens on the discard port
    started = time.monotonic()
    response = client.get("/readyz")
    assert time.monotonic() - started < health.CHECK_TIMEOUT_SECONDS + 0.5
    assert response.status_code == 503 and response["Retry-After"]
    body = response.json()
    assert body["failed"] == ["broker"] and body["checks"]["database"] == "ok"


def test_readyz_names_a_hung_database_and_does_not_wait_for_it(client, monkeypatch):
    monkeypatch.setattr(health, "CHECK_TIMEOUT_SECONDS", 0.2)
    monkeypatch.setitem(health.CHECKS, "database", lambda: time.sleep(1))
    monkeypatch.setitem(health.CHECKS, "broker", lambda: None)
    started = time.monotonic()
    response = client.get("/readyz")
    assert time.monotonic() - started < 0.8
    assert response.status_code == 503
    assert response.json()["failed"] == ["database"]
    assert "timed out" in response.json()["checks"]["database"]


def test_every_response_carries_a_request_id_and_echoes_a_sane_incoming_one(db, client):
    generated = client.get("/healthz-nope-404")["X-Request-ID"]
    assert re.fullmatch(r"[0-9a-f]{32}", generated)
    assert client.get("/", HTTP_X_REQUEST_ID="lb-1234abcd")["X-Request-ID"] == "lb-1234abcd"
    hostile = client.get("/", HTTP_X_REQUEST_ID="x\nFAKE LOG LINE")["X-Request-ID"]
    assert "FAKE" not in hostile and re.fullmatch(r"[0-9a-f]{32}", hostile)


def test_log_records_written_during_a_request_carry_its_id_as_json(db, client, caplog):
    from pythonjsonlogger.json import JsonFormatter

    from inferview.requestlog import RequestIdFilter

    with caplog.at_level(logging.INFO, logger="inferview.request"):
        response = client.get("/", HTTP_X_REQUEST_ID="trace-abcdef12")
    record = next(r for r in caplog.records if r.name == "inferview.request")
    RequestIdFilter().filter(record)
    assert record.request_id == "trace-abcdef12" == response["X-Request-ID"]
    line = JsonFormatter(
        "%(asctime)s %(levelname)s %(name)s %(request_id)s %(message)s",
        rename_fields={"levelname": "level"},
    ).format(record)
    parsed = json.loads(line)
    assert parsed["request_id"] == "trace-abcdef12" and parsed["status"] == response.status_code
    assert parsed["level"] == "INFO" and parsed["path"] == "/"


def test_pages_send_a_content_security_policy_without_inline_scripts(db, client):
    policy = client.get("/")["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";") if part.strip())
    assert directives["script-src"] == "'self'"
    assert "unsafe-inline" not in directives["script-src"]
    assert "unsafe-eval" not in policy
    assert directives["frame-ancestors"] == "'none'" and directives["object-src"] == "'none'"


# An executable <script> has no src and no JSON type; on*= attributes are inline handlers.
INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*application/(?:ld\+)?json)[^>]*>", re.I)
INLINE_HANDLER = re.compile(r"<[a-z][^>]*\son[a-z]+\s*=", re.I)


def test_no_template_has_an_inline_script_or_event_handler():
    offenders = []
    for path in sorted((ROOT / "templates").rglob("*.html")):
        text = path.read_text()
        for pattern in (INLINE_SCRIPT, INLINE_HANDLER):
            offenders += [f"{path.relative_to(ROOT)}: {m.group(0)}" for m in pattern.finditer(text)]
    assert offenders == []


def test_the_patterns_would_catch_inline_code():
    assert INLINE_SCRIPT.search("<script>alert(1)</script>")
    assert INLINE_HANDLER.search('<button onclick="go()">')
    assert not INLINE_SCRIPT.search('<script type="application/json" id="d">{}</script>')
    assert not INLINE_SCRIPT.search('<script src="/static/js/site.js" defer></script>')


def test_production_settings_are_hardened():
    import subprocess
    import sys

    env = {
        "PATH": "/usr/bin:/bin",
        "DJANGO_SETTINGS_MODULE": "inferview.settings.production",
        "SECRET_KEY": "x" * 60,
        "ALLOWED_HOSTS": "inferview.example",
        "DATABASE_URL": "postgres://u:p@127.0.0.1:5432/db",
        "REDIS_URL": "redis://127.0.0.1:6379/0",
    }
    code = (
        "import django; django.setup(); from django.conf import settings as s; import json;"
        "print(json.dumps([s.SECURE_HSTS_SECONDS, s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE,"
        " s.DATABASES['default']['CONN_HEALTH_CHECKS'], s.DATABASES['default']['CONN_MAX_AGE'],"
        " s.STORAGES['staticfiles']['BACKEND'], s.CACHES['default']['BACKEND'],"
        " s.CELERY_BROKER_TRANSPORT_OPTIONS['visibility_timeout'],"
        " s.LOGGING['handlers']['console']['formatter']]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    ).stdout
    assert json.loads(out) == [
        31536000,
        True,
        True,
        True,
        60,
        "whitenoise.storage.CompressedManifestStaticFilesStorage",
        "inferview.cache.FailFastRedisCache",
        120,
        "json",
    ]


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/api/docs/", "/api/redoc/", "/admin/login/"])
def test_third_party_pages_run_no_inline_script(client, url):
    # The admin's sign-in now hands over to allauth's (for the second factor): follow it,
    # so the page checked is the one a browser ends on, not an empty redirect.
    response = client.get(url, follow=True)
    html = response.content.decode()
    assert response.status_code == 200 and ("<form" in html or "admin" not in url)
    assert INLINE_SCRIPT.findall(html) == [] and INLINE_HANDLER.findall(html) == []


@pytest.mark.django_db
def test_swagger_ui_start_up_script_is_served_as_a_file(client):
    html = client.get("/api/docs/").content.decode()
    (script_url,) = re.findall(r'<script src="(/api/docs/\?[^"]*script[^"]*)"', html)
    script = client.get(script_url.replace("&amp;", "&"))
    assert script.status_code == 200 and "javascript" in script["Content-Type"]
    assert "SwaggerUIBundle" in script.content.decode()
