"""A real calculators stack in subprocesses: migrate, a gunicorn web server and a Celery
worker, sharing one SQLite file and the broker (Redis when REDIS_URL is set, else the
embedded filesystem transport under the stack's own var dir).

Used by the worker and browser tests and by benchmarks/calculators.py, so they exercise
the same processes production runs, not eager mode. Processes are stopped by the pids
started here.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable


@dataclass
class Stack:
    base_url: str
    workdir: Path
    env: dict[str, str]
    db_path: Path
    procs: list[subprocess.Popen] = field(default_factory=list)

    def api(self, path: str) -> str:
        return f"{self.base_url}/api/v1/calculators/{path.lstrip('/')}"

    def stop_worker(self) -> None:
        for proc in list(self.procs):
            if "celery" in " ".join(proc.args):
                _stop(proc)
                self.procs.remove(proc)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)


def stack_env(
    workdir: Path,
    redis_url: str | None,
    *,
    database_url: str | None = None,
    settings_module: str = "inferview.settings.base",
) -> dict[str, str]:
    """The stack's environment: its own SQLite file unless ``database_url`` names another
    database (benchmarks/calculators.py measures the production pair that way)."""
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL")}
    env.update(
        DJANGO_SETTINGS_MODULE=settings_module,
        INFERVIEW_VAR_DIR=str(workdir),
        DATABASE_URL=database_url or f"sqlite:///{workdir / 'stack.sqlite3'}",
        DEBUG="true",
        PYTHONPATH=str(ROOT),
        LOG_LEVEL="WARNING",
        PYTHONUNBUFFERED="1",
    )
    if redis_url:
        env["REDIS_URL"] = redis_url
        # The shared Redis outlives the stack: a key prefix of its own keeps this stack's
        # rate-limit counts from adding to earlier stacks' (and earlier runs') posts.
        env["CACHE_KEY_PREFIX"] = f"stack-{uuid.uuid4().hex[:12]}"
    return env


@contextlib.contextmanager
def running_stack(
    workdir: Path,
    *,
    redis_url: str | None = None,
    worker: bool = True,
    web_workers: int = 2,
    concurrency: int = 2,
    database_url: str | None = None,
    settings_module: str = "inferview.settings.base",
    extra_env: dict[str, str] | None = None,
) -> Iterator[Stack]:
    workdir.mkdir(parents=True, exist_ok=True)
    env = stack_env(workdir, redis_url, database_url=database_url, settings_module=settings_module)
    env.update(extra_env or {})
    subprocess.run(
        [PYTHON, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=300,
    )
    port = _free_port()
    stack = Stack(f"http://127.0.0.1:{port}", workdir, env, workdir / "stack.sqlite3")
    logs = workdir / "logs"
    logs.mkdir(exist_ok=True)
    try:
        stack.procs.append(
            subprocess.Popen(
                [
                    PYTHON,
                    "-m",
                    "gunicorn",
                    "inferview.wsgi:application",
                    "-b",
                    f"127.0.0.1:{port}",
                    "-w",
                    str(web_workers),
                    "--threads",
                    "4",
                    "--log-level",
                    "warning",
                ],
                cwd=ROOT,
                env=env,
                stdout=open(logs / "web.log", "w"),
                stderr=subprocess.STDOUT,
            )
        )
        if worker:
            start_worker(stack, concurrency=concurrency)
        _wait_for_http(stack.base_url + "/calculators/", timeout=60)
        yield stack
    finally:
        for proc in reversed(stack.procs):
            _stop(proc)


def start_worker(stack: Stack, *, concurrency: int = 2) -> None:
    logs = stack.workdir / "logs"
    stack.procs.append(
        subprocess.Popen(
            [
                PYTHON,
                "-m",
                "celery",
                "-A",
                "inferview",
                "worker",
                "-Q",
                "calculators",
                "--pool",
                "prefork",
                "-c",
                str(concurrency),
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "-l",
                "warning",
                "-n",
                f"calc-test-{os.getpid()}@%h",
            ],
            cwd=ROOT,
            env=stack.env,
            stdout=open(logs / "worker.log", "a"),
            stderr=subprocess.STDOUT,
        )
    )


def _wait_for_http(url: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        try:
            if requests.get(url, timeout=2).status_code == 200:
                return
        except requests.RequestException as exc:
            last = exc
        time.sleep(0.2)
    raise RuntimeError(f"web server did not come up at {url}: {last}")


def wait_for_run(
    session: requests.Session, url: str, timeout: float = 60, interval: float = 0.05
) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        run = session.get(url, timeout=10).json()
        if run["status"] in ("done", "failed"):
            return run
        if time.monotonic() > deadline:
            raise TimeoutError(f"run still {run['status']} after {timeout}s: {url}")
        time.sleep(interval)
