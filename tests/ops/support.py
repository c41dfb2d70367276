"""Helpers for the ops tests: free ports, throwaway databases, waiting on HTTP, and
stopping exactly the processes a test started."""

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
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import requests

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
BIN = Path(PYTHON).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_http(url: str, timeout: float, proc: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + timeout
    last: object = None
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode} before {url} answered")
        try:
            response = requests.get(url, timeout=2)
            if response.status_code == 200:
                return
            last = response.status_code
        except requests.RequestException as exc:
            last = exc
        time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer 200 within {timeout} s: {last}")


def stop(proc: subprocess.Popen, timeout: float = 10, sig: int = signal.SIGTERM) -> None:
    """Stop one process we started (its whole session, if it leads one)."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=5)


def base_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL")}
    env.update(
        PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1", DJANGO_SETTINGS_MODULE="inferview.settings.base"
    )
    env.update(extra)
    return env


@contextlib.contextmanager
def fresh_database(workdir: Path) -> Iterator[str]:
    """An empty database of the kind the suite runs on: a new PostgreSQL database on the
    DATABASE_URL server (dropped afterwards), else a new SQLite file."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        yield f"sqlite:///{workdir / 'fresh.sqlite3'}"
        return
    import psycopg

    name = f"inferview_ops_{uuid.uuid4().hex[:10]}"
    parts = urlsplit(url)
    admin_url = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlunsplit(parts._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
