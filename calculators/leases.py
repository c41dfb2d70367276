"""Who is computing a run, and whether they are still alive: the run's lease.

Celery's answer to a worker that dies mid-task is the broker's visibility timeout: the
unacknowledged message is handed out again once it expires (120 s in production, longer
than any legitimate run). A learner would watch a spinner for those two minutes. So a
run carries a lease instead:

- **Taking a run** is a compare-and-swap on the row (``take``): a queued run, or a running
  one whose lease lapsed, becomes running under a new ``claim`` token, with ``worker``
  naming the process (host, worker pid, pool-child pid) and ``heartbeat_at`` = now. Two
  deliveries of the same run cannot both win it, so a run is never computed twice at once.
- **Holding it** (``hold``): while the kernel computes, a thread in the same process renews
  ``heartbeat_at`` every ``renew_seconds()``. The thread dies with the process, so a lease
  that has not been renewed for ``lease_seconds()`` belongs to a process that is gone (or
  frozen): ``is_abandoned``.
- **A pool child killed** by SIGKILL: Celery redelivers at once (reject_on_worker_lost);
  the new child of the same worker sees its sibling's pid is gone (``holder_is_dead``: a
  check that is only sound inside one worker, whose children share a pid namespace) and
  takes the run without waiting for the lease.
- **A whole worker killed**: nobody renews, the lease lapses within ``lease_seconds()``,
  and ``calculators.services.reap_abandoned`` (Celery beat every few seconds, and inline
  when a client reads the run) queues it again or fails it with a reason. The broker's
  own redelivery, minutes later, then finds the run taken or finished and does nothing.

The final write is conditional on the claim (``execution.record_outcome``), so a frozen
process that wakes after its lease was taken over cannot overwrite the new attempt.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection
from django.db.models import F, Q
from django.utils import timezone

from calculators.models import CalculationRun

logger = logging.getLogger(__name__)

Status = CalculationRun.Status


def lease_seconds() -> float:
    """How long a lease lasts unrenewed. Short enough that a dead worker's run is back
    well inside 30 s; long enough that a busy database never makes a live one look dead."""
    return float(getattr(settings, "CALC_RUN_LEASE_SECONDS", 10.0))


def renew_seconds() -> float:
    return lease_seconds() / 4


def holder_name() -> str:
    """``host:worker-pid:pid``: the pool child and the worker it belongs to."""
    return f"{socket.gethostname()}:{os.getppid()}:{os.getpid()}"


def holder_is_dead(holder: str) -> bool:
    """True only when the holder was a sibling in this worker (same host, same parent
    worker pid) whose process no longer exists. Anything else (another host, another
    worker whose pids we cannot see soundly) is left to the lease."""
    host, _, rest = holder.partition(":")
    parent, _, pid = rest.partition(":")
    if host != socket.gethostname() or parent != str(os.getppid()) or not pid.isdigit():
        return False
    if int(pid) == os.getpid():
        return False  # another thread of ours (a threads pool) may be computing it
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:  # exists, but not ours to signal
        return False
    return False


def lapsed_before(now: datetime) -> datetime:
    return now - timedelta(seconds=lease_seconds())


def abandoned_q(now: datetime) -> Q:
    """Running rows whose lease lapsed (rows from before leases fall back to started_at)."""
    cutoff = lapsed_before(now)
    return Q(status=Status.RUNNING) & (
        Q(heartbeat_at__lt=cutoff) | Q(heartbeat_at__isnull=True, started_at__lt=cutoff)
    )


def is_abandoned(run: CalculationRun, now: datetime | None = None) -> bool:
    if run.status != Status.RUNNING:
        return False
    now = now or timezone.now()
    seen = run.heartbeat_at or run.started_at
    return seen is None or seen < lapsed_before(now)


def take(run: CalculationRun) -> uuid.UUID | None:
    """Make ``run`` (as just read) running under a new claim; None if someone else has it.

    The update names the status and claim it read, so of two processes racing for the
    same row exactly one changes it."""
    now = timezone.now()
    if run.status == Status.QUEUED:
        pass
    elif run.status == Status.RUNNING:
        if not (is_abandoned(run, now) or holder_is_dead(run.worker)):
            return None
    else:
        return None
    claim = uuid.uuid4()
    taken = CalculationRun.objects.filter(pk=run.pk, status=run.status, claim=run.claim).update(
        status=Status.RUNNING,
        claim=claim,
        worker=holder_name()[:120],
        started_at=now,
        heartbeat_at=now,
        attempts=F("attempts") + 1,
    )
    return claim if taken else None


@contextlib.contextmanager
def hold(run_id: str, claim: uuid.UUID) -> Iterator[None]:
    """Renew the lease from a thread of this process while the body computes."""
    stop = threading.Event()

    def renew() -> None:
        try:
            while not stop.wait(renew_seconds()):
                CalculationRun.objects.filter(pk=run_id, claim=claim, status=Status.RUNNING).update(
                    heartbeat_at=timezone.now()
                )
        except Exception:  # a database blip: the lease may lapse, the final write still checks
            logger.warning("could not renew the lease of run %s", run_id, exc_info=True)
        finally:
            if connection.connection is not None:
                connection.close()

    thread = threading.Thread(target=renew, name=f"lease-{run_id}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
