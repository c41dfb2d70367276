"""Which inputs a calculator box shows, and where each value came from.

A box (a ``{{calc}}`` block, a question's "work through the numbers" widget) lists the
inputs the author gave and, of the values the author did not give, those that changed the
result, each marked by where it came from: a hardware preset, a model's architecture or
the calculator's default. A filled value that played no part (the context length of a
weights-only decode bound, an MLA RoPE width on a GQA model) is left out. That is decided
by construction, not by a hand-kept list per calculator: the kernel runs again with the
input moved (doubled and halved within its range, every other choice, the other boolean)
and the input is shown only if some output moves. Kernels are NumPy calls of microseconds,
and boxes are cached with the rendered Markdown (``questions.markdown``) and the question's
embeds, so the extra calls cost no reader any time.

The compute precision is a selector the kernel never sees, so moving it proves nothing; it
is shown only where it chose the peak: a preset filled ``peak_tflops`` at that precision.
Where the author typed ``peak_tflops``, the box shows the precision that figure belongs to
(the preset's precision with that peak, or, without a preset, the precision the author
gave), or no precision at all: never "bf16" beside an FP8 peak.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import model_catalog, presets
from .compute import kernel_call
from .grids import GRID_KEY
from .specs import BOOLEAN, CHOICE, INTEGER, SPECS, CalculatorSpec, Input

GIVEN, PRESET, MODEL, DEFAULT, PEAK_MATCH = "given", "preset", "model", "default", "peak"
# How a table marks a value the author did not type.
MARKERS = {
    PRESET: "from the preset",
    MODEL: "from the model",
    DEFAULT: "default",
    PEAK_MATCH: "the peak's precision",
}
PEAK_TOLERANCE = 1e-3  # relative: a typed peak "is" a preset's figure within 0.1 %


@dataclass(frozen=True)
class Shown:
    """One input row of a box: where its value came from, and the value to show when it is
    not the clean input's (the precision a typed peak belongs to)."""

    source: str
    value: Any = None

    @property
    def marker(self) -> str:
        return MARKERS.get(self.source, "")


def input_sources(
    slug: str, raw: Mapping[str, Any], preset: str | None, clean: Mapping[str, Any]
) -> dict[str, str]:
    """Where each clean input came from: typed by the author, filled by the preset or the
    model (or a pasted config), or the calculator's default (validation's precedence)."""
    spec = SPECS[slug]
    names = spec.input_names
    model_filled: set[str] = set()
    fill_names = [n for n in names if n != "model"]
    model = raw.get("model")
    for m in model if isinstance(model, list) else [model]:
        if isinstance(m, str) and m in model_catalog.MODELS:
            model_filled |= set(model_catalog.model_fill(m, fill_names, spec.model_renames))
    if raw.get("config") is not None:
        try:
            model_filled |= set(
                model_catalog.config_fill(raw["config"], fill_names, spec.model_renames)
            )
        except model_catalog.ConfigError:
            pass
    preset_filled = set(spec.preset_fills) if preset else set()
    sources = {}
    for name in clean:
        if name == GRID_KEY:
            continue
        if raw.get(name) is not None:
            sources[name] = GIVEN
        elif name in preset_filled:
            sources[name] = PRESET
        elif name in model_filled:
            sources[name] = MODEL
        else:
            sources[name] = DEFAULT
    return sources


def shown_inputs(
    slug: str, clean: Mapping[str, Any], sources: Mapping[str, str], preset: str | None
) -> dict[str, Shown]:
    """The inputs a box lists, in the spec's order: every one the author typed, and every
    filled one that moves an output; the model when named; the precision by the rule above."""
    spec = SPECS[slug]
    base = _outputs(spec, clean)
    shown: dict[str, Shown] = {}
    for inp in spec.inputs:
        name = inp.name
        if name not in clean or name == "precision":
            continue
        source = sources.get(name, DEFAULT)
        if source == GIVEN or (not inp.selector and moves_result(spec, clean, name, base)):
            shown[name] = Shown(source)
    if "precision" in spec.input_names and "peak_tflops" in shown:
        label = precision_label(clean, sources, preset)
        if label is not None:
            shown["precision"] = label
        shown = {i.name: shown[i.name] for i in spec.inputs if i.name in shown}
    return shown


def precision_label(
    clean: Mapping[str, Any], sources: Mapping[str, str], preset: str | None
) -> Shown | None:
    """The precision to show beside the peak, or None (see the module docstring)."""
    precision = clean.get("precision")
    given = sources.get("precision") == GIVEN
    if sources.get("peak_tflops") == PRESET:  # the precision chose the peak
        return Shown(GIVEN if given else DEFAULT)
    peak = clean.get("peak_tflops")
    gpu = presets.GPUS.get(preset or "")
    if gpu is None:
        return Shown(GIVEN) if given and not isinstance(precision, list) else None
    if not isinstance(peak, int | float) or isinstance(precision, list):
        return None
    matches = peak_precisions(gpu, float(peak))
    if precision in matches:
        return Shown(GIVEN if given else PEAK_MATCH)
    return Shown(PEAK_MATCH, matches[0]) if matches else None


def peak_precisions(gpu: presets.GpuPreset, peak: float) -> list[str]:
    """The precisions whose dense peak on ``gpu`` is ``peak`` (FP8 before INT8)."""
    return [
        p
        for p in presets.PRECISIONS
        if (figure := gpu.peak(p)) is not None
        and math.isclose(figure, peak, rel_tol=PEAK_TOLERANCE)
    ]


def moves_result(
    spec: CalculatorSpec,
    clean: Mapping[str, Any],
    name: str,
    base: Mapping[str, np.ndarray] | None = None,
) -> bool:
    """Whether moving input ``name`` changes any output: a value that cannot be moved, or
    whose every move the kernel refuses, counts as moving it (shown rather than hidden)."""
    base = _outputs(spec, clean) if base is None else base
    tried = False
    for value in _moves(spec.input(name), clean[name]):
        try:
            out = _outputs(spec, {**clean, name: value})
        except (ValueError, TypeError, ZeroDivisionError, FloatingPointError):
            continue
        tried = True
        if not _same(base, out):
            return True
    return not tried


def box_table(result: dict[str, Any], shown: Mapping[str, Shown]) -> dict[str, Any]:
    """``result`` with its input table cut to ``shown``, each row carrying its marker."""
    rows = []
    for row in result["table"]["inputs"]:
        item = shown.get(row["name"])
        if item is None:
            continue
        cells = row["cells"] if item.value is None else [str(item.value)] * len(row["cells"])
        rows.append({**row, "cells": cells, "source": item.source, "marker": item.marker})
    return {**result, "table": {**result["table"], "inputs": rows}}


def _outputs(spec: CalculatorSpec, inputs: Mapping[str, Any]) -> dict[str, np.ndarray]:
    with np.errstate(all="ignore"):
        _, out = kernel_call(spec, inputs)
    return {k: np.asarray(v) for k, v in out.items()}


def _same(a: Mapping[str, np.ndarray], b: Mapping[str, np.ndarray]) -> bool:
    if a.keys() != b.keys():
        return False
    for name, x in a.items():
        y = b[name]
        if x.shape != y.shape:
            return False
        if x.dtype.kind in "fc" and y.dtype.kind in "fc":
            # A move under one part in 10⁵ is not a move: no figure shown (4 significant
            # digits) can show it, and the step's composition (m⁴ + c⁴)^¼ moves every
            # output by such amounts far from the crossover.
            if not np.allclose(x, y, rtol=1e-5, atol=0.0, equal_nan=True):
                return False
        elif not np.array_equal(x, y):
            return False
    return True


def _moves(inp: Input, value: Any) -> list[Any]:
    """Other values to try for one input, inside its range (a list moves every item)."""
    if inp.kind == BOOLEAN:
        flip = [not v for v in value] if isinstance(value, list) else not value
        return [flip]
    if inp.kind == CHOICE:
        if isinstance(value, list):
            return [[_other_choice(inp, v, i) for v in value] for i in range(len(inp.choices) - 1)]
        return [c for c in inp.choices if c != value]
    if isinstance(value, list):
        per_item = [_number_moves(inp, v) for v in value]
        return [
            [m[i] if i < len(m) else v for v, m in zip(value, per_item, strict=True)]
            for i in (0, 1)
        ]
    return _number_moves(inp, value)


def _other_choice(inp: Input, value: str, i: int) -> str:
    others = [c for c in inp.choices if c != value]
    return others[i] if i < len(others) else value


def _number_moves(inp: Input, x: float) -> list[float]:
    low = -math.inf if inp.min is None else inp.min
    high = math.inf if inp.max is None else inp.max
    candidates = [x * 2, x / 2] if x else [1.0, high if math.isfinite(high) else 2.0]
    out: list[float] = []
    for c in candidates:
        if inp.kind == INTEGER:
            c = float(round(c))
        if c == x or c > high or c < low or (inp.min_exclusive and c <= low):
            continue
        out.append(int(c) if inp.kind == INTEGER else c)
    return out


# ---------------------------------------------------------------- what check_content refuses

EFFICIENCIES = ("bandwidth_efficiency", "compute_efficiency")


def box_problems(
    slug: str, raw: Mapping[str, Any], preset: str | None, clean: Mapping[str, Any]
) -> list[tuple[str, str]]:
    """(rule, message) for each way a box would mislead: one ceiling derated alone
    (``efficiency``), a precision label that is not the peak's (``precision``)."""
    problems = []
    if message := derating_problem(slug, raw, clean):
        problems.append(("efficiency", message))
    if message := precision_problem(raw, preset, clean):
        problems.append(("precision", message))
    return problems


def _effective(
    spec: CalculatorSpec, clean: Mapping[str, Any], base: Mapping[str, np.ndarray], name: str
) -> Any:
    """The efficiency the kernel used: the author's, the spec's default, or, where the
    default is chosen by the kernel (by precision and phase, ``kernels.efficiency``), the
    decode figure it reports as ``decode_<name>``; 1.0 where the calculator has no such
    input (it always uses the whole ceiling)."""
    if name not in spec.input_names:
        return 1.0
    value = clean.get(name)
    if value is None:
        value = base.get(f"decode_{name}", np.asarray(1.0))
    return value


def derating_problem(slug: str, raw: Mapping[str, Any], clean: Mapping[str, Any]) -> str | None:
    """Where both a compute and a bandwidth ceiling shape the result, the two efficiencies
    must be equal unless the author set both (different on purpose, said in the text). A
    calculator without an input for one of them uses all of that ceiling (1.0)."""
    spec = SPECS[slug]
    if "peak_tflops" not in clean or "bandwidth_tbs" not in clean:
        return None
    base = _outputs(spec, clean)
    if not all(moves_result(spec, clean, n, base) for n in ("peak_tflops", "bandwidth_tbs")):
        return None
    values = {n: _effective(spec, clean, base, n) for n in EFFICIENCIES}
    given = [n for n in EFFICIENCIES if raw.get(n) is not None]
    try:
        equal = bool(np.all(np.asarray(values[EFFICIENCIES[0]]) == values[EFFICIENCIES[1]]))
    except ValueError:  # lists that do not broadcast: validation reports them
        return None
    if equal or len(given) == 2:
        return None

    def where(n: str) -> str:
        if n in given:
            return f"{n}={_text(values[n])}"
        if n not in spec.input_names:
            return f"{n} 1 (this calculator always uses the whole ceiling)"
        return f"{n} {_text(values[n])} (its default)"

    return (
        f"derates one ceiling alone: {where(EFFICIENCIES[0])} against "
        f"{where(EFFICIENCIES[1])}; give both efficiencies, equal unless the text says "
        "why they differ"
    )


def precision_problem(
    raw: Mapping[str, Any], preset: str | None, clean: Mapping[str, Any]
) -> str | None:
    """A precision the author gave beside a peak the author typed must be the precision of
    that peak on the preset's device (e.g. not bf16 beside the H100's 1,979 FP8 TFLOP/s)."""
    gpu = presets.GPUS.get(preset or "")
    if gpu is None or raw.get("precision") is None or raw.get("peak_tflops") is None:
        return None
    precision, peak = clean.get("precision"), clean.get("peak_tflops")
    # A sweep pairs the columns: one list against one value, or two lists item by item.
    precisions = precision if isinstance(precision, list) else None
    peaks = peak if isinstance(peak, list) else None
    if precisions is not None and peaks is not None:
        pairs = list(zip(precisions, peaks, strict=False))
    elif precisions is not None:
        pairs = [(p, peak) for p in precisions]
    else:
        pairs = [(precision, x) for x in peaks] if peaks is not None else [(precision, peak)]
    for p, x in pairs:
        own = gpu.peak(p) if isinstance(p, str) else None
        if not isinstance(x, int | float) or (
            own is not None and math.isclose(own, x, rel_tol=PEAK_TOLERANCE)
        ):
            continue
        matches = peak_precisions(gpu, float(x))
        fix = (
            f"{_text(x)} is its {matches[0]} peak: give precision={matches[0]}"
            if matches
            else f"{_text(x)} is none of its peaks: fix the figure or drop precision"
        )
        theirs = f"{_text(own)} TFLOP/s" if own is not None else "not published"
        return (
            f"precision {p} labels peak_tflops={_text(x)}, but the {gpu.name}'s {p} peak is "
            f"{theirs} ({fix}), or drop peak_tflops to take the preset's"
        )
    return None


def _text(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(_text(v) for v in value)
    return f"{value:g}" if isinstance(value, float) else str(value)
