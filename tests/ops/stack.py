"""Real processes for the multi-process and fault tests: our own redis-server on a spare
port, gunicorn web servers and Celery workers, all against one migrated PostgreSQL
database. Every process is started here in its own session and stopped by its id."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import requests

from tests.ops.support import BIN, PYTHON, ROOT, base_env, free_port, stop, wait_for_http

SEED = """
from allauth.account.models import EmailAddress
from tests.factories import QuestionFactory, TrackFactory, UserFactory
track = TrackFactory(slug="ops-track")
question = QuestionFactory(track=track, number=1, slug="ops-question", access="open",
                           answer="The **ops** answer.")
users = []
for i in range(4):
    u = UserFactory(email=f"ops{i}@example.com")
    EmailAddress.objects.create(user=u, email=u.email, verified=True, primary=True)
    users.append(u.email)
import json
print("SEED" + json.dumps({"question_pk": question.pk, "question_url": question.get_absolute_url(),
                         "users": users}))
"""
PASSWORD = "correct horse battery staple"  # tests.factories.UserFactory's


def services_missing() -> str | None:
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        return "needs DATABASE_URL (PostgreSQL); CI's PostgreSQL+Redis run sets it"
    if not os.environ.get("REDIS_URL"):
        return "needs REDIS_URL; CI's PostgreSQL+Redis run sets it"
    if shutil.which("redis-server") is None:
        return "needs redis-server (installed by .ci/run)"
    return None


def migrate_and_seed(env: dict[str, str]) -> dict:
    subprocess.run(
        [PYTHON, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=300,
        capture_output=True,
    )
    out = subprocess.run(
        [PYTHON, "manage.py", "shell", "-c", SEED],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=120,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out.split("SEED", 1)[1])


class RedisServer:
    """Our own redis-server on a spare port: the tests stop, pause and restart it."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.workdir = workdir
        self.proc: subprocess.Popen | None = None
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.workdir),
            ],
            stdout=open(self.workdir / "redis.log", "a"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        import redis

        client = redis.Redis.from_url(self.url, socket_timeout=0.5, socket_connect_timeout=0.5)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                return
            except redis.RedisError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def stop(self) -> None:
        if self.proc is not None:
            self.resume()
            stop(self.proc)
            self.proc = None

    def pause(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGSTOP)

    def resume(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGCONT)


@dataclass
class Stack:
    workdir: Path
    env: dict[str, str]
    seed: dict
    webs: list[str] = field(default_factory=list)
    procs: dict[str, subprocess.Popen] = field(default_factory=dict)

    def start_web(self, name: str, workers: int = 1) -> str:
        port = free_port()
        self.procs[name] = subprocess.Popen(
            [
                str(BIN / "gunicorn"),
                "-c",
                "gunicorn.conf.py",
                "inferview.wsgi",
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                str(workers),
                "--threads",
                "4",
            ],
            cwd=ROOT,
            env=self.env,
            stdout=open(self.workdir / f"{name}.log", "a"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        url = f"http://127.0.0.1:{port}"
        self.webs.append(url)
        return url

    def start_worker(self, name: str, *, concurrency: int = 1, supervised: bool = False) -> None:
        log = open(self.workdir / f"{name}.log", "a")
        if supervised:  # scripts/worker.sh, which starts celery again if it dies
            command = ["bash", "scripts/worker.sh"]
            env = {**self.env, "WORKER_CONCURRENCY": str(concurrency), "WORKER_POOL": "prefork"}
        else:
            command = [
                str(BIN / "celery"),
                "-A",
                "inferview",
                "worker",
                "-Q",
                "default,calculators",
                "--pool",
                "prefork",
                "-c",
                str(concurrency),
                "--without-gossip",
                "--without-mingle",
                "-l",
                "INFO",
                "-n",
                f"{name}@%h",
            ]
            env = self.env
        self.procs[name] = subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def wait_ready(self, timeout: float = 60) -> None:
        for url in self.webs:
            wait_for_http(url + "/healthz", timeout)
        for name, proc in self.procs.items():
            if "worker" in name:
                wait_for_log(self.workdir / f"{name}.log", "ready.", timeout, proc)

    def stop_all(self) -> None:
        # A test's processes need no graceful shutdown: QUIT is Celery's cold shutdown
        # and gunicorn's quick one.
        # All signalled first, then waited for together.
        procs = list(self.procs.values())
        for proc in procs:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGQUIT)
        for proc in procs:
            if _waited(proc, 5) is None:
                stop(proc, timeout=5, sig=signal.SIGKILL)
        self.procs.clear()

    def db(self) -> psycopg.Connection:
        return psycopg.connect(self.env["DATABASE_URL"], autocommit=True)

    def run_row(self, run_id: str) -> tuple:
        with self.db() as conn:
            return conn.execute(
                "SELECT status, attempts, error FROM calculators_calculationrun WHERE id = %s",
                (run_id,),
            ).fetchone()


def _waited(proc: subprocess.Popen, timeout: float) -> int | None:
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


def wait_for_log(
    path: Path, text: str, timeout: float, proc: subprocess.Popen | None = None, count: int = 1
) -> None:
    deadline = time.monotonic() + timeout
    while path.read_text(errors="replace").count(text) < count:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"{path.name}: process exited\n{path.read_text()[-3000:]}")
        if time.monotonic() > deadline:
            raise TimeoutError(
                f"{path.name}: no {text!r} after {timeout} s\n{path.read_text()[-3000:]}"
            )
        time.sleep(0.05)


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                stat = (entry / "stat").read_text()
                # the command may hold spaces and parentheses: the ppid follows the last ")"
                if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
    return found


def sign_in(base: str, email: str, retry_for: float = 0) -> requests.Session:
    """A signed-in session; ``retry_for`` seconds of 503s are waited out (after an outage)."""
    deadline = time.monotonic() + retry_for
    while True:
        session = _sign_in_once(base, email)
        if isinstance(session, requests.Session):
            return session
        assert session.status_code == 503 and time.monotonic() < deadline, (
            session.status_code,
            session.text[:500],
        )
        time.sleep(0.1)


def _sign_in_once(base: str, email: str) -> requests.Session | requests.Response:
    session = requests.Session()
    session.get(base + "/accounts/login/", timeout=10)
    response = session.post(
        base + "/accounts/login/",
        data={
            "login": email,
            "password": PASSWORD,
            "csrfmiddlewaretoken": session.cookies["csrftoken"],
        },
        allow_redirects=False,
        timeout=10,
    )
    return session if response.status_code == 302 else response


def csrf_post(session: requests.Session, url: str, data: dict, **kwargs) -> requests.Response:
    return session.post(
        url,
        data={**data, "csrfmiddlewaretoken": session.cookies["csrftoken"]},
        allow_redirects=False,
        timeout=kwargs.pop("timeout", 10),
        **kwargs,
    )


def wait_for_run(base: str, run_id: str, timeout: float = 30) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        run = requests.get(f"{base}/api/v1/calculators/runs/{run_id}/", timeout=10).json()
        if run["status"] in ("done", "failed") or time.monotonic() > deadline:
            return run
        time.sleep(0.05)


def sweep_inputs(tag: int, points: int) -> dict:
    """kv_cache over ``points`` sequence lengths: long enough to be killed mid-run."""
    return {
        "inputs": {
            "layers": 32,
            "kv_heads": 8,
            "head_dim": 128,
            "seq_len": [1024 + tag * points + i for i in range(points)],
        }
    }


def stack_env(workdir: Path, database_url: str, redis_url: str, **extra: str) -> dict[str, str]:
    return base_env(
        DATABASE_URL=database_url,
        REDIS_URL=redis_url,
        INFERVIEW_VAR_DIR=str(workdir),
        DEBUG="true",  # the local payment provider works only with DEBUG
        PAYMENTS_LOCAL_PROVIDER="true",
        LOG_LEVEL="WARNING",
        REQUEST_LOG_LEVEL="WARNING",
        GUNICORN_LOG_LEVEL="warning",
        # every client of a test stack is 127.0.0.1, and the fault tests sign in again and
        # again while they wait out an outage: the per-IP login limit (tested on its own in
        # tests/security) would answer 429 to the test rather than to an attacker
        RATE_LIMIT_LOGIN="10000/m/ip",
        # ...and sign-ins refused with 503 during an outage count as failed ones, per IP
        # and per account (ten in 15 minutes by default)
        RATE_LIMIT_LOGIN_FAILED="10000/15m/ip,10000/15m/key",
        **extra,
    )


COMMENT_RE = re.compile(r"ops comment \d+")


#: Figures the fault tests record (var/test-artifacts/fault-figures.json; docs/operations.md
#: quotes them).
FIGURES: dict[str, object] = {}


def record(name: str, value: object) -> None:
    FIGURES[name] = value
    out = ROOT / "var" / "test-artifacts"
    out.mkdir(parents=True, exist_ok=True)
    (out / "fault-figures.json").write_text(json.dumps(FIGURES, indent=2))


def post_run(base: str, body: dict, timeout: float = 10) -> requests.Response:
    return requests.post(base + "/api/v1/calculators/kv_cache/runs/", json=body, timeout=timeout)


def wait_until_running(stack: Stack, run_id: str, timeout: float = 20) -> str:
    deadline = time.monotonic() + timeout
    with stack.db() as conn:  # one connection, polled every few milliseconds
        while time.monotonic() < deadline:
            (status,) = conn.execute(
                "SELECT status FROM calculators_calculationrun WHERE id = %s", (run_id,)
            ).fetchone()
            if status != "queued":
                return status
            time.sleep(0.003)
    raise TimeoutError(f"run {run_id} never started")


def wait_for_row(stack: Stack, run_id: str, timeout: float = 30) -> tuple[str, str]:
    """(status, error) once the run is done or failed, read from the database: the API
    would serialise the whole result on every poll."""
    deadline = time.monotonic() + timeout
    with stack.db() as conn:
        while True:
            status, error = conn.execute(
                "SELECT status, error FROM calculators_calculationrun WHERE id = %s", (run_id,)
            ).fetchone()
            if status in ("done", "failed") or time.monotonic() > deadline:
                return status, error
            time.sleep(0.01)
