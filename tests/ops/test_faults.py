"""Faults against real processes: worker children and whole workers killed mid-run,
Redis stopped and paused, PostgreSQL restarted under load.

Everything that is killed, paused or restarted is our own: a redis-server on a spare
port, Celery workers and gunicorn servers started here, and for the restart a throwaway
PostgreSQL cluster made with initdb in a temporary folder. The shared PostgreSQL and the
Redis on 6379 are never touched. Figures are written to
var/test-artifacts/fault-figures.json (docs/operations.md quotes them).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
import redis as redis_lib
import requests

from tests.ops.stack import (
    FIGURES,
    Stack,
    children,
    csrf_post,
    post_run,
    record,
    sign_in,
    stack_env,
    sweep_inputs,
    wait_for_log,
    wait_for_row,
    wait_for_run,
    wait_until_running,
)
from tests.ops.support import free_port, stop

pytestmark = [pytest.mark.faults, pytest.mark.worker, pytest.mark.postgres]

KILLS = 20
POINTS = 8_000  # kv_cache over this many sequence lengths: a few tenths of a second
VISIBILITY_TIMEOUT = 4  # seconds; production's is 120 (settings), the test cannot wait that long


@pytest.fixture(scope="module")
def stack(ops_database, redis_server, tmp_path_factory):
    database_url, seed = ops_database
    workdir = tmp_path_factory.mktemp("faults")
    env = stack_env(
        workdir,
        database_url,
        redis_server.url,
        CELERY_VISIBILITY_TIMEOUT=str(VISIBILITY_TIMEOUT),
        GUNICORN_GRACEFUL_TIMEOUT="2",
    )
    st = Stack(workdir, env, seed)
    try:
        st.start_web("web", workers=2)
        st.wait_ready()
        yield st
    finally:
        st.stop_all()


def test_killing_a_worker_child_mid_run_loses_no_run(stack):
    """SIGKILL the only pool child while it computes a run, KILLS times over. Celery
    notices the dead child (in about 4 s), the task (acks_late, reject_on_worker_lost) is
    delivered again, and the run must end done, or failed with a reason and then done
    when asked again."""
    stack.start_worker("child-kill-worker", concurrency=1)
    wait_for_log(stack.workdir / "child-kill-worker.log", "ready.", 60)
    main = stack.procs["child-kill-worker"].pid
    base = stack.webs[0]
    kills, missed, recoveries, outcomes = 0, 0, [], Counter()
    tag = 0
    try:
        while kills < KILLS and tag < KILLS + 15:
            tag += 1
            body = sweep_inputs(tag, POINTS)
            response = post_run(base, body)
            assert response.status_code == 202, response.text[:300]
            run_id = response.json()["id"]
            if wait_until_running(stack, run_id) != "running":
                missed += 1  # finished before we could kill it: not a mid-run kill
                continue
            pool = children(main)
            assert len(pool) == 1, pool
            killed_at = time.monotonic()
            os.kill(pool[0], signal.SIGKILL)
            kills += 1
            status, error = wait_for_row(stack, run_id)
            if status == "failed":  # must say why, and a retry must finish it
                assert error, (tag, stack.run_row(run_id))
                retry = post_run(base, body)
                assert retry.status_code in (200, 202), retry.text[:300]
                status, error = wait_for_row(stack, run_id)
            outcomes[status] += 1
            assert status == "done", (tag, status, stack.run_row(run_id))
            recoveries.append(time.monotonic() - killed_at)
    finally:
        stop(stack.procs.pop("child-kill-worker"), timeout=5, sig=signal.SIGQUIT)
    record(
        "worker_child_sigkill",
        {
            "kills": kills,
            "runs_finished_before_kill": missed,
            "outcomes": dict(outcomes),
            "lost_or_stuck": kills - outcomes["done"],
            "recovery_s_max": round(max(recoveries), 2),
            "recovery_s_median": round(sorted(recoveries)[len(recoveries) // 2], 2),
        },
    )
    assert kills == KILLS and outcomes["done"] == KILLS


def test_a_whole_worker_killed_mid_run_is_restarted_and_the_run_redelivered(stack):
    # scripts/worker.sh supervises celery as `make run` does: it starts it again when it dies.
    stack.start_worker("main-worker", concurrency=1, supervised=True)
    log = stack.workdir / "main-worker.log"
    wait_for_log(log, "ready.", 60)
    base = stack.webs[0]
    body = sweep_inputs(1000, POINTS * 3)
    run_id = post_run(base, body).json()["id"]
    assert wait_until_running(stack, run_id) == "running"
    wrapper = stack.procs["main-worker"].pid
    (celery_main,) = children(wrapper)
    victims = [celery_main, *children(celery_main)]
    killed_at = time.monotonic()
    for pid in victims:  # SIGKILL to the main process and its pool: nothing acks or cleans up
        os.kill(pid, signal.SIGKILL)
    # Asking for the same inputs meanwhile gets the run, not an error; it is not stuck.
    again = post_run(base, body)
    assert again.status_code in (200, 202) and again.json()["id"] == run_id
    run = wait_for_run(base, run_id, timeout=VISIBILITY_TIMEOUT + 30)
    recovered = time.monotonic() - killed_at
    wait_for_log(log, "ready.", 5, count=2)  # the wrapper started celery again
    status, attempts, _ = stack.run_row(run_id)
    record(
        "whole_worker_sigkill",
        {
            "redelivered_and_done_s": round(recovered, 2),
            "attempts": attempts,
            "visibility_timeout_s": VISIBILITY_TIMEOUT,
        },
    )
    assert run["status"] == "done" and status == "done" and attempts >= 2


def outage_checks(
    stack: Stack, signed_in: requests.Session, login_form: requests.Session, seq_len: int
) -> dict:
    """What must hold while Redis is away: pages 2xx, writes 503 + Retry-After in < 2 s."""
    base = stack.webs[0]
    page = stack.seed["question_url"]
    results: dict[str, tuple[int, float]] = {}

    def timed(name, call):
        started = time.monotonic()
        response = call()
        results[name] = (response.status_code, round(time.monotonic() - started, 2))
        return response

    timed("question page", lambda: requests.get(base + page, timeout=10))
    timed("home page", lambda: requests.get(base + "/", timeout=10))
    timed("signed-in question page", lambda: signed_in.get(base + page, timeout=10))
    comment = timed(
        "comment",
        lambda: csrf_post(
            signed_in,
            base + f"/community/question/{stack.seed['question_pk']}/comments/",
            {"body": "posted during an outage"},
        ),
    )
    sign = timed(
        "sign-in",
        lambda: csrf_post(
            login_form,
            base + "/accounts/login/",
            {"login": stack.seed["users"][3], "password": "correct horse battery staple"},
        ),
    )
    calc = timed(
        "calculator submit",
        lambda: post_run(
            base,
            {
                "inputs": {
                    "layers": 32,
                    "kv_heads": 8,
                    "head_dim": 128,
                    "seq_len": 777_000 + len(FIGURES),
                }
            },
        ),
    )
    ready = timed("readyz", lambda: requests.get(base + "/readyz", timeout=10))
    for name in ("question page", "home page", "signed-in question page"):
        assert results[name][0] == 200, (name, results)
    for name, response in (("comment", comment), ("sign-in", sign), ("calculator submit", calc)):
        assert results[name][0] == 503, (name, results)
        assert response.headers.get("Retry-After"), name
        assert results[name][1] < 2.0, (name, results)
    assert results["readyz"][0] == 503 and ready.json()["failed"] == ["broker"]
    assert all(code != 500 for code, _ in results.values()), results
    return results


def refused_run_row(stack: Stack, seq_len: int) -> tuple | None:
    with stack.db() as conn:
        return conn.execute(
            "SELECT status, attempts, result IS NULL FROM calculators_calculationrun "
            "WHERE calculator = 'kv_cache' AND inputs->>'seq_len' = %s",
            (str(seq_len),),
        ).fetchone()


def wait_for_a_fresh_run_done(stack: Stack, tag: int, timeout: float = 40) -> float:
    """Post new runs until one is accepted and done; returns the seconds it took."""
    base = stack.webs[0]
    started = time.monotonic()
    deadline = started + timeout
    while time.monotonic() < deadline:
        response = post_run(
            base, {"inputs": {"layers": 16, "kv_heads": 8, "head_dim": 64, "seq_len": 5000 + tag}}
        )
        assert response.status_code in (200, 202, 503), response.text[:300]
        if response.status_code != 503:
            run = wait_for_run(base, response.json()["id"], timeout=deadline - time.monotonic())
            if run["status"] == "done":
                return time.monotonic() - started
        time.sleep(0.2)
    raise TimeoutError("no run completed after Redis came back")


def writes_recovered(stack: Stack, timeout: float = 15) -> float:
    """Seconds until a write that needs the cache (a comment) is accepted again: each web
    process skips the cache for 2 s after its last failure (inferview.cache)."""
    base = stack.webs[0]
    session = sign_in(base, stack.seed["users"][1], retry_for=timeout)
    session.get(base + stack.seed["question_url"], timeout=10)
    started = time.monotonic()
    while True:
        posted = csrf_post(
            session,
            base + f"/community/question/{stack.seed['question_pk']}/comments/",
            {"body": f"after the outage {started}"},
        )
        if posted.status_code == 302:
            return time.monotonic() - started
        assert posted.status_code == 503 and time.monotonic() - started < timeout, (
            posted.status_code
        )
        time.sleep(0.1)


def sessions(stack: Stack) -> tuple[requests.Session, requests.Session]:
    base = stack.webs[0]
    signed_in = sign_in(base, stack.seed["users"][2], retry_for=10)
    signed_in.get(base + stack.seed["question_url"], timeout=10)
    login_form = requests.Session()
    login_form.get(base + "/accounts/login/", timeout=10)
    return signed_in, login_form


def test_redis_stopped(stack, redis_server):
    assert "main-worker" in stack.procs, "runs after the whole-worker test, with its worker"
    (worker_before,) = children(stack.procs["main-worker"].pid)
    signed_in, login_form = sessions(stack)
    redis_server.stop()
    try:
        results = outage_checks(stack, signed_in, login_form, 777_001)
    finally:
        restarted_at = time.monotonic()
        redis_server.start()
    reconnect = wait_for_a_fresh_run_done(stack, tag=1)
    writes_recovered(stack)
    writes_back = time.monotonic() - restarted_at
    (worker_after,) = children(stack.procs["main-worker"].pid)
    record(
        "redis_stopped",
        {
            "answers": results,
            "restart_to_worker_run_done_s": round(reconnect, 2),
            "restart_to_writes_accepted_s": round(writes_back, 2),
            "worker_restarted_by_supervisor": worker_after != worker_before,
        },
    )
    assert worker_after == worker_before, "the worker should reconnect, not die"


def test_redis_paused(stack, redis_server):
    (worker_before,) = children(stack.procs["main-worker"].pid)
    signed_in, login_form = sessions(stack)
    seq_len = 777_002
    redis_server.pause()
    try:
        results = outage_checks(stack, signed_in, login_form, seq_len)
        time.sleep(2.5)  # keep Redis paused past the publish's socket timeout (2 s)
    finally:
        resumed_at = time.monotonic()
        redis_server.resume()
    done_after = wait_for_a_fresh_run_done(stack, tag=2)
    writes_recovered(stack)
    writes_back = time.monotonic() - resumed_at
    # Every message the broker holds has been taken and acknowledged: a late publish of
    # the refused run (if Redis took it on resuming) has been seen by the worker.
    client = redis_lib.Redis.from_url(redis_server.url)
    deadline = time.monotonic() + 20
    while client.llen("calculators") or client.hlen("unacked"):
        assert time.monotonic() < deadline, "broker never drained"
        time.sleep(0.05)
    refused = refused_run_row(stack, seq_len)
    (worker_after,) = children(stack.procs["main-worker"].pid)
    record(
        "redis_paused",
        {
            "answers": results,
            "resume_to_worker_run_done_s": round(done_after, 2),
            "resume_to_writes_accepted_s": round(writes_back, 2),
            "refused_run_row": refused,
            "worker_restarted_by_supervisor": worker_after != worker_before,
        },
    )
    # Refused either before a row existed (the per-address run limit counts in the same
    # paused Redis) or after: then the row is failed, with no attempt and no result.
    assert refused is None or (refused[0] == "failed" and refused[1] == 0 and refused[2]), (
        f"the refused run was computed behind the client's back: {refused}"
    )


# --- PostgreSQL restarted under load, on a throwaway cluster --------------------------


def postgres_bin() -> Path | None:
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    return versions[-1].parent if versions else None


def as_postgres(*command: str, **kwargs) -> subprocess.CompletedProcess:
    prefix = [] if os.geteuid() != 0 else ["runuser", "-u", "postgres", "--"]
    return subprocess.run(
        [*prefix, *command], check=True, capture_output=True, timeout=60, **kwargs
    )


@pytest.fixture
def throwaway_postgres(stack):
    bindir = postgres_bin()
    # .ci/run installs Debian's postgresql (server binaries and runuser): without them this
    # fault test cannot run, and that is a failure of the set-up, not a pass.
    assert bindir is not None, "no PostgreSQL server binaries under /usr/lib/postgresql"
    assert os.geteuid() != 0 or shutil.which("runuser"), "root without runuser: cannot initdb"
    folder = Path(tempfile.mkdtemp(prefix="inferview-pg-"))
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    data, port = folder / "data", free_port()
    pg_ctl = str(bindir / "pg_ctl")
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
    as_postgres(
        str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync"
    )
    as_postgres(pg_ctl, "-D", str(data), "-o", options, "-l", str(folder / "pg.log"), "-w", "start")
    try:
        url = f"postgres://postgres@127.0.0.1:{port}/ops"
        as_postgres(str(bindir / "createdb"), "-h", "127.0.0.1", "-p", str(port), "ops")
        dump = subprocess.run(
            [str(bindir / "pg_dump"), "--no-owner", "--no-privileges", stack.env["DATABASE_URL"]],
            check=True,
            capture_output=True,
            timeout=60,
        ).stdout
        subprocess.run(
            [str(bindir / "psql"), "-q", "-v", "ON_ERROR_STOP=1", url],
            input=dump,
            check=True,
            capture_output=True,
            timeout=60,
        )
        yield url, (pg_ctl, str(data), options, str(folder / "pg.log"))
    finally:
        subprocess.run(
            ["runuser", "-u", "postgres", "--", pg_ctl, "-D", str(data), "-m", "immediate", "stop"]
            if os.geteuid() == 0
            else [pg_ctl, "-D", str(data), "-m", "immediate", "stop"],
            capture_output=True,
            timeout=60,
        )
        shutil.rmtree(folder, ignore_errors=True)


def test_postgres_restart_under_load_answers_no_500(stack, redis_server, throwaway_postgres):
    url, (pg_ctl, data, options, pg_log) = throwaway_postgres
    env = {**stack.env, "DATABASE_URL": url}
    st = Stack(stack.workdir, env, stack.seed)
    base = st.start_web("pg-web", workers=2)
    st.wait_ready()
    answers: list[tuple[float, int]] = []  # (when the request was sent, status)
    stop_load = threading.Event()

    def load():
        session = requests.Session()
        while not stop_load.is_set():
            sent = time.monotonic()
            try:  # an API read: not page-cached, so every request queries the database
                code = session.get(base + "/api/v1/tracks/", timeout=5).status_code
            except requests.RequestException:
                code = -1
            answers.append((sent, code))
            time.sleep(0.05)  # about 20 requests a second per thread

    threads = [threading.Thread(target=load) for _ in range(2)]
    warm = requests.Session()
    for _ in range(8):  # each gunicorn process imports the API on its first requests
        assert warm.get(base + "/api/v1/tracks/", timeout=30).status_code == 200
    try:
        for thread in threads:
            thread.start()
        time.sleep(1.5)  # steady load, with persistent connections open, before the restart
        restart_started = time.monotonic()
        as_postgres(pg_ctl, "-D", data, "-o", options, "-l", pg_log, "-m", "fast", "-w", "restart")
        restart_done = time.monotonic()
        deadline = restart_done + 15
        while time.monotonic() < deadline:  # until answers are 200 again, with no app restart
            recent = [code for t, code in answers if t > restart_done + 0.5]
            if len(recent) >= 20 and all(code == 200 for code in recent[-20:]):
                break
            time.sleep(0.1)
    finally:
        stop_load.set()
        for thread in threads:
            thread.join(timeout=10)
        st.stop_all()
    codes = Counter(code for _, code in answers)
    after = [t for t, code in answers if t > restart_started and code != 200]
    record(
        "postgres_restart",
        {
            "requests": len(answers),
            "answers": dict(codes),
            "restart_s": round(restart_done - restart_started, 2),
            "last_non_200_after_restart_began_s": round(max(after) - restart_started, 2)
            if after
            else 0,
        },
    )
    assert codes[500] == 0 and codes[-1] == 0, codes
    assert set(codes) <= {200, 503}, codes
    # Once the server is back, every request succeeds at once: a persistent connection
    # that died with the old server is noticed by its health check and replaced, so no
    # request fails on it and nothing restarts the app.
    assert [code for t, code in answers if t > restart_done + 0.2] == [200] * len(
        [t for t, _ in answers if t > restart_done + 0.2]
    ), answers
    assert len([t for t, _ in answers if t > restart_done + 0.2]) >= 20
