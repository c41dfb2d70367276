"""A lesson's "check yourself": the items' shape, and grading a learner's answers.

Two kinds of item (``var/briefs/lesson-spec.md``):

- ``choice``: ``prompt``, 3-5 ``choices``, ``answer`` (the 0-based index of the one right
  choice), ``explain``. Graded by index.
- ``number``: ``prompt``, ``calculator``, optional ``preset``, ``inputs``, ``output``,
  ``unit``, ``tolerance`` (relative, at most 0.25), ``explain``. The expected value is the
  calculator kernel's output on those inputs (``calculators.validation`` then
  ``compute.kernel_call``, the path every page and directive takes), converted to ``unit``;
  the learner may answer in any unit of the same kind (``calculators.grading.convert``, the
  unit table graded practice uses) and is right within the tolerance.

Nothing here reads the database or knows who is answering: whether a reader may see the
answers and explanations is the access policy's decision, made by the caller.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from calculators.compute import kernel_call
from calculators.errors import CalculatorInputError
from calculators.grading import MAX_TOLERANCE, convert, dimension, units_like
from calculators.specs import SPECS
from calculators.validation import validate

KINDS = ("choice", "number")
MIN_ITEMS, MAX_ITEMS = 3, 5
MIN_CHOICES, MAX_CHOICES = 3, 5
DEFAULT_TOLERANCE = 0.02
CHOICE_KEYS = ("kind", "prompt", "choices", "answer", "explain")
NUMBER_KEYS = (
    "kind", "prompt", "calculator", "preset", "inputs", "output", "unit", "tolerance", "explain",
)  # fmt: skip


class CheckItemError(ValueError):
    """An item cannot be graded as written (a content problem, not the learner's)."""


def _number_problems(item: Mapping[str, Any], where: str) -> list[str]:
    problems = []
    slug = item.get("calculator")
    if slug not in SPECS:
        return [f"{where}: calculator: {slug!r} is not a calculator"]
    spec = SPECS[slug]
    output = item.get("output")
    if output not in {o.name for o in spec.outputs}:
        problems.append(f"{where}: output: {output!r} is not an output of {slug}")
    unit = item.get("unit")
    if not isinstance(unit, str) or not unit:
        problems.append(f"{where}: unit: required")
    elif output in {o.name for o in spec.outputs}:
        native = spec.output(output).unit
        if dimension(native) != dimension(unit):
            problems.append(f"{where}: unit: {unit!r} is not a unit of {output} ({native})")
    tolerance = item.get("tolerance", DEFAULT_TOLERANCE)
    if not isinstance(tolerance, (int, float)) or isinstance(tolerance, bool):
        problems.append(f"{where}: tolerance: not a number")
    elif not 0 < tolerance <= MAX_TOLERANCE:
        problems.append(f"{where}: tolerance: must be above 0 and at most {MAX_TOLERANCE}")
    inputs = item.get("inputs") or {}
    if not isinstance(inputs, Mapping):
        problems.append(f"{where}: inputs: a mapping of name: value")
    elif not problems:
        try:
            expected_value(item)
        except CheckItemError as exc:
            problems.append(f"{where}: {exc}")
    return problems


def check_item_problems(items: Any) -> list[str]:
    """Why ``items`` cannot be a lesson's check, one message per problem ([] when fine)."""
    if not isinstance(items, list):
        return ["check: a list of 3-5 items"]
    problems = []
    if not MIN_ITEMS <= len(items) <= MAX_ITEMS:
        problems.append(f"check: {len(items)} items; a check has {MIN_ITEMS}-{MAX_ITEMS}")
    for n, item in enumerate(items, start=1):
        where = f"check[{n}]"
        if not isinstance(item, Mapping):
            problems.append(f"{where}: not a mapping")
            continue
        kind = item.get("kind")
        if kind not in KINDS:
            problems.append(f"{where}: kind: {kind!r} is not one of {list(KINDS)}")
            continue
        allowed = CHOICE_KEYS if kind == "choice" else NUMBER_KEYS
        if extra := sorted(set(item) - set(allowed)):
            problems.append(f"{where}: unknown field(s) {', '.join(extra)}")
        for key in ("prompt", "explain"):
            if not isinstance(item.get(key), str) or not item[key].strip():
                problems.append(f"{where}: {key}: required")
        if kind == "choice":
            choices = item.get("choices")
            if not isinstance(choices, list) or not all(isinstance(c, str) for c in choices):
                problems.append(f"{where}: choices: a list of strings")
                continue
            if not MIN_CHOICES <= len(choices) <= MAX_CHOICES:
                problems.append(
                    f"{where}: choices: {len(choices)}; give {MIN_CHOICES}-{MAX_CHOICES}"
                )
            answer = item.get("answer")
            if (
                not isinstance(answer, int)
                or isinstance(answer, bool)
                or not 0 <= answer < len(choices)
            ):
                problems.append(f"{where}: answer: the 0-based index of the one right choice")
        else:
            problems.extend(_number_problems(item, where))
    return problems


def expected_value(item: Mapping[str, Any]) -> float:
    """A number item's right answer, in its ``unit``: the kernel run on its inputs."""
    slug = item["calculator"]
    try:
        clean = validate(slug, dict(item.get("inputs") or {}), item.get("preset") or None)
    except CalculatorInputError as exc:
        raise CheckItemError(f"inputs: {exc.fields_text()}") from exc
    spec = SPECS[slug]
    _, raw = kernel_call(spec, clean)
    if item["output"] not in raw:
        raise CheckItemError(f"output: {item['output']!r} was not computed")
    value = float(np.asarray(raw[item["output"]], dtype=np.float64).reshape(-1)[0])
    if not math.isfinite(value):
        raise CheckItemError(f"output: {item['output']} is not a finite number on these inputs")
    return convert(value, spec.output(item["output"]).unit, item["unit"])


@dataclass(frozen=True)
class ItemResult:
    """One item graded. ``error`` names a malformed answer (nothing was graded)."""

    correct: bool
    error: str = ""


@dataclass(frozen=True)
class CheckResult:
    items: tuple[ItemResult, ...]

    @property
    def passed(self) -> bool:
        return bool(self.items) and all(r.correct for r in self.items)

    @property
    def score(self) -> int:
        return sum(r.correct for r in self.items)

    @property
    def errors(self) -> dict[str, list[str]]:
        """Bad input per field (``item-<n>``, 1-based), as the API's error shape wants."""
        return {f"item-{n}": [r.error] for n, r in enumerate(self.items, 1) if r.error}


def _grade_choice(item: Mapping[str, Any], raw: Any) -> ItemResult:
    if raw in (None, ""):
        return ItemResult(False, "choose one answer")
    try:
        index = int(raw)
    except (TypeError, ValueError):
        return ItemResult(False, "not a choice")
    if isinstance(raw, bool) or not 0 <= index < len(item["choices"]):
        return ItemResult(False, "not one of the choices")
    return ItemResult(index == item["answer"])


def _grade_number(item: Mapping[str, Any], raw: Any) -> ItemResult:
    if not isinstance(raw, Mapping):
        raw = {"value": raw, "unit": item["unit"]}
    value, unit = raw.get("value"), raw.get("unit") or item["unit"]
    if value in (None, ""):
        return ItemResult(False, "enter a number")
    try:
        number = float(str(value).replace(",", "").strip())
    except ValueError:
        return ItemResult(False, f"{str(value)[:40]!r} is not a number")
    if not math.isfinite(number):
        return ItemResult(False, "enter a finite number")
    if unit not in units_like(item["unit"]):
        return ItemResult(False, f"unit: {str(unit)[:20]!r} is not a unit of {item['unit']}")
    answer = convert(number, unit, item["unit"])
    right = expected_value(item)
    tolerance = float(item.get("tolerance", DEFAULT_TOLERANCE))
    return ItemResult(abs(answer - right) <= tolerance * max(abs(right), 1e-300))


def grade_check(items: Sequence[Mapping[str, Any]], answers: Sequence[Any]) -> CheckResult:
    """Grade ``answers`` (one per item, in order: a choice index, or a number or
    ``{"value", "unit"}``) against ``items``. A missing answer is an error for its item."""
    answers = list(answers) + [None] * max(0, len(items) - len(answers))
    results = []
    for item, raw in zip(items, answers, strict=False):
        grader = _grade_choice if item.get("kind") == "choice" else _grade_number
        results.append(grader(item, raw))
    return CheckResult(tuple(results))


def public_items(items: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """What a reader may see of the items before answering: prompts, choices and units,
    never the answer, the calculator's inputs or the explanation."""
    out = []
    for item in items:
        if item.get("kind") == "choice":
            out.append(
                {"kind": "choice", "prompt": item["prompt"], "choices": list(item["choices"])}
            )
        else:
            out.append(
                {"kind": "number", "prompt": item["prompt"], "unit": item["unit"],
                 "units": units_like(item["unit"])}
            )  # fmt: skip
    return out
