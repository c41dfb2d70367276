"""A run's lease (calculators.leases): taken once, renewed while computing, handed back
(or failed with a reason) once its holder stops renewing, and never overwritten by a
holder that lost it."""

from __future__ import annotations

import os
import socket
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from calculators import leases, services
from calculators.execution import HELD, execute_run, record_outcome
from calculators.models import CalculationRun

INPUTS = {"availability_pct": 99.95}
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def published(monkeypatch):
    sent: list[str] = []
    monkeypatch.setattr(services, "_publish", lambda run_id: sent.append(run_id) or True)
    return sent


@pytest.fixture
def run(published):
    run, _ = services.run_request(calculator="availability", raw_inputs=INPUTS)
    return run


def lapse(run: CalculationRun) -> None:
    gone = timezone.now() - timedelta(seconds=leases.lease_seconds() + 1)
    CalculationRun.objects.filter(pk=run.pk).update(heartbeat_at=gone)


def fresh(run: CalculationRun) -> CalculationRun:
    return CalculationRun.objects.get(pk=run.pk)


def test_two_takers_of_one_queued_run_one_wins(run):
    first_read, second_read = fresh(run), fresh(run)
    claim = leases.take(first_read)
    assert claim is not None
    assert leases.take(second_read) is None  # read as queued, but the row moved under it
    assert leases.take(fresh(run)) is None  # running, lease live, held by this very process
    row = fresh(run)
    assert (row.status, row.claim, row.attempts) == ("running", claim, 1)
    assert row.worker == leases.holder_name() and row.heartbeat_at is not None


def test_a_lapsed_lease_is_taken_over_and_the_old_holder_cannot_write(run):
    old = leases.take(fresh(run))
    lapse(run)
    new = leases.take(fresh(run))
    assert new is not None and new != old and fresh(run).attempts == 2
    assert not record_outcome(run_id=str(run.pk), status="done", result={"x": 1}, claim=old)
    assert fresh(run).status == "running"
    assert record_outcome(run_id=str(run.pk), status="done", result={"x": 1}, claim=new)
    assert fresh(run).status == "done"


def test_a_redelivered_task_leaves_a_held_run_to_its_holder(run):
    CalculationRun.objects.filter(pk=run.pk).update(
        status="running", claim=None, worker="elsewhere:1:2", heartbeat_at=timezone.now()
    )
    assert execute_run(run_id=str(run.pk)) == HELD
    assert fresh(run).attempts == 0 and fresh(run).result is None
    lapse(run)
    assert execute_run(run_id=str(run.pk)) == "done"


def test_a_dead_sibling_is_seen_at_once_and_nothing_else_is():
    host, parent = socket.gethostname(), os.getppid()
    assert not leases.holder_is_dead(f"{host}:{parent}:{os.getpid()}")  # a thread of ours
    assert leases.holder_is_dead(f"{host}:{parent}:{2**22 + 12345}")  # above pid_max: gone
    assert not leases.holder_is_dead(f"other-host:{parent}:{2**22 + 12345}")
    assert not leases.holder_is_dead(f"{host}:{parent + 1}:{2**22 + 12345}")  # another worker
    assert not leases.holder_is_dead(f"{host}:{parent}:1")  # init exists
    assert not leases.holder_is_dead("")


def test_the_holder_renews_while_it_computes(run, settings):
    settings.CALC_RUN_LEASE_SECONDS = 0.2
    claim = leases.take(fresh(run))
    taken_at = fresh(run).heartbeat_at
    with leases.hold(str(run.pk), claim):
        deadline = time.monotonic() + 10
        while fresh(run).heartbeat_at == taken_at and time.monotonic() < deadline:
            time.sleep(0.01)  # polling for the renewal, bounded by the deadline
        renewed = fresh(run).heartbeat_at
    assert renewed > taken_at
    assert not leases.is_abandoned(fresh(run))


def test_the_reaper_queues_a_dead_workers_run_again_and_publishes_it(run, published):
    leases.take(fresh(run))
    assert services.reap_abandoned() == {"queued": 0, "failed": 0}  # alive: left alone
    lapse(run)
    assert services.reap_abandoned() == {"queued": 1, "failed": 0}
    row = fresh(run)
    assert (row.status, row.claim) == ("queued", None)
    assert published == [str(run.pk)] * 2
    assert services.reap_abandoned() == {"queued": 0, "failed": 0}
    assert execute_run(run_id=str(run.pk)) == "done"


def test_a_run_that_keeps_killing_workers_fails_with_a_reason(run, published):
    for _ in range(services.MAX_ATTEMPTS):
        assert leases.take(fresh(run)) is not None
        lapse(run)
    assert services.reap_abandoned() == {"queued": 0, "failed": 1}
    row = fresh(run)
    assert row.status == "failed" and "stopped 3 times" in row.error
    # Asking again retries it: a failed run is queued again by the next identical request.
    again, scheduled = services.run_request(calculator="availability", raw_inputs=INPUTS)
    assert scheduled and again.status == "queued"


def test_polling_the_run_hands_it_back_without_waiting_for_beat(client, run, published):
    leases.take(fresh(run))
    lapse(run)
    body = client.get(f"/api/v1/calculators/runs/{run.pk}/").json()
    assert body["status"] == "queued"
    assert published == [str(run.pk)] * 2


def test_polling_a_live_run_costs_one_query(client, run, django_assert_num_queries):
    leases.take(fresh(run))
    with django_assert_num_queries(1):
        assert client.get(f"/api/v1/calculators/runs/{run.pk}/").json()["status"] == "running"
