"""Two-input grids (batch × context) and two-preset comparisons.

A grid names two swept inputs, ``"grid": ["batch_size", "seq_len"]`` beside the other
inputs (API body, CLI ``grid=batch_size,seq_len``, the page's grid fields). The first
input becomes the rows and the second the columns: compute reshapes them to (n, 1) and
(1, m), NumPy broadcasting does the rest, and every output comes back as an n × m grid
that the page draws as a heat map with values. The grid is part of the clean inputs, so
it is hashed and stored with the run and a permalink reproduces it.

A comparison is two preset slugs, ``"preset": "h100-sxm,h200"``: each preset-filled input
becomes a two-value sweep, so both columns come from one run, side by side in the table
and the chart.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .specs import BOOLEAN, CHOICE, CalculatorSpec

GRID_KEY = "grid"
# The output each grid calculator draws, and the boolean output that marks cells that do
# not fit (hatched and crossed on the heat map).
GRID_OUTPUTS: dict[str, tuple[str, str | None]] = {
    "kv_cache": ("total_gb", None),
    "decode_bound": ("tokens_per_s_total", None),
    "serving_estimate": ("tokens_per_s_total", "fits"),
}
GRID_EXAMPLES: dict[str, tuple[str, str]] = {
    "kv_cache": ("batch_size", "seq_len"),
    "decode_bound": ("batch_size", "kv_gb_per_seq"),
    "serving_estimate": ("concurrency", "prompt_tokens"),
}
MAX_COMPARE = 2


def split_grid(
    spec: CalculatorSpec, raw: Mapping[str, Any], errors: dict[str, list[str]]
) -> tuple[dict[str, Any], list[str]]:
    """Take the grid out of raw inputs: (the other inputs, the two axis names or [])."""
    rest = {k: v for k, v in raw.items() if k != GRID_KEY}
    value = raw.get(GRID_KEY)
    if value in (None, "", []):
        return rest, []
    if spec.slug not in GRID_OUTPUTS:
        errors[GRID_KEY] = [f"{spec.slug} takes no grid; {', '.join(GRID_OUTPUTS)} do"]
        return rest, []
    numeric = [i.name for i in spec.inputs if i.kind not in (BOOLEAN, CHOICE)]
    if (
        not isinstance(value, list | tuple)
        or len(value) != 2
        or not all(isinstance(v, str) for v in value)
    ):
        errors[GRID_KEY] = ["must name two inputs, rows then columns, e.g. batch_size,seq_len"]
        return rest, []
    problems = [f"{v!r} is not a numeric input of {spec.slug}" for v in value if v not in numeric]
    if value[0] == value[1]:
        problems.append("must name two different inputs")
    if problems:
        errors[GRID_KEY] = problems
        return rest, []
    return rest, list(value)


def check_grid(
    grid: list[str], lengths: Mapping[str, int], max_points: int, errors: dict[str, list[str]]
) -> None:
    """Both axes must be lists; every other input a single value; n × m within the cap."""
    for name in grid:
        if lengths.get(name, 1) < 2:
            errors.setdefault(name, []).append(
                "is a grid axis, so it needs a list of values (e.g. 1,8,32)"
            )
    for name, n in lengths.items():
        if name not in grid and n > 1:
            errors.setdefault(name, []).append(
                f"a grid sweeps only {grid[0]} and {grid[1]}; give {name} one value"
            )
    cells = lengths.get(grid[0], 1) * lengths.get(grid[1], 1)
    if cells > max_points:
        errors.setdefault(GRID_KEY, []).append(
            f"has {cells:,} cells; a grid may have at most {max_points:,}"
        )


def grid_arrays(arrays: dict[str, np.ndarray], grid: list[str]) -> dict[str, np.ndarray]:
    rows, cols = grid
    out = dict(arrays)
    out[rows] = arrays[rows].reshape(-1, 1)
    out[cols] = arrays[cols].reshape(1, -1)
    return out


def grid_chart(
    spec: CalculatorSpec,
    inputs: Mapping[str, Any],
    outputs: Mapping[str, np.ndarray],
    grid: list[str],
) -> dict[str, Any]:
    rows, cols = grid
    value_name, mask_name = GRID_OUTPUTS[spec.slug]
    value = spec.output(value_name)
    z = np.asarray(outputs[value_name], dtype=float)
    chart: dict[str, Any] = {
        "type": "heatmap",
        "title": f"{value.label} over {spec.input(rows).label.lower()} × "
        f"{spec.input(cols).label.lower()}",
        "value_label": value.label,
        "unit": value.unit,
        "y_label": rows,
        "x_label": cols,
        "y": list(inputs[rows]),
        "x": list(inputs[cols]),
        "z": [[v if np.isfinite(v) else None for v in row] for row in z.tolist()],
    }
    if mask_name and mask_name in outputs:
        chart["mask"] = (~np.asarray(outputs[mask_name], dtype=bool)).tolist()
        chart["mask_label"] = "does not fit"
    return chart


def compare_presets(
    slugs: list[str],
    one: Callable[[str], dict[str, Any]],
    errors: dict[str, list[str]],
) -> dict[str, Any]:
    """Preset figures of two presets as two-value lists, one column per preset.

    ``one`` is validation's single-preset lookup, so a comparison fills exactly what each
    preset alone would fill. A figure only one preset knows is left out for both."""
    slugs = [s.strip() for s in slugs if s.strip()]
    if len(slugs) != MAX_COMPARE or slugs[0] == slugs[1]:
        errors["preset"] = ["compare takes two different preset slugs, e.g. h100-sxm,h200"]
        return {}
    figures = [one(s) for s in slugs]
    if "preset" in errors:
        return {}
    return {
        name: [f[name] for f in figures]
        for name in figures[0]
        if all(name in f for f in figures[1:])
    }
