"""Computing a run on a worker: the one function the Celery task calls.

Kept apart from ``calculators.services`` (which publishes the task) so that the task
module imports this and the services import the task, with no import cycle between them.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from django.utils import timezone

from calculators import leases
from calculators.compute import compute
from calculators.models import CalculationRun
from calculators.validation import validate

logger = logging.getLogger(__name__)

Status = CalculationRun.Status

#: execute_run's answer when another live process holds the run.
HELD = "held"


def execute_run(*, run_id: str) -> str:
    """Compute one run and record the outcome; returns the final status. Idempotent.

    Only a queued run, or a running one whose holder is gone (``calculators.leases``), is
    taken; a run another live process holds is left to it ("held"), so a redelivered task
    never computes a run twice at once. A failed run stays failed: when its publish was
    refused the client was told so, and a task that reached the broker after all must not
    compute it behind their back."""
    run = CalculationRun.objects.filter(pk=run_id).first()
    if run is None or run.status == Status.DONE:
        return "missing" if run is None else Status.DONE
    if run.status == Status.FAILED:
        return Status.FAILED
    claim = leases.take(run)
    if claim is None:
        return HELD
    try:
        with leases.hold(run_id, claim):
            # Validate again: the row is data at rest, and a worker must never trust it.
            result = compute(run.calculator, validate(run.calculator, run.inputs))
    except Exception as exc:
        from celery.exceptions import SoftTimeLimitExceeded

        message = (
            "The calculation took too long and was stopped."
            if isinstance(exc, SoftTimeLimitExceeded)
            else f"The calculation failed: {exc}"
        )
        logger.exception("calculation run %s failed", run_id)
        record_outcome(run_id=run_id, status=Status.FAILED, error=message, claim=claim)
        return Status.FAILED
    record_outcome(run_id=run_id, status=Status.DONE, result=result, claim=claim)
    return Status.DONE


def record_outcome(
    *,
    run_id: str,
    status: str,
    result: dict[str, Any] | None = None,
    error: str = "",
    claim: uuid.UUID | None = None,
) -> bool:
    """The final write: only a run that is not already done changes, so it is idempotent;
    with ``claim``, only while that claim still holds the run (a process that lost its
    lease while frozen cannot overwrite the attempt that took over)."""
    rows = CalculationRun.objects.filter(pk=run_id).exclude(status=Status.DONE)
    if claim is not None:
        rows = rows.filter(claim=claim)
    updated = rows.update(status=status, result=result, error=error, finished_at=timezone.now())
    return bool(updated)
