"""Run services and the task adapter, without a broker."""

from unittest import mock

import pytest
from celery.exceptions import SoftTimeLimitExceeded

from calculators.execution import execute_run, record_outcome
from calculators.models import CalculationRun, canonical_hash
from calculators.services import run_request
from calculators.tasks import run_calculation

pytestmark = pytest.mark.django_db
INPUTS = {"availability_pct": 99.9}


def test_canonical_hash_ignores_key_order_and_depends_on_values():
    a = canonical_hash("x", {"a": 1.0, "b": [1, 2]})
    assert a == canonical_hash("x", {"b": [1, 2], "a": 1.0})
    assert a != canonical_hash("x", {"a": 1.5, "b": [1, 2]})
    assert a != canonical_hash("y", {"a": 1.0, "b": [1, 2]})


def test_task_computes_and_is_idempotent(published):
    run, _ = run_request(calculator="availability", raw_inputs=INPUTS)
    assert run_calculation.run(str(run.pk)) == "done"
    run.refresh_from_db()
    first = (run.result, run.finished_at)
    assert run.status == "done" and run.attempts == 1 and run.queue_ms is not None
    # A redelivered task (acks_late) returns without recomputing or overwriting.
    assert run_calculation.run(str(run.pk)) == "done"
    run.refresh_from_db()
    assert (run.result, run.finished_at) == first and run.attempts == 1
    assert not record_outcome(run_id=str(run.pk), status="failed", error="late duplicate")


def test_task_for_a_deleted_run_returns_quietly(published):
    run, _ = run_request(calculator="availability", raw_inputs=INPUTS)
    CalculationRun.objects.all().delete()
    assert run_calculation.run(str(run.pk)) == "missing"


def test_soft_time_limit_marks_failed_and_next_request_requeues(published):
    run, _ = run_request(calculator="availability", raw_inputs=INPUTS)
    with mock.patch("calculators.execution.compute", side_effect=SoftTimeLimitExceeded()):
        assert execute_run(run_id=str(run.pk)) == "failed"
    run.refresh_from_db()
    assert run.status == "failed" and "too long" in run.error


def test_worker_revalidates_stored_inputs(published):
    run, _ = run_request(calculator="availability", raw_inputs=INPUTS)
    CalculationRun.objects.filter(pk=run.pk).update(inputs={"availability_pct": "tampered"})
    assert execute_run(run_id=str(run.pk)) == "failed"
    assert "must be a number" in CalculationRun.objects.get(pk=run.pk).error


def test_failed_run_is_retried_by_the_next_identical_request(
    published, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        run, enqueued = run_request(calculator="availability", raw_inputs=INPUTS)
    CalculationRun.objects.filter(pk=run.pk).update(status="failed", error="boom")
    with django_capture_on_commit_callbacks(execute=True):
        again, enqueued_again = run_request(calculator="availability", raw_inputs=INPUTS)
    assert again.pk == run.pk and enqueued and enqueued_again
    assert again.status == "queued" and again.error == "" and len(published) == 2


def test_requested_by_records_the_signed_in_user(published, django_user_model):
    user = django_user_model.objects.create_user(username="calc", password="x" * 12)
    run, _ = run_request(calculator="availability", raw_inputs=INPUTS, user=user)
    assert run.requested_by == user


def test_task_options():
    assert run_calculation.name == "calculators.run"
    assert run_calculation.acks_late and run_calculation.queue == "calculators"
    assert run_calculation.soft_time_limit < run_calculation.time_limit
