"""Celery tasks: thin adapters over calculators.execution.

The task takes a run id, never inputs or arrays; the row is the source of truth and
the task's return value is not used for results. acks_late plus an idempotent final
write make redelivery after a worker crash safe.
"""

from __future__ import annotations

from celery import shared_task
from celery.signals import worker_init, worker_process_init

from calculators.execution import execute_run
from calculators.runtime import keep_freed_memory

SOFT_TIME_LIMIT = 30  # seconds; a 10^6-point sweep takes well under one
TIME_LIMIT = 45


@shared_task(
    name="calculators.run",
    queue="calculators",
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=SOFT_TIME_LIMIT,
    time_limit=TIME_LIMIT,
    ignore_result=True,
)
def run_calculation(run_id: str) -> str:
    return execute_run(run_id=run_id)


@shared_task(name="calculators.noop", queue="calculators")
def noop() -> None:
    """Does nothing: the benchmark's baseline for a Celery round trip."""


@worker_init.connect
@worker_process_init.connect
def _tune_worker(**_: object) -> None:
    # Large sweeps allocate big arrays; keep freed ones for reuse (see calculators.runtime).
    keep_freed_memory()
    # Settings close SQLite connections after every request (CONN_MAX_AGE=0), and
    # inferview.celery applies that around every task too, so each run paid for a connect,
    # the WAL pragmas and a checkpoint on close: more than the computation. A worker
    # process runs one task at a time, so keeping its one connection open is safe.
    from django.db import connections

    for conn in connections.all():
        if conn.vendor == "sqlite" and conn.settings_dict.get("CONN_MAX_AGE") == 0:
            conn.settings_dict["CONN_MAX_AGE"] = None
