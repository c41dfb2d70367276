"""Real runs through a real Celery worker process (not eager), via a real web server.

With REDIS_URL set (CI) the broker and result store are Redis; without it, the embedded
filesystem transport, still with a separate worker process.
"""

import os
import re
import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from tests.calculators.stack import running_stack, wait_for_run

pytestmark = pytest.mark.worker


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    with running_stack(
        tmp_path_factory.mktemp("calc-stack"), redis_url=os.environ.get("REDIS_URL")
    ) as st:
        yield st


def run_row(stack, run_id):
    with sqlite3.connect(stack.db_path) as db:
        return db.execute(
            "SELECT status, attempts FROM calculators_calculationrun WHERE id = ?",
            (run_id.replace("-", ""),),
        ).fetchone()


def test_a_run_goes_through_the_worker(stack):
    s = requests.Session()
    response = s.post(
        stack.api("decode_bound/runs/"),
        json={
            "inputs": {"params_b": 8, "bytes_per_param": 2, "batch_size": [1, 8, 32]},
            "preset": "h100-sxm",
        },
        timeout=10,
    )
    assert response.status_code == 202
    run = wait_for_run(s, response.headers["Location"])
    assert run["status"] == "done", run
    assert run["result"]["outputs"]["tokens_per_s_total"][1] == pytest.approx(8 * 209.375)
    assert run["started_at"] and run["finished_at"]
    assert run_row(stack, run["id"]) == ("done", 1)


def test_same_inputs_posted_twice_create_one_run_and_one_task(stack):
    s = requests.Session()
    body = {"inputs": {"layers": 32, "kv_heads": 8, "head_dim": 128, "seq_len": 8192}}
    first = s.post(stack.api("kv_cache/runs/"), json=body, timeout=10)
    second = s.post(stack.api("kv_cache/runs/"), json=body, timeout=10)
    assert first.json()["id"] == second.json()["id"]
    run = wait_for_run(s, first.json()["url"])
    assert run["result"]["outputs"]["total_gb"] == pytest.approx(1.073741824)
    third = s.post(stack.api("kv_cache/runs/"), json=body, timeout=10)
    assert third.status_code == 200 and third.json()["result"] == run["result"]
    assert run_row(stack, run["id"]) == ("done", 1)  # one task executed, once


def test_concurrent_identical_posts_collapse_onto_one_task(stack):
    body = {"inputs": {"availability_pct": 99.99}}

    def post(_):
        return requests.post(stack.api("availability/runs/"), json=body, timeout=20).json()["id"]

    with ThreadPoolExecutor(max_workers=6) as pool:
        ids = set(pool.map(post, range(6)))
    assert len(ids) == 1
    run = wait_for_run(requests.Session(), stack.api(f"runs/{ids.pop()}/"))
    assert run["status"] == "done"
    assert run_row(stack, run["id"]) == ("done", 1)


def test_a_sweep_is_one_task(stack):
    s = requests.Session()
    batch = list(range(1, 10_001))
    response = s.post(
        stack.api("decode_bound/runs/"),
        json={
            "inputs": {"params_b": 70, "bytes_per_param": 1, "batch_size": batch},
            "preset": "h200",
        },
        timeout=30,
    )
    run = wait_for_run(s, response.json()["url"], timeout=120)
    assert run["status"] == "done" and len(run["result"]["outputs"]["ms_per_token"]) == 10_000
    assert run_row(stack, run["id"]) == ("done", 1)


def test_wait_parameter_returns_the_result_in_the_post(stack):
    """Causal mask, N = 32,768, w = 4,096: w(w+1)/2 + (N - w)·w = 8,390,656 + 117,440,512
    = 125,831,168 pairs inside the window."""
    response = requests.post(
        stack.api("sliding_window/runs/") + "?wait=10",
        json={"inputs": {"seq_len": 32768, "window": 4096, "mask": "causal"}},
        timeout=30,
    )
    assert response.status_code == 200
    assert response.json()["result"]["outputs"]["window_pairs"] == 125831168


def test_the_browser_flow_without_javascript(stack):
    """Without JavaScript the page's form is a GET to the permalink, computed on the web
    server; a form that must post (errors to correct, a sweep too large for a link) carries a
    token and queues the run, and the run page refreshes itself until the worker has it."""
    s = requests.Session()
    page = s.get(stack.base_url + "/calculators/response_time/", timeout=10).text
    assert 'method="get"' in page and "csrfmiddlewaretoken" not in page  # one page for all
    small = s.get(
        stack.base_url + "/calculators/response_time/",
        params={"ttft_ms": "250", "itl_ms": "20", "output_tokens": "400", "run": "1"},
        timeout=10,
    )
    assert small.status_code == 200 and "8.23 s" in small.text and "<svg" in small.text

    # A form that must post without the script (here: one with an error to correct) carries
    # a token; posting it queues the run for the worker.
    bad = s.get(
        stack.base_url + "/calculators/response_time/",
        params={"ttft_ms": "abc", "itl_ms": "20", "output_tokens": "400", "run": "1"},
        timeout=10,
    )
    assert bad.status_code == 400 and 'method="post"' in bad.text
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', bad.text).group(1)
    response = s.post(
        stack.base_url + "/calculators/response_time/",
        data={
            "csrfmiddlewaretoken": token,
            "ttft_ms": "250",
            "itl_ms": "20",
            "output_tokens": "400",
            "action": "run",
        },
        headers={"Referer": stack.base_url + "/calculators/response_time/"},
        timeout=30,
        allow_redirects=False,
    )
    assert response.status_code == 302
    url = stack.base_url + response.headers["Location"]
    deadline = time.monotonic() + 60
    while "What this establishes" not in (html := s.get(url, timeout=30).text):
        assert time.monotonic() < deadline, "the run page never showed the result"
        assert 'http-equiv="refresh"' in html  # no-JS progress: the page refreshes itself
        time.sleep(0.3)
    assert "8.23 s" in html and "<svg" in html


def test_broker_unreachable_is_a_fast_503_and_pages_keep_working(tmp_path):
    # A broker URL nothing listens on: every publish fails.
    with running_stack(tmp_path / "down", redis_url="redis://127.0.0.1:9/0", worker=False) as st:
        t0 = time.monotonic()
        response = requests.post(
            st.api("availability/runs/"), json={"inputs": {"availability_pct": 99.9}}, timeout=10
        )
        elapsed = time.monotonic() - t0
        assert response.status_code == 503 and elapsed < 2.0, (response.status_code, elapsed)
        assert int(response.headers["Retry-After"]) > 0
        # The stack's cache lives on the same dead Redis, so the run rate limit's counter
        # may be what refuses first: either way a clean 503 the client can retry.
        assert response.json()["error"]["code"] in ("queue_unavailable", "service_unavailable")
        s = requests.Session()
        page = s.get(st.base_url + "/calculators/availability/", timeout=10)
        assert page.status_code == 200
        # the form's no-JS path computes on the web server: no queue needed
        result = s.get(
            st.base_url + "/calculators/availability/",
            params={"availability_pct": "99.9", "run": "1"},
            timeout=10,
        )
        assert result.status_code == 200 and "43.83 min" in result.text
