"""A web process killed is replaced by its supervisor, and the site keeps serving.

gunicorn's arbiter is the supervisor of the processes that answer requests: every one of
them is SIGKILLed here (nothing can clean up), and the arbiter must fork new ones that
serve the same signed-in session (sessions live in PostgreSQL and Redis, not in a
process). The arbiter itself is supervised by the platform (compose's restart policy,
tested in test_deploy_files.py, or systemd's Restart=always in docs/operations.md).
"""

from __future__ import annotations

import os
import signal
import time

import pytest
import requests

from tests.ops.stack import RedisServer, Stack, children, sign_in, stack_env

pytestmark = [pytest.mark.faults, pytest.mark.postgres]

WEB_WORKERS = 2
RECOVERY_DEADLINE = 30  # seconds; a preloaded worker forks in well under one


@pytest.fixture(scope="module")
def stack(ops_database, tmp_path_factory):
    database_url, seed = ops_database
    workdir = tmp_path_factory.mktemp("web-supervision")
    redis = RedisServer(workdir)
    redis.start()
    st = Stack(workdir, stack_env(workdir, database_url, redis.url), seed)
    try:
        st.start_web("web", workers=WEB_WORKERS)
        st.wait_ready()
        yield st
    finally:
        st.stop_all()
        redis.stop()


def signed_in_page(session: requests.Session, url: str) -> int | None:
    """The status of a signed-in page view, or None while nothing accepts the connection."""
    try:
        response = session.get(url, timeout=5, allow_redirects=False)
    except requests.ConnectionError:
        return None
    assert response.status_code != 500, response.text[:500]
    return response.status_code


def test_every_killed_web_worker_is_replaced_and_the_session_survives(stack):
    base = stack.webs[0]
    arbiter = stack.procs["web"]
    session = sign_in(base, stack.seed["users"][0])
    page = base + stack.seed["question_url"]
    assert signed_in_page(session, page) == 200
    before = set(children(arbiter.pid))
    assert len(before) == WEB_WORKERS, before

    killed_at = time.monotonic()
    for pid in before:
        os.kill(pid, signal.SIGKILL)

    deadline = killed_at + RECOVERY_DEADLINE
    while True:
        assert arbiter.poll() is None, "the gunicorn arbiter died with its workers"
        after = set(children(arbiter.pid))
        replaced = len(after) == WEB_WORKERS and not after & before
        if replaced and signed_in_page(session, page) == 200:
            break
        assert time.monotonic() < deadline, (
            f"no {WEB_WORKERS} new workers serving within {RECOVERY_DEADLINE} s: {after}"
        )
        time.sleep(0.05)
    recovered = time.monotonic() - killed_at
    print(f"\nweb workers SIGKILLed: {len(before)}; serving again after {recovered:.2f} s")

    # Still the same user: the session was not held by a killed process.
    account = session.get(base + "/account/", timeout=10, allow_redirects=False)
    assert account.status_code == 200, account.status_code
    assert stack.seed["users"][0] in account.text
