"""Query counts for the hot paths (house style: assert them, so regressions show)."""

import json

import pytest

from calculators.execution import execute_run
from calculators.runtime import keep_freed_memory

pytestmark = pytest.mark.django_db
BODY = json.dumps({"inputs": {"availability_pct": 99.9}})


def test_post_new_run_queries(client, published, django_assert_max_num_queries):
    # savepoint + insert + release, plus the test client's session/auth middleware reads
    with django_assert_max_num_queries(6):
        response = client.post(
            "/api/v1/calculators/availability/runs/", BODY, content_type="application/json"
        )
    assert response.status_code == 202


def test_get_run_is_one_query(client, published, django_assert_num_queries):
    run_id = client.post(
        "/api/v1/calculators/availability/runs/", BODY, content_type="application/json"
    ).json()["id"]
    with django_assert_num_queries(1):
        assert client.get(f"/api/v1/calculators/runs/{run_id}/").status_code == 200


def test_task_queries(client, published, django_assert_num_queries):
    run_id = client.post(
        "/api/v1/calculators/availability/runs/", BODY, content_type="application/json"
    ).json()["id"]
    with django_assert_num_queries(3):  # read, mark running, final write
        execute_run(run_id=run_id)


def test_calculator_page_needs_no_queries_beyond_the_session(client, django_assert_max_num_queries):
    with django_assert_max_num_queries(1):
        assert client.get("/calculators/roofline/").status_code == 200


def test_keep_freed_memory_on_glibc():
    assert keep_freed_memory() in (True, False)  # never raises, whatever the libc
