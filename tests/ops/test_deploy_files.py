"""The deploy files describe many hosts correctly: compose.yaml (parsed, since CI has no
compose plugin), the Dockerfile, the Procfile and the gunicorn config."""

import logging
import re
import runpy
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def compose():
    return yaml.safe_load((ROOT / "compose.yaml").read_text())


def command_text(service) -> str:
    command = service.get("command", "")
    return " ".join(command) if isinstance(command, list) else str(command)


def migrates(text: str) -> bool:
    return "migrate" in text.split() or "release.sh" in text


def test_compose_has_every_role_with_restart_policies(compose):
    services = compose["services"]
    assert {"postgres", "broker", "cache", "migrate", "web", "worker"} <= set(services)
    for name in ("postgres", "broker", "cache", "web", "worker"):
        assert services[name]["restart"] in ("always", "unless-stopped"), name
    assert services["migrate"]["restart"] == "no"  # a one-shot, never rerun in a loop
    assert str(services["web"]["deploy"]["replicas"]).endswith(":-2}")
    assert str(services["worker"]["deploy"]["replicas"]).endswith(":-2}")
    assert "/healthz" in command_text({"command": services["web"]["healthcheck"]["test"]})


def test_only_the_migrate_service_migrates_and_the_app_waits_for_it(compose):
    services = compose["services"]
    migrating = [name for name, svc in services.items() if migrates(command_text(svc))]
    assert migrating == ["migrate"]
    for name in ("web", "worker"):
        assert services[name]["depends_on"]["migrate"] == {
            "condition": "service_completed_successfully"
        }
    release = (ROOT / "scripts/release.sh").read_text()
    assert "manage.py migrate --noinput" in release and "createcachetable" not in release


def test_the_broker_keeps_tasks_and_the_cache_may_evict(compose):
    broker = command_text(compose["services"]["broker"])
    assert "--appendonly yes" in broker and "--maxmemory-policy noeviction" in broker
    cache = command_text(compose["services"]["cache"])
    assert "allkeys-lru" in cache
    env = compose["x-app"]["environment"]
    assert env["REDIS_URL"].startswith("redis://broker:")
    assert env["CACHE_REDIS_URL"].startswith("redis://cache:")
    assert env["DJANGO_SETTINGS_MODULE"] == "inferview.settings.production"


def test_static_files_are_built_once_in_the_image(compose):
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert len(re.findall(r"manage\.py collectstatic", dockerfile)) == 1
    for name, service in compose["services"].items():
        assert "collectstatic" not in command_text(service), name
    assert "collectstatic" not in (ROOT / "Procfile").read_text()


def test_procfile_migrates_once_in_its_release_step():
    entries = dict(
        line.split(":", 1) for line in (ROOT / "Procfile").read_text().splitlines() if line
    )
    assert set(entries) == {"release", "web", "worker", "beat"}
    assert "release.sh" in entries["release"]
    assert "gunicorn -c gunicorn.conf.py" in entries["web"]
    assert "celery -A inferview worker" in entries["worker"]
    # scheduled publishing (issue 30): exactly one beat process, never inside a worker
    assert "celery -A inferview beat" in entries["beat"]
    assert "--beat" not in entries["worker"] and " -B" not in entries["worker"]
    assert not any(migrates(entries[name]) for name in ("web", "worker", "beat"))


def test_gunicorn_config_loads():
    code = (
        "from gunicorn.app.base import Application\n"
        "class A(Application):\n"
        "    def init(self, *a): return {}\n"
        "    def load(self): pass\n"
        "import sys; sys.argv=['x','-c','gunicorn.conf.py']\n"
        "c=A().cfg\n"
        "print(c.worker_class_str, c.timeout, c.max_requests, c.max_requests_jitter, c.accesslog)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["gthread", "30", "10000", "5000", "None"]


@pytest.fixture
def gunicorn_conf():
    return runpy.run_path(str(ROOT / "gunicorn.conf.py"))


def new_worker(cls):
    """A worker object as post_worker_init receives it, without forking one."""
    worker = cls.__new__(cls)
    worker.log = logging.getLogger("test.gunicorn")
    return worker


@pytest.fixture
def opened(monkeypatch):
    """Which connections post_worker_init opens (recorded, not opened)."""
    from django.core.cache import caches
    from django.db import connections

    calls = []
    monkeypatch.setattr(connections["default"], "ensure_connection", lambda: calls.append("db"))
    monkeypatch.setattr(caches["default"], "get", lambda *a, **k: calls.append("cache"))
    return calls


def test_sync_worker_opens_its_connections_before_its_first_request(gunicorn_conf, opened):
    from gunicorn.workers.sync import SyncWorker

    gunicorn_conf["post_worker_init"](new_worker(SyncWorker))
    assert sorted(opened) == ["cache", "db"]


def test_threaded_worker_opens_nothing_on_a_thread_that_serves_no_request(gunicorn_conf, opened):
    from gunicorn.workers.gthread import ThreadWorker

    gunicorn_conf["post_worker_init"](new_worker(ThreadWorker))
    assert opened == []


@pytest.mark.django_db
def test_worker_boots_when_the_database_is_down(gunicorn_conf, monkeypatch, caplog):
    from django.db import OperationalError, connections
    from gunicorn.workers.sync import SyncWorker

    def refuse():
        raise OperationalError("connection refused")

    monkeypatch.setattr(connections["default"], "ensure_connection", refuse)
    with caplog.at_level(logging.WARNING, logger="test.gunicorn"):
        gunicorn_conf["post_worker_init"](new_worker(SyncWorker))  # must not raise
    assert "warm-up skipped: OperationalError: connection refused" in caplog.text
