"""Writes for calculation runs: request a run, execute it, record the outcome.

The flow, and why:
- ``run_request`` validates first, so nothing reaches a worker unvalidated, then gets or
  creates the run by its canonical hash inside a transaction. The unique constraint
  makes concurrent identical requests collapse onto one row; only the request that
  created (or revived) the row enqueues a task.
- The task is published with ``transaction.on_commit`` and only the run's id, so a worker
  never looks for a row that is not committed yet and never receives arrays.
- Publishing fails fast (no retries, short broker timeouts in settings). A run that could
  not be published is marked failed so the next identical request enqueues it again,
  and the caller gets ``BrokerUnavailable`` to turn into a 503.
- ``calculators.execution.execute_run`` is what the task calls (a module of its own, so
  the task imports it and this module imports the task, with no cycle). Its final write
  is conditional on the run not being done yet, so a redelivered task (acks_late) can
  never overwrite a result.
"""

from __future__ import annotations

import functools
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from calculators import leases
from calculators.execution import execute_run
from calculators.models import CalculationRun, canonical_hash
from calculators.tasks import run_calculation
from calculators.validation import validate

logger = logging.getLogger(__name__)

# A queued run older than this is presumed lost (say, a worker died before acking and the
# broker was flushed) and is enqueued again by the next identical request. The task is
# idempotent, so a duplicate is harmless.
STALE_QUEUED_AFTER = timedelta(minutes=5)
# A run whose worker died this many times is failed rather than queued again: it may be
# what kills them (memory), and the learner should hear so instead of waiting.
MAX_ATTEMPTS = 3
ABANDONED_TOO_OFTEN = (
    "The worker computing this stopped {n} times before it finished, so it was not tried "
    "again. Ask again to retry, or try fewer points."
)

Status = CalculationRun.Status


class BrokerUnavailable(RuntimeError):
    """The task could not be published; the API answers 503 with Retry-After.

    ``run`` is the row that was created or revived (now failed), so a caller can compute
    it in-process without validating and looking it up again."""

    def __init__(self, message: str, run: CalculationRun) -> None:
        super().__init__(message)
        self.run = run


def run_request(
    *, calculator: str, raw_inputs: Any, preset: str | None = None, user: Any = None
) -> tuple[CalculationRun, bool]:
    """Validate, get or create the run for these inputs and enqueue it if needed.

    Returns (run, scheduled), scheduled being whether a task was scheduled for publication
    on commit. Raises CalculatorInputError for bad input and BrokerUnavailable when a
    needed task could not be published.
    """
    clean = validate(calculator, raw_inputs, preset)
    digest = canonical_hash(calculator, clean)
    owner = user if getattr(user, "is_authenticated", False) else None
    published: list[bool] = []
    scheduled = False
    with transaction.atomic():
        run, created = _get_or_create(calculator, clean, digest, preset or "", owner)
        if created or _needs_enqueue(run):
            if not created:
                run.status, run.error, run.enqueued_at = Status.QUEUED, "", timezone.now()
                run.save(update_fields=["status", "error", "enqueued_at"])
            run_id = str(run.pk)
            transaction.on_commit(lambda: published.append(_publish_or_fail(run_id)))
            scheduled = True
    # Empty if an outer transaction defers the commit; the callback still marks the run.
    if published and not published[0]:
        run.status = Status.FAILED
        raise BrokerUnavailable("the calculation queue is unavailable", run)
    return run, scheduled


def _publish_or_fail(run_id: str) -> bool:
    """Publish; if that fails, mark the run failed so the next identical request
    enqueues it again instead of waiting on a task that was never sent."""
    if _publish(run_id):
        return True
    refused = CalculationRun.objects.filter(pk=run_id, status=Status.QUEUED).update(
        status=Status.FAILED, error="The task queue was unavailable; ask again shortly."
    )
    # Nothing to mark: a publish that beat the deadline after all was already taken by a
    # worker, so the run is under way and the client may be told so.
    return not refused


def _get_or_create(
    calculator: str, clean: dict[str, Any], digest: str, preset: str, owner: Any
) -> tuple[CalculationRun, bool]:
    """Insert first: new inputs are the common case, and the unique constraint (not a
    read-then-write) is what makes concurrent identical requests share one row."""
    lookup = {"calculator": calculator, "inputs_hash": digest}
    try:
        with transaction.atomic():  # a savepoint, so a duplicate leaves our transaction usable
            run = CalculationRun.objects.create(
                **lookup,
                inputs=clean,
                preset=preset,
                requested_by=owner,
                status=Status.QUEUED,
                enqueued_at=timezone.now(),
            )
            return run, True
    except IntegrityError:
        return CalculationRun.objects.select_for_update().get(**lookup), False


def _needs_enqueue(run: CalculationRun) -> bool:
    if run.status == Status.FAILED:
        return True
    now = timezone.now()
    if run.status == Status.RUNNING:
        # Its holder stopped renewing the lease: the worker died mid-run (calculators.leases).
        return leases.is_abandoned(run, now)
    return (
        run.status == Status.QUEUED
        and run.enqueued_at is not None
        and now - run.enqueued_at > STALE_QUEUED_AFTER
    )


# Publishing has a hard deadline. Celery's own retry is off for the publish, but the Redis
# client still retries a refused connection with backoff (about 2 s in total), which
# would blow the API's promise of a 503 within 2 seconds. So the publish runs in a
# helper thread and we stop waiting at the deadline; if it completes later anyway, the
# worker computes the run (its writes are idempotent) and nothing is lost. After a
# failure we skip the broker for a few seconds, so an outage does not pile up threads.
PUBLISH_DEADLINE_SECONDS = 1.0
BROKER_BACKOFF_SECONDS = 5.0
_publisher = ThreadPoolExecutor(max_workers=4, thread_name_prefix="calc-publish")
_broker_down_until = 0.0


def _publish(run_id: str) -> bool:
    global _broker_down_until
    if time.monotonic() < _broker_down_until:
        return False
    future = _publisher.submit(run_calculation.apply_async, args=[run_id], retry=False)
    try:
        future.result(timeout=PUBLISH_DEADLINE_SECONDS)
    except Exception:  # kombu/redis/socket errors and the deadline all mean "not queued"
        logger.warning("could not publish calculation run %s", run_id, exc_info=True)
        _broker_down_until = time.monotonic() + BROKER_BACKOFF_SECONDS
        return False
    return True


def compute_now(*, run: CalculationRun) -> CalculationRun:
    """Compute a run in this process (pages fall back to it when the queue is down)."""
    # A run a live worker holds is left to it; execute_run then answers "held".
    CalculationRun.objects.filter(pk=run.pk, status__in=[Status.QUEUED, Status.FAILED]).update(
        status=Status.QUEUED, error=""
    )
    execute_run(run_id=str(run.pk))
    run.refresh_from_db()
    return run


def request_page_run(
    *, calculator: str, raw_inputs: Any, preset: str | None, user: Any
) -> tuple[CalculationRun, bool]:
    """run_request for HTML pages: if the queue is down, compute in-process instead so the
    page keeps working. Returns (run, computed_inline)."""
    try:
        run, _ = run_request(calculator=calculator, raw_inputs=raw_inputs, preset=preset, user=user)
        return run, False
    except BrokerUnavailable as exc:
        return compute_now(run=exc.run), True


def reap_abandoned(*, run_id: str | None = None) -> dict[str, int]:
    """Queue again, or fail, the runs whose worker died (their lease lapsed).

    Celery beat calls it for every run every few seconds (calculators.beat); the API and
    the run page call it for the one run a client is waiting on, so a learner is not left
    waiting on a beat that is down. Each row moves by compare-and-swap on the claim it was
    read with, so two reapers (or a reaper and a late worker) never both move it. A run
    queued again is published after commit; if the broker refuses, it is failed with the
    same message as any refused publish, and the next identical request queues it again.
    """
    now = timezone.now()
    rows = CalculationRun.objects.filter(leases.abandoned_q(now))
    if run_id is not None:
        rows = rows.filter(pk=run_id)
    counts = {"queued": 0, "failed": 0}
    for run in rows.only("pk", "claim", "attempts", "worker")[:200]:
        same = CalculationRun.objects.filter(pk=run.pk, status=Status.RUNNING, claim=run.claim)
        with transaction.atomic():
            if run.attempts >= MAX_ATTEMPTS:
                moved = same.update(
                    status=Status.FAILED,
                    error=ABANDONED_TOO_OFTEN.format(n=run.attempts),
                    finished_at=now,
                    claim=None,
                )
                counts["failed"] += moved
                continue
            moved = same.update(status=Status.QUEUED, claim=None, error="", enqueued_at=now)
            if moved:
                counts["queued"] += 1
                pk = str(run.pk)
                transaction.on_commit(functools.partial(_publish_or_fail, pk))
        if moved:
            logger.warning(
                "run %s: its worker %s stopped renewing its lease; %s",
                run.pk, run.worker or "?",
                "failed" if run.attempts >= MAX_ATTEMPTS else "queued again",
            )  # fmt: skip
    return counts
