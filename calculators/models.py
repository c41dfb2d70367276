"""Calculation runs: the database row is the source of truth for every result.

A run is identified by the canonical hash of (calculator, validated inputs), and a
unique constraint on it makes identical requests share one run and one task: asking
again returns the stored result instead of computing it twice. The Celery result
backend is never read for results; the task writes them here.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from typing import Any

from django.conf import settings
from django.db import models


def canonical_hash(calculator: str, inputs: dict[str, Any]) -> str:
    """sha256 of the calculator slug and its validated inputs as canonical JSON.

    Validation already turned inputs into canonical types (ints for integer inputs, floats
    for the rest, defaults and preset figures filled in), so sorting keys and fixing the
    separators is enough for equal requests to hash equally. The preset slug is not
    hashed: what matters is the figures it filled in.
    """
    payload = json.dumps(
        [calculator, inputs], sort_keys=True, separators=(",", ":"), allow_nan=False
    )
    return hashlib.sha256(payload.encode()).hexdigest()


class CalculationRun(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    calculator = models.CharField(max_length=40)
    inputs = models.JSONField(help_text="Validated inputs, defaults and preset figures included.")
    inputs_hash = models.CharField(max_length=64)
    preset = models.CharField(max_length=40, blank=True, help_text="As first requested.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    attempts = models.PositiveIntegerField(default=0, help_text="Times a worker started it.")
    # The lease (calculators.leases): who computes the run and when they last said so.
    claim = models.UUIDField(null=True, blank=True, editable=False)
    worker = models.CharField(
        max_length=120, blank=True, help_text="host:worker-pid:pid of the process computing it."
    )
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    enqueued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="calculation_runs",
    )

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["calculator", "inputs_hash"], name="calculation_run_unique_inputs"
            ),
            models.CheckConstraint(
                condition=models.Q(status__in=["queued", "running", "done", "failed"]),
                name="calculation_run_status_valid",
            ),
        ]
        indexes = [models.Index(fields=["status", "enqueued_at"], name="calc_run_status_idx")]

    def __str__(self) -> str:
        return f"{self.calculator} {self.status} ({self.id})"

    @property
    def is_finished(self) -> bool:
        return self.status in (self.Status.DONE, self.Status.FAILED)

    @property
    def queue_ms(self) -> float | None:
        if self.started_at and self.enqueued_at:
            return (self.started_at - self.enqueued_at).total_seconds() * 1000
        return None

    @property
    def compute_ms(self) -> float | None:
        if self.started_at and self.finished_at:
            return (self.finished_at - self.started_at).total_seconds() * 1000
        return None
