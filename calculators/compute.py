"""Run a kernel on clean inputs and shape the result for people and JSON.

``compute`` is what the Celery task, the CLI, the pages and the content directive all
call; it assumes inputs came from ``validation.validate`` (``run_inline`` does both).
The result is plain JSON: outputs as scalars or lists (NaN and infinity become null),
worked steps, the two generated texts, a display table and chart data.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from .formatting import with_unit
from .grids import GRID_KEY, grid_arrays, grid_chart
from .kernels import KERNELS
from .specs import BOOLEAN, CHOICE, INTEGER, SPECS, CalculatorSpec, Input, Output, Point
from .specs.base import column_label
from .validation import validate

STEP_COLUMNS = 3  # up to this many columns get their own worked steps
TABLE_COLUMNS = 12  # the display table shows at most this many columns

Arrays = dict[str, np.ndarray]


def run_inline(slug: str, raw_inputs: Any, preset: str | None = None) -> dict[str, Any]:
    """Validate and compute in-process (CLI, directive, tests)."""
    return compute(slug, validate(slug, raw_inputs, preset))


def kernel_call(spec: CalculatorSpec, inputs: Mapping[str, Any]) -> tuple[Arrays, Arrays]:
    """Call ``spec``'s kernel on clean inputs: (the arrays it was given, what it returned).
    A grid's two axes are spread over rows and columns first."""
    grid = inputs.get(GRID_KEY) or []
    arrays = {
        name: _as_array(spec, name, value)
        for name, value in spec.kernel_inputs(inputs).items()
        if name != GRID_KEY
    }
    if grid:
        arrays = grid_arrays(arrays, grid)
    return arrays, KERNELS[spec.slug](**arrays)


def compute(slug: str, inputs: dict[str, Any]) -> dict[str, Any]:
    spec = SPECS[slug]
    grid = inputs.get(GRID_KEY) or []
    arrays, raw_out = kernel_call(spec, inputs)
    shape = np.broadcast_shapes(
        *(a.shape for a in arrays.values()), *(np.shape(v) for v in raw_out.values())
    )
    outputs = {o.name: np.asarray(raw_out[o.name]) for o in spec.outputs if o.name in raw_out}
    n_points = int(np.prod(shape)) if shape else 1

    # A grid's points index the n × m cells, so its axes are spread over the grid first.
    point_inputs = (
        {
            k: np.broadcast_to(arrays[k], shape) if k in grid else v
            for k, v in inputs.items()
            if k != GRID_KEY
        }
        if grid
        else inputs
    )
    points = [
        _point(spec, point_inputs, outputs, i if shape else None)
        for i in range(min(n_points, TABLE_COLUMNS))
    ]
    return {
        "calculator": slug,
        "inputs": inputs,
        "shape": list(shape),
        "points": n_points,
        "outputs": {name: _jsonable(arr) for name, arr in outputs.items()},
        "units": {name: spec.output(name).unit for name in outputs},
        "steps": _steps(spec, points, n_points),
        **_texts(spec, points[:STEP_COLUMNS]),
        "table": _table(spec, points, n_points),
        "chart": grid_chart(spec, inputs, outputs, grid) if grid else spec.chart(points),
    }


def _as_array(spec: CalculatorSpec, name: str, value: Any) -> np.ndarray:
    kind = spec.input(name).kind
    dtype: Any = {INTEGER: np.int64, BOOLEAN: bool, CHOICE: str}.get(kind, np.float64)
    return np.asarray(value, dtype=dtype)


def _scalar(x: Any) -> Any:
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def _jsonable(arr: np.ndarray) -> Any:
    if arr.ndim == 0:
        return _scalar(arr[()])
    if arr.ndim > 1:  # a grid: a list of rows
        return [_jsonable(row) for row in arr]
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        return [None if not math.isfinite(v) else v for v in arr.tolist()]
    return arr.tolist()


def _at(value: Any, index: int | None) -> Any:
    flat = np.asarray(value).reshape(-1)
    return _scalar(flat[0] if index is None or flat.size == 1 else flat[index])


def _point(
    spec: CalculatorSpec, inputs: dict[str, Any], outputs: dict[str, np.ndarray], index: int | None
) -> Point:
    return Point(
        spec,
        {k: _at(v, index) for k, v in inputs.items()},
        {k: _at(v, index) for k, v in outputs.items()},
        index,
    )


def _steps(spec: CalculatorSpec, points: list[Point], n_points: int) -> list[dict[str, Any]]:
    if n_points == 1:
        return [{"title": None, "lines": spec.steps(points[0])}]
    if n_points <= STEP_COLUMNS:
        return [{"title": column_label(p, points), "lines": spec.steps(p)} for p in points]
    return [
        {
            "title": f"First of {n_points:,} points: {column_label(points[0], points)}",
            "lines": spec.steps(points[0]),
        }
    ]


def _texts(spec: CalculatorSpec, points: list[Point]) -> dict[str, list[str]]:
    needs: list[str] = []
    texts = [spec.texts(p) for p in points]
    # Each sentence is said once, naming the columns that say it: unprefixed when every
    # column does, "A: …" for one column, "A, C: …" for several (never the same bullet
    # twice with different prefixes).
    said_by: dict[str, list[str]] = {}
    for p, (est, need) in zip(points, texts, strict=True):
        for line in est:
            said_by.setdefault(line, []).append(column_label(p, points))
        for line in need:
            if line not in needs:
                needs.append(line)
    establishes: list[str] = []
    for line, labels in said_by.items():
        if len(points) == 1 or len(labels) == len(points):
            establishes.append(line)
        elif len(labels) == 1:
            establishes.append(f"{labels[0]}: {line}")
        else:
            establishes.append(", ".join(label[:1] for label in labels) + f": {line}")
    if spec.compare is not None and len(points) > 1:
        establishes = spec.compare(points) + establishes
    return {"establishes": establishes, "needs_measurement": needs}


def _table(spec: CalculatorSpec, points: list[Point], n_points: int) -> dict[str, Any]:
    def rows(fields: tuple[Input, ...] | tuple[Output, ...], present: Any) -> list[dict[str, Any]]:
        return [
            {
                "name": f.name,
                "label": f.label,
                "unit": f.unit,
                "cells": [p.f(f.name) for p in points],
            }
            for f in fields
            if f.name in present
        ]

    return {
        "columns": [column_label(p, points) for p in points] if n_points > 1 else [],
        "inputs": rows(spec.inputs, points[0].inputs),
        "outputs": rows(spec.outputs, points[0].outputs),
        "truncated": n_points > len(points),
        "total_points": n_points,
    }


def format_output(spec: CalculatorSpec, name: str, value: Any) -> str:
    """One output value (or list of values) with its unit, as the inline directive shows it."""
    o = spec.output(name)
    if isinstance(value, list):
        shown = [with_unit(v, "", kind=o.kind) for v in value[:TABLE_COLUMNS]]
        more = ", …" if len(value) > TABLE_COLUMNS else ""
        text = ", ".join(shown) + more
        if o.unit and o.kind not in ("pct", "text", "boolean"):
            text += "×" if o.unit == "x" else f" {o.unit}"
        return text
    return with_unit(value, o.unit, kind=o.kind)
