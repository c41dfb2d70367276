"""Computing a run on a worker: the one function the Celery task calls.

Kept apart from ``calculators.services`` (which publishes the task) so that the task
module imports this and the services import the task, with no import cycle between them.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db.models import F
from django.utils import timezone

from calculators.compute import compute
from calculators.models import CalculationRun
from calculators.validation import validate

logger = logging.getLogger(__name__)

Status = CalculationRun.Status


def execute_run(*, run_id: str) -> str:
    """Compute one run and record the outcome; returns the final status. Idempotent."""
    run = CalculationRun.objects.filter(pk=run_id).first()
    if run is None or run.status == Status.DONE:
        return "missing" if run is None else Status.DONE
    started = timezone.now()
    # Only a queued run (or a running one redelivered after its worker died) is computed.
    # A failed run stays failed: when its publish was refused the client was told so, and
    # a task that reached the broker after all must not compute it behind their back.
    taken = CalculationRun.objects.filter(
        pk=run_id, status__in=[Status.QUEUED, Status.RUNNING]
    ).update(status=Status.RUNNING, started_at=started, attempts=F("attempts") + 1)
    if not taken:
        return Status.FAILED
    try:
        # Validate again: the row is data at rest, and a worker must never trust it blindly.
        result = compute(run.calculator, validate(run.calculator, run.inputs))
    except Exception as exc:
        from celery.exceptions import SoftTimeLimitExceeded

        message = (
            "The calculation took too long and was stopped."
            if isinstance(exc, SoftTimeLimitExceeded)
            else f"The calculation failed: {exc}"
        )
        logger.exception("calculation run %s failed", run_id)
        record_outcome(run_id=run_id, status=Status.FAILED, error=message)
        return Status.FAILED
    record_outcome(run_id=run_id, status=Status.DONE, result=result)
    return Status.DONE


def record_outcome(
    *, run_id: str, status: str, result: dict[str, Any] | None = None, error: str = ""
) -> bool:
    """The final write: only a run that is not already done changes, so it is idempotent."""
    updated = (
        CalculationRun.objects.filter(pk=run_id)
        .exclude(status=Status.DONE)
        .update(status=status, result=result, error=error, finished_at=timezone.now())
    )
    return bool(updated)
