"""Two gunicorn servers and two Celery workers on loopback, as on two hosts, against one
PostgreSQL and one Redis: a purchase (the local payment provider), calculator runs and a
comment go through them, each step landing on a different server than the one before."""

import re
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from tests.ops.stack import RedisServer, Stack, csrf_post, sign_in, stack_env, wait_for_run

pytestmark = [pytest.mark.worker, pytest.mark.postgres]


@pytest.fixture(scope="module")
def stack(ops_database, tmp_path_factory):
    database_url, seed = ops_database
    workdir = tmp_path_factory.mktemp("many-hosts")
    redis = RedisServer(workdir)
    redis.start()
    st = Stack(workdir, stack_env(workdir, database_url, redis.url), seed)
    try:
        st.start_web("web-a")
        st.start_web("web-b")
        st.start_worker("worker-a")
        st.start_worker("worker-b")
        st.wait_ready()
        yield st
    finally:
        st.stop_all()
        redis.stop()


def test_a_purchase_across_two_web_servers(stack):
    a, b = stack.webs
    session = sign_in(a, stack.seed["users"][0])
    checkout = csrf_post(session, b + "/premium/checkout/", {"currency": "USD"})
    assert (
        checkout.status_code == 302 and "/premium/checkout/local/" in checkout.headers["Location"]
    )
    local = checkout.headers["Location"]
    assert "Pay $25" in session.get(a + local, timeout=10).text
    paid = csrf_post(session, b + local, {})
    assert paid.status_code == 302 and "session_id=" in paid.headers["Location"]
    success = session.get(a + paid.headers["Location"], timeout=10)
    assert "You have Premium" in success.text
    with stack.db() as conn:
        rows = conn.execute(
            "SELECT p.status, count(e.id) FROM access_purchase p "
            "JOIN accounts_user u ON u.id = p.user_id "
            "LEFT JOIN access_entitlement e ON e.purchase_id = p.id AND e.revoked_at IS NULL "
            "WHERE u.email = %s GROUP BY p.status",
            (stack.seed["users"][0],),
        ).fetchall()
    assert rows == [("paid", 1)]


def test_calculator_runs_are_shared_by_both_workers(stack):
    a, b = stack.webs

    def submit(i):
        body = {"inputs": {"layers": 32, "kv_heads": 8, "head_dim": 128, "seq_len": 4096 + i}}
        response = requests.post(
            (a if i % 2 else b) + "/api/v1/calculators/kv_cache/runs/", json=body, timeout=10
        )
        assert response.status_code == 202, response.text
        return response.json()["id"]

    with ThreadPoolExecutor(max_workers=4) as pool:
        run_ids = list(pool.map(submit, range(12)))
    runs = [wait_for_run(b if i % 2 else a, run_id) for i, run_id in enumerate(run_ids)]
    assert [run["status"] for run in runs] == ["done"] * 12
    assert runs[0]["result"]["outputs"]["total_gb"] > 0
    logs = {name: (stack.workdir / f"{name}.log").read_text() for name in ("worker-a", "worker-b")}
    served = {
        name: len(re.findall(r"Task calculators\.run\[[^\]]+\] succeeded", text))
        for name, text in logs.items()
    }
    assert sum(served.values()) == 12 and all(served.values()), served


def test_a_comment_posted_on_one_server_shows_on_the_other(stack):
    a, b = stack.webs
    session = sign_in(b, stack.seed["users"][1])
    page = stack.seed["question_url"]
    assert session.get(a + page, timeout=10).status_code == 200
    posted = csrf_post(
        session,
        b + f"/community/question/{stack.seed['question_pk']}/comments/",
        {"body": "An ops comment from host B"},
    )
    assert posted.status_code == 302, posted.text[:500]
    assert "An ops comment from host B" in requests.get(a + page, timeout=10).text
