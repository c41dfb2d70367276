"""Key points and graded-practice specs of a question: one set of rules for admin and files.

The model's ``clean`` (admin), the importer and ``check_content`` all ask these, so an
author sees the same reason on every path. Nothing here imports the models.
"""

from __future__ import annotations

import json

from calculators.grading import PracticeSpec, PracticeSpecError, parse_spec

KEY_POINTS_MIN, KEY_POINTS_MAX = 3, 6
KEY_POINT_LENGTH = (20, 240)


def key_point_problems(points: object) -> list[str]:
    """Why a question's ``key_points`` are unusable; an empty list (no points yet) is fine."""
    if points in (None, []):
        return []
    if not isinstance(points, list):
        return ["a list of 3-6 sentences"]
    problems = []
    if not KEY_POINTS_MIN <= len(points) <= KEY_POINTS_MAX:
        problems.append(f"give {KEY_POINTS_MIN}-{KEY_POINTS_MAX} key points, not {len(points)}")
    low, high = KEY_POINT_LENGTH
    for i, point in enumerate(points, start=1):
        if not isinstance(point, str) or not low <= len(point.strip()) <= high:
            problems.append(f"point {i}: one sentence of {low}-{high} characters")
    if len({p.strip().lower() for p in points if isinstance(p, str)}) != len(points):
        problems.append("two points say the same thing word for word")
    return problems


def practice_problems(data: object) -> list[str]:
    """Why a question's practice spec is unusable, as ``key: reason`` lines."""
    if not data:
        return []
    try:
        parse_spec(data)  # type: ignore[arg-type]
    except PracticeSpecError as exc:
        return [f"{key}: {reason}" for key, reasons in exc.fields.items() for reason in reasons]
    return []


_SPECS: dict[str, PracticeSpec | None] = {}


def practice_spec(data: object) -> PracticeSpec | None:
    """The parsed spec for ``data`` (None without one), parsed once per distinct spec."""
    if not data:
        return None
    key = json.dumps(data, sort_keys=True, default=str)
    if key not in _SPECS:
        if len(_SPECS) > 1000:
            _SPECS.clear()
        _SPECS[key] = parse_spec(data)  # type: ignore[arg-type]
    return _SPECS[key]
