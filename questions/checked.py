"""``checked: YYYY-MM``: the month a content item's facts were last verified.

One reading of the month for the files (``content_format``), the admin (the models'
validator) and the check (``content_check``), so all three refuse the same things: text
that is not ``YYYY-MM``, a month that does not exist (2026-13) and a month after the
current one (verification cannot be dated ahead). A YAML date (``2026-12-01``) is refused
too: the field claims a month, not a day.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from django.core.exceptions import ValidationError
from django.utils import timezone

MONTH = re.compile(r"^(\d{4})-(\d{2})$")


def month_problem(value: Any, *, today: dt.date | None = None) -> str | None:
    """Why ``value`` is not a usable checked month, or None."""
    if isinstance(value, dt.date):
        return f"{value.isoformat()} is a date; write the month alone, as YYYY-MM"
    text = str(value).strip()
    match = MONTH.match(text)
    if match is None:
        return f"{value!r} is not a month written YYYY-MM (e.g. 2026-12)"
    year, month = int(match.group(1)), int(match.group(2))
    if not 1 <= month <= 12 or year < 1970:
        return f"{text} is not a real month"
    today = today or timezone.now().date()
    if (year, month) > (today.year, today.month):
        return f"{text} is in the future"
    return None


def validate_checked(value: str) -> None:
    """The model fields' validator (the admin): empty, or a month ``month_problem`` accepts."""
    if value and (problem := month_problem(value)):
        raise ValidationError(problem)


def as_month(value: str) -> dt.date | None:
    """The first day of a stored ``YYYY-MM`` (what the pages format), or None."""
    match = MONTH.match(value or "")
    return dt.date(int(match.group(1)), int(match.group(2)), 1) if match else None
