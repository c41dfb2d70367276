"""The author check behind the Celery task: run ``calculators.grading.author_check`` on the
spec as it was saved and store the report for the question's admin page."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from calculators.grading import PracticeSpecError, author_check, parse_spec

from .models import PracticeCheck

SEEDS = 200


def run(check_id: int, seeds: int = SEEDS) -> bool | None:
    check = PracticeCheck.objects.filter(pk=check_id).first()
    if check is None:
        return None  # the question was deleted since
    try:
        spec = parse_spec(check.spec)
        report = author_check(spec, seeds=seeds) if spec else {"ok": True, "problems": []}
        status = PracticeCheck.Status.DONE
    except PracticeSpecError as exc:
        report = {"ok": False, "problems": [{"kind": "spec", "seed": -1, "detail": str(exc)}]}
        status = PracticeCheck.Status.FAILED
    with transaction.atomic():
        PracticeCheck.objects.filter(pk=check.pk).update(
            status=status, ok=report["ok"], report=report, finished_at=timezone.now()
        )
    return bool(report["ok"])
