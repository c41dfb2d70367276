"""The data that describes a calculator: inputs, outputs, presets, steps, texts, chart.

A spec is data beside its kernel. Step and text functions receive a ``Point`` (one
column of a sweep or comparison, as Python scalars) and return lines with the numbers
substituted, so the same code serves pages, the API, the CLI and content directives.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from calculators.formatting import number, with_unit
from calculators.kernels.efficiency import STEP_P
from calculators.model_catalog import MODELS
from calculators.presets import DEFAULT_PRECISION, PRECISIONS

NUMBER, INTEGER, BOOLEAN, CHOICE = "number", "integer", "boolean", "choice"


@dataclass(frozen=True)
class Input:
    name: str
    label: str
    unit: str = ""
    default: Any = None  # None with required=False: optional, omitted when not given
    min: float | None = None
    max: float | None = None
    min_exclusive: bool = False  # e.g. bandwidth must be > 0, not >= 0
    kind: str = NUMBER  # number | integer | boolean | choice
    choices: tuple[str, ...] = ()
    required: bool = True
    help: str = ""
    # A selector (model, precision) that tells validation what to fill; it is shown with
    # the inputs but never passed to the kernel.
    selector: bool = False

    @property
    def integer(self) -> bool:
        return self.kind == INTEGER

    def describe_range(self) -> str:
        if self.kind in (BOOLEAN, CHOICE):
            return ""
        low = "" if self.min is None else f"{'>' if self.min_exclusive else '≥'} {number(self.min)}"
        high = "" if self.max is None else f"≤ {number(self.max)}"
        return ", ".join(p for p in (low, high) if p)

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "label": self.label,
            "unit": self.unit,
            "default": self.default,
            "min": self.min,
            "max": self.max,
            "min_exclusive": self.min_exclusive,
            "integer": self.integer,
            "kind": self.kind,
            "choices": list(self.choices),
            "required": self.required and self.default is None,
            "help": self.help,
            "selector": self.selector,
        }


@dataclass(frozen=True)
class Output:
    name: str
    label: str
    unit: str = ""
    kind: str = "number"  # number | pct | text | boolean | integer

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "label": self.label, "unit": self.unit, "kind": self.kind}


@dataclass(frozen=True)
class PresetFill:
    """An input a GPU preset fills: from which preset attribute, times what scale."""

    attribute: str
    scale: float = 1.0


class Point:
    """One column of a result as Python scalars, with formatting helpers for steps."""

    def __init__(
        self,
        spec: CalculatorSpec,
        inputs: Mapping[str, Any],
        outputs: Mapping[str, Any],
        index: int | None,
    ) -> None:
        self.spec, self.inputs, self.outputs, self.index = spec, inputs, outputs, index

    def has(self, name: str) -> bool:
        return self.inputs.get(name) is not None or self.outputs.get(name) is not None

    def v(self, name: str) -> Any:
        """The value of an input or output at this point."""
        if name in self.outputs:
            return self.outputs[name]
        return self.inputs.get(name)

    def f(self, name: str, sig: int = 4) -> str:
        """The value formatted with its unit."""
        unit, kind = self.spec.unit_of(name)
        return with_unit(self.v(name), unit, sig=sig, kind=kind)

    def n(self, name: str, sig: int = 4) -> str:
        """The value formatted without its unit."""
        return number(self.v(name), sig=sig)


StepsFn = Callable[[Point], list[str]]
TextsFn = Callable[[Point], tuple[list[str], list[str]]]
CompareFn = Callable[[list[Point]], list[str]]
CheckFn = Callable[[dict[str, Any]], dict[str, list[str]]]
ChartFn = Callable[[list[Point]], dict[str, Any]]


@dataclass(frozen=True)
class CalculatorSpec:
    slug: str
    title: str
    summary: str
    inputs: tuple[Input, ...]
    outputs: tuple[Output, ...]
    chart_type: str
    steps: StepsFn
    texts: TextsFn
    chart: ChartFn
    preset_fills: Mapping[str, PresetFill] = field(default_factory=dict)
    check: CheckFn | None = None
    compare: CompareFn | None = None
    example: Mapping[str, Any] = field(default_factory=dict)  # a meaningful first form
    # Inputs a ``model=<slug>`` fills from a catalogue field of another name (decode_bound's
    # params_b is the model's active_params_b); other inputs fill from the same name.
    model_renames: Mapping[str, str] = field(default_factory=dict)

    def input(self, name: str) -> Input:
        for i in self.inputs:
            if i.name == name:
                return i
        raise KeyError(name)

    @property
    def input_names(self) -> list[str]:
        return [i.name for i in self.inputs]

    def output(self, name: str) -> Output:
        for o in self.outputs:
            if o.name == name:
                return o
        raise KeyError(name)

    def unit_of(self, name: str) -> tuple[str, str]:
        for o in self.outputs:
            if o.name == name:
                return o.unit, o.kind
        for i in self.inputs:
            if i.name == name:
                # Fractions are entered as 0.5 but read more easily as 50 %.
                return ("", "pct") if i.unit == "fraction" else (i.unit, "number")
        return "", "number"

    def as_dict(self) -> dict[str, Any]:
        return {
            "slug": self.slug,
            "title": self.title,
            "summary": self.summary,
            "inputs": [i.as_dict() for i in self.inputs],
            "outputs": [o.as_dict() for o in self.outputs],
            "preset_fills": {k: v.attribute for k, v in self.preset_fills.items()},
            "chart": self.chart_type,
            "example": dict(self.example),
            "takes_model": any(i.name == "model" for i in self.inputs),
        }

    def kernel_inputs(self, inputs: Mapping[str, Any]) -> dict[str, Any]:
        """The clean inputs without the selectors (model, precision) the kernel never sees."""
        selectors = {i.name for i in self.inputs if i.selector}
        return {k: v for k, v in inputs.items() if k not in selectors}


# Inputs several calculators share, so labels, units and ranges agree everywhere.
def step_p() -> Input:
    return Input(
        "step_p",
        "Step composition exponent p",
        "",
        default=STEP_P,
        min=1,
        max=1000,
        help="A step with both a memory and a compute time takes (memory^p + compute^p)^(1/p): "
        "4 is fitted on published measurements (1.19x the larger at the crossover); 1 adds "
        "the two, a large p is the bare max.",
    )


def peak_tflops(required: bool = True) -> Input:
    return Input(
        "peak_tflops",
        "Peak compute throughput",
        "TFLOP/s",
        min=0,
        min_exclusive=True,
        max=1e5,
        required=required,
        help="Spec-sheet dense figure at the chosen precision (sparse is twice); a "
        "hardware preset fills it from its data sheet.",
    )


def precision() -> Input:
    return Input(
        "precision",
        "Compute precision",
        kind=CHOICE,
        choices=PRECISIONS,
        default=DEFAULT_PRECISION,
        selector=True,
        help="Which dense peak a hardware preset fills peak_tflops with (bf16 = FP16).",
    )


def model() -> Input:
    return Input(
        "model",
        "Model",
        kind=CHOICE,
        choices=tuple(MODELS),
        required=False,
        selector=True,
        help="Fills the architecture inputs from the model's config; values you type override it.",
    )


def bandwidth_tbs() -> Input:
    return Input(
        "bandwidth_tbs",
        "Memory bandwidth",
        "TB/s",
        min=0,
        min_exclusive=True,
        max=1000,
        help="Spec-sheet HBM/GDDR bandwidth, 1 TB/s = 10¹² bytes/s.",
    )


def params_b(label: str = "Parameters") -> Input:
    return Input("params_b", label, "billion", min=0, min_exclusive=True, max=1e5)


def bytes_per_param(default: float | None = None) -> Input:
    return Input(
        "bytes_per_param",
        "Bytes per parameter",
        "bytes",
        default=default,
        min=0,
        min_exclusive=True,
        max=32,
        help="2 for BF16/FP16, 1 for FP8/INT8, 0.5 for 4-bit; 16 for mixed-precision "
        "training state (weights, gradients and Adam moments).",
    )


def fraction(
    name: str, label: str, default: float | None, *, allow_zero: bool = False, help: str = ""
) -> Input:
    return Input(
        name,
        label,
        "fraction",
        default=default,
        min=0,
        min_exclusive=not allow_zero,
        max=1,
        help=help,
    )


# "peak" is the preset's dense peak at the calculator's ``precision`` input.
PEAK = "peak"
GPU_FILLS = {"peak_tflops": PresetFill(PEAK), "bandwidth_tbs": PresetFill("bandwidth_tbs")}


def bound_phrase(intensity: float, ridge: float) -> str:
    """'memory-bound by a factor of 4.7' style phrase from an intensity and a ridge."""
    if intensity >= ridge:
        return f"compute-bound by a factor of {number(intensity / ridge, sig=2)}"
    if intensity <= 0:
        return "memory-bound (no arithmetic at all)"
    return f"memory-bound by a factor of {number(ridge / intensity, sig=2)}"


def binding_ceiling(p: Point, bound: str) -> str:
    """Which ceiling binds and at what efficiency: "memory-bound at 70% of 3.35 TB/s",
    "compute-bound at 50% of 989 TFLOP/s"."""
    return f"{bound}-bound at {ceiling_share(p, bound)}"


def ceiling_share(p: Point, bound: str) -> str:
    """The share of a ceiling a result assumes: "70% of 3.35 TB/s". A calculator without an
    efficiency input for that ceiling uses all of it (100%)."""
    if bound == "compute":
        efficiency, figure = p.v("compute_efficiency"), p.f("peak_tflops")
    else:
        efficiency, figure = p.v("bandwidth_efficiency"), p.f("bandwidth_tbs")
    share = 100.0 if efficiency is None else float(efficiency) * 100
    return f"{number(share, sig=3)}% of {figure}"


def column_label(point: Point, points: list[Point]) -> str:
    """Name a column by a letter and the inputs that differ ("B (batch_size = 8)"), so the
    table, the steps, the texts and the chart all refer to it the same way.

    Every column of ``points`` is labelled on the first call and the labels kept on the
    points with the list they were made for: the steps, texts, table and chart ask again
    for each column, and finding the inputs that differ looks at every column."""
    if len(points) <= 1:
        return "input"
    kept = point.__dict__.get("_column_label")
    if kept is not None and kept[0] is points:
        return kept[1]
    varying = [
        name
        for name in point.spec.input_names
        if len({repr(q.inputs.get(name)) for q in points}) > 1
    ]
    for q in points:
        letter = "ABCDEFGHIJKL"[(q.index or 0) % 12]
        label = (
            f"{letter} (" + ", ".join(f"{name} = {q.n(name)}" for name in varying[:3]) + ")"
            if varying
            else letter
        )
        q.__dict__["_column_label"] = (points, label)
    return point.__dict__["_column_label"][1]


def part_of_whole_bars(
    points: list[Point], *, title: str, y_label: str, part: tuple[str, str], whole: tuple[str, str]
) -> dict[str, Any]:
    """A stacked bar per column: ``part`` below, the rest of ``whole`` above it.

    ``part`` and ``whole`` are (legend label, output name) pairs, e.g. the weights inside the
    recommended VRAM, or the active experts inside the resident weights.
    """
    (part_label, part_name), (rest_label, whole_name) = part, whole
    return {
        "type": "bars",
        "title": title,
        "y_label": y_label,
        "stacked": True,
        "categories": [column_label(p, points) for p in points],
        "segments": [
            {"label": part_label, "values": [p.v(part_name) for p in points]},
            {"label": rest_label, "values": [p.v(whole_name) - p.v(part_name) for p in points]},
        ],
    }
