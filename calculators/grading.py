"""Parametric practice: draw a variant of a calculation question, grade a numeric answer.

An author gives a calculation question a *practice spec* (front matter ``target:``,
``variables:``, ``tolerance:``, ``mistakes:``, ``follow_ups:``). Each attempt draws its
numbers from a seed, so the same learner, question and attempt always see the same
variant. The grader runs the question's calculator on the variant, converts the
learner's unit into the target's, and accepts the answer within the relative tolerance;
otherwise it runs the calculator once per listed mistake (K and V counted once, a
missing factor of layers, ...) and names the mistake whose number the answer matches.

Nothing here imports Django: the spec is plain data and the kernels are the same ones the
calculator pages run, so a grade can never disagree with the worked steps shown beside it.
"""

from __future__ import annotations

import hashlib
import math
import re
import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import model_catalog, presets
from .compute import compute
from .errors import CalculatorInputError
from .formatting import number
from .kernels import KERNELS
from .specs import BOOLEAN, CHOICE, INTEGER, SPECS
from .validation import validate

SPEC_KEYS = ("target", "variables", "tolerance", "mistakes", "follow_ups")
DEFAULT_TOLERANCE = 0.02
MAX_TOLERANCE = 0.25
MAX_FOLLOW_UPS = 5
PRESET = "preset"  # a variable of this name draws the hardware preset


# ---------------------------------------------------------------------------- units

# unit -> (dimension, factor to the dimension's base unit)
_UNITS: dict[str, tuple[str, float]] = {
    "bytes": ("bytes", 1.0),
    "B": ("bytes", 1.0),
    "KB": ("bytes", 1e3),
    "MB": ("bytes", 1e6),
    "GB": ("bytes", 1e9),
    "TB": ("bytes", 1e12),
    "KiB": ("bytes", 2.0**10),
    "MiB": ("bytes", 2.0**20),
    "GiB": ("bytes", 2.0**30),
    "TiB": ("bytes", 2.0**40),
    "µs": ("time", 1e-6),
    "us": ("time", 1e-6),
    "ms": ("time", 1e-3),
    "s": ("time", 1.0),
    "min": ("time", 60.0),
    "h": ("time", 3600.0),
    "days": ("time", 86400.0),
    "tokens/s": ("token rate", 1.0),
    "k tokens/s": ("token rate", 1e3),
    "FLOP/s": ("compute rate", 1.0),
    "GFLOP/s": ("compute rate", 1e9),
    "TFLOP/s": ("compute rate", 1e12),
    "PFLOP/s": ("compute rate", 1e15),
    "FLOP": ("work", 1.0),
    "GFLOP": ("work", 1e9),
    "TFLOP": ("work", 1e12),
    "PFLOP": ("work", 1e15),
    "EFLOP": ("work", 1e18),
    "GB/s": ("bandwidth", 1e9),
    "TB/s": ("bandwidth", 1e12),
    "Gb/s": ("bandwidth", 1e9 / 8),
    "million": ("count", 1e6),
    "billion": ("count", 1e9),
    "trillion": ("count", 1e12),
    "tokens": ("tokens", 1.0),
    "k tokens": ("tokens", 1e3),
    "M tokens": ("tokens", 1e6),
    "fraction": ("fraction", 1.0),
    "%": ("fraction", 0.01),
    # Units that convert to no other, listed so the API can enumerate every answer unit
    # (tests/community/test_api_contract.py checks every practice unit in content/ is here).
    "USD": ("money", 1.0),
    "FLOP/byte": ("arithmetic intensity", 1.0),
}
# the order a unit menu lists them in (most used first within a dimension)
_MENU_ORDER = list(_UNITS)
_ALIASES = {"us": "µs"}
#: Every unit of the table an answer menu offers (aliases left out).
MENU_UNITS = tuple(u for u in _MENU_ORDER if u not in _ALIASES)
#: Every unit an answer may name (the API's enum): "" for a plain number (a target with no
#: unit, such as a batch size, or "the item's own unit"), then the menu's.
ANSWER_UNITS = ("", *MENU_UNITS)


def dimension(unit: str) -> str:
    """The dimension of ``unit``; a unit the table does not know is its own dimension."""
    return _UNITS[unit][0] if unit in _UNITS else f"unit:{unit}"


def units_like(unit: str) -> list[str]:
    """Every unit an answer to a ``unit`` target may be given in, for the form's menu."""
    dim = dimension(unit)
    if dim.startswith("unit:"):
        return [unit]
    return [u for u in _MENU_ORDER if _UNITS[u][0] == dim and u not in _ALIASES]


def convert(value: float, from_unit: str, to_unit: str) -> float:
    """``value`` in ``from_unit`` expressed in ``to_unit``; ValueError if they differ in kind."""
    if from_unit == to_unit:
        return float(value)
    if dimension(from_unit) != dimension(to_unit):
        raise ValueError(f"{from_unit} cannot be converted to {to_unit}")
    return float(value) * _UNITS[from_unit][1] / _UNITS[to_unit][1]


# ------------------------------------------------------------------------- mistakes

Inputs = dict[str, Any]
# a mistake's model: clean inputs -> the (inputs, output factor) pairs it could produce;
# an empty list when the mistake cannot happen on these inputs
Model = Callable[[str, Inputs, str], list[tuple[Inputs, float]]]

BYTE_INPUTS = (
    "bytes_per_elem",
    "bytes_per_param",
    "kv_bytes_per_token",
    "embedding_bytes",
    "lm_head_bytes",
)
PRECISION_CHOICES = ("kv_precision", "weight_precision")
COUNT_INPUTS = ("tp", "gpus")
KV_CALCULATORS = ("kv_cache", "decode_bound", "serving_estimate", "paged_kv_capacity")


# a mistake made on the result itself: (the right value, the spec's unit) -> the numbers
# a learner typing the slip would give, in that unit (a reciprocal cannot be a factor)
Outputs = Callable[[float, str], list[float]]


@dataclass(frozen=True)
class Mistake:
    slug: str
    label: str  # what the learner did, shown when the grader names it
    explanation: str  # how to avoid it
    model: Model
    outputs: Outputs | None = None  # used instead of ``model`` when given


def _bits_for_bytes(slug: str, inputs: Inputs, unit: str) -> list[tuple[Inputs, float]]:
    changed = {k: inputs[k] * 8 for k in BYTE_INPUTS if _positive(inputs.get(k))}
    return [({**inputs, **changed}, 1.0)] if changed else []


def _kv_once(slug: str, inputs: Inputs, unit: str) -> list[tuple[Inputs, float]]:
    if slug not in KV_CALCULATORS or inputs.get("kv_lora_rank"):
        return []  # MLA caches one joint latent: there is no separate V to forget
    if _positive(inputs.get("kv_bytes_per_token")):
        return [({**inputs, "kv_bytes_per_token": inputs["kv_bytes_per_token"] / 2}, 1.0)]
    heads = inputs.get("kv_heads")
    if isinstance(heads, int) and heads >= 2 and heads % 2 == 0:
        return [({**inputs, "kv_heads": heads // 2}, 1.0)]
    if slug == "kv_cache" and _positive(inputs.get("bytes_per_elem")):
        return [({**inputs, "bytes_per_elem": inputs["bytes_per_elem"] / 2}, 1.0)]
    return []


def _per_gpu_vs_total(slug: str, inputs: Inputs, unit: str) -> list[tuple[Inputs, float]]:
    for name in COUNT_INPUTS:
        n = inputs.get(name)
        if isinstance(n, int | float) and not isinstance(n, bool) and n > 1:
            return [(inputs, float(n)), (inputs, 1.0 / n)]
    return []


def _bf16_for_fp8(slug: str, inputs: Inputs, unit: str) -> list[tuple[Inputs, float]]:
    changed: Inputs = {k: 2 for k in BYTE_INPUTS[:2] if inputs.get(k) == 1}
    changed |= {k: "bf16" for k in PRECISION_CHOICES if inputs.get(k) == "fp8"}
    return [({**inputs, **changed}, 1.0)] if changed else []


def _gb_vs_gib(slug: str, inputs: Inputs, unit: str) -> list[tuple[Inputs, float]]:
    if dimension(unit) != "bytes":
        return []
    ratio = 2.0**30 / 1e9
    return [(inputs, 1 / ratio), (inputs, ratio)]


def _missing_layers(slug: str, inputs: Inputs, unit: str) -> list[tuple[Inputs, float]]:
    layers = inputs.get("layers")
    if not isinstance(layers, int) or layers <= 1:
        return []
    one = {**inputs, "layers": 1}
    if "local_layers" in inputs:
        one["local_layers"] = 0
    return [(one, 1.0)]


def _sparse_peak(slug: str, inputs: Inputs, unit: str) -> list[tuple[Inputs, float]]:
    if not _positive(inputs.get("peak_tflops")):
        return []
    return [({**inputs, "peak_tflops": inputs["peak_tflops"] * 2}, 1.0)]


def _seconds_vs_ms(slug: str, inputs: Inputs, unit: str) -> list[tuple[Inputs, float]]:
    if dimension(unit) != "time":
        return []
    return [(inputs, 1000.0), (inputs, 0.001)]


def _bytes_per_param(slug: str, inputs: Inputs, unit: str) -> list[tuple[Inputs, float]]:
    """A 2x or 4x slip in bytes per parameter or element (FP16 for FP8, FP32 for BF16,
    INT4 counted as a byte...): each byte input scaled by 2 or 4 either way."""
    names = [k for k in BYTE_INPUTS if _positive(inputs.get(k))]
    if not names:
        return []
    return [
        ({**inputs, **{k: inputs[k] * scale for k in names}}, 1.0)
        for scale in (2.0, 0.5, 4.0, 0.25)
    ]


def _per_gpu_vs_node(slug: str, inputs: Inputs, unit: str) -> list[tuple[Inputs, float]]:
    """Per GPU read as per node (or back): a factor of the GPUs in a node (8 unless given)."""
    n = inputs.get("gpus_per_node", 8)
    if not _positive(n) or n <= 1:
        return []
    return [(inputs, float(n)), (inputs, 1.0 / n)]


def _missing_tp_or_batch(slug: str, inputs: Inputs, unit: str) -> list[tuple[Inputs, float]]:
    """The tensor-parallel degree or the batch left out: the input set to 1."""
    out = []
    for name in ("tp", "batch", "batch_size", "concurrency"):
        n = inputs.get(name)
        if isinstance(n, int) and not isinstance(n, bool) and n > 1:
            out.append(({**inputs, name: 1}, 1.0))
    return out


def _rate_vs_time_per_token(right: float, unit: str) -> list[float]:
    """Tokens/s given where ms (or s) per token was asked, or the reverse: the reciprocal,
    typed as a number in the question's unit."""
    if not math.isfinite(right) or right <= 0:
        return []
    dim = dimension(unit)
    if dim == "token rate":
        per_s = convert(right, unit, "tokens/s")
        return [1000.0 / per_s, 1.0 / per_s]  # ms per token, s per token
    if dim == "time":
        return [1.0 / convert(right, unit, "s")]  # tokens/s typed as the time
    return []


MISTAKES: dict[str, Mistake] = {
    m.slug: m
    for m in (
        Mistake(
            "bits-for-bytes",
            "You used bits where bytes were meant (16 for BF16 instead of 2).",
            "Precision names give bits; memory is counted in bytes: divide the bit width by 8.",
            _bits_for_bytes,
        ),
        Mistake(
            "kv-counted-once",
            "You counted K and V once: the cache stores a key and a value per head.",
            "Per token and layer the cache holds 2 × KV heads × head dim elements.",
            _kv_once,
        ),
        Mistake(
            "per-gpu-vs-total",
            "You mixed the per-GPU figure and the total across GPUs.",
            "Decide whether the question asks per GPU or for the whole group, then "
            "multiply or divide by the GPU count once.",
            _per_gpu_vs_total,
        ),
        Mistake(
            "bf16-for-fp8",
            "You used BF16's 2 bytes for a value stored in FP8 (1 byte).",
            "FP8 weights or KV entries take 1 byte each, half of BF16.",
            _bf16_for_fp8,
        ),
        Mistake(
            "gb-vs-gib",
            "You mixed GB (10⁹ bytes) and GiB (2³⁰ bytes), a 7.4% difference.",
            "Data sheets print GB; nvidia-smi and most allocators print GiB.",
            _gb_vs_gib,
        ),
        Mistake(
            "missing-layers",
            "You left out the factor of layers: that is one layer's worth.",
            "Every transformer layer keeps its own copy; multiply by the layer count.",
            _missing_layers,
        ),
        Mistake(
            "sparse-peak",
            "You used the sparse (2:4) peak, twice the dense figure the work runs at.",
            "Data sheets headline the sparse figure; dense GEMMs get half of it.",
            _sparse_peak,
        ),
        Mistake(
            "bytes-per-param",
            "You used the wrong bytes per parameter: the answer is off by 2× or 4×.",
            "Bytes per parameter: FP32 4, BF16/FP16 2, FP8/INT8 1, INT4 0.5 (plus scales).",
            _bytes_per_param,
        ),
        Mistake(
            "per-gpu-vs-node",
            "You mixed the per-GPU figure and the per-node one (a node holds several GPUs).",
            "Say which the question asks for, then multiply or divide by the GPUs per node once.",
            _per_gpu_vs_node,
        ),
        Mistake(
            "missing-tp-or-batch",
            "You left out the tensor-parallel degree or the batch: one GPU's or one "
            "sequence's worth.",
            "Multiply by the batch for the work per step; divide by TP for each GPU's share.",
            _missing_tp_or_batch,
        ),
        Mistake(
            "tokens-per-s-vs-ms-per-token",
            "You gave tokens per second where time per token was asked, or the reverse.",
            "Time per token and tokens per second are reciprocals: ms per token = 1,000 ÷ "
            "tokens/s.",
            lambda slug, inputs, unit: [],
            outputs=_rate_vs_time_per_token,
        ),
        Mistake(
            "seconds-vs-ms",
            "You mixed seconds and milliseconds: the answer is off by a factor of 1,000.",
            "Carry the unit through every step and convert once at the end.",
            _seconds_vs_ms,
        ),
    )
}


def _positive(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


# ----------------------------------------------------------------------------- spec


class PracticeSpecError(ValueError):
    """A practice spec an author wrote is unusable; ``fields`` names each problem."""

    def __init__(self, fields: Mapping[str, list[str]]):
        self.fields = {k: list(v) for k, v in fields.items()}
        super().__init__("; ".join(f"{k}: {', '.join(v)}" for k, v in self.fields.items()))


@dataclass(frozen=True)
class Variable:
    name: str
    values: tuple[Any, ...] = ()  # a value set to choose from, or
    low: float | None = None  # a range [low, high] on a grid of ``step``
    high: float | None = None
    step: float | None = None

    def draw(self, rng: np.random.Generator) -> Any:
        if self.values:
            return self.values[int(rng.integers(len(self.values)))]
        assert self.low is not None and self.high is not None and self.step is not None
        count = int(math.floor((self.high - self.low) / self.step + 1e-9)) + 1
        value = self.low + self.step * int(rng.integers(count))
        if all(float(x).is_integer() for x in (self.low, self.step)):
            return int(round(value))
        return float(number(value, sig=6).replace(",", ""))


@dataclass(frozen=True)
class FollowUp:
    prompt: str
    set: dict[str, Any]


@dataclass(frozen=True)
class PracticeSpec:
    calculator: str
    output: str
    unit: str
    prompt: str
    preset: str | None = None
    inputs: dict[str, Any] = field(default_factory=dict)
    variables: tuple[Variable, ...] = ()
    tolerance: float = DEFAULT_TOLERANCE
    mistakes: tuple[str, ...] = ()
    follow_ups: tuple[FollowUp, ...] = ()

    @property
    def units(self) -> list[str]:
        return units_like(self.unit)


def parse_spec(data: Mapping[str, Any]) -> PracticeSpec | None:
    """The practice spec in a question's ``practice`` data, or None when it has none.

    Raises PracticeSpecError naming each bad key (``target.output``, ``variables.seq_len``,
    ``mistakes``...), including a default variant the calculator rejects.
    """
    if not data:
        return None
    errors: dict[str, list[str]] = {}
    if not isinstance(data, Mapping):
        raise PracticeSpecError({"practice": ["must be a mapping of target, variables, ..."]})
    for key in data:
        if key not in SPEC_KEYS:
            errors.setdefault(str(key), []).append(
                f"unknown practice key; expected {', '.join(SPEC_KEYS)}"
            )
    target = data.get("target")
    if not isinstance(target, Mapping):
        raise PracticeSpecError({"target": ["must give calculator, output, unit and prompt"]})
    calculator = str(target.get("calculator", ""))
    spec = SPECS.get(calculator)
    if spec is None:
        raise PracticeSpecError(
            {"target.calculator": [f"unknown calculator {calculator!r}; one of {', '.join(SPECS)}"]}
        )
    output = str(target.get("output", ""))
    if output not in {o.name for o in spec.outputs}:
        errors.setdefault("target.output", []).append(
            f"{calculator} has no output {output!r}; one of "
            f"{', '.join(o.name for o in spec.outputs)}"
        )
        out_unit = ""
    else:
        out_unit = spec.output(output).unit
    unit = str(target.get("unit") or out_unit)
    if out_unit and dimension(unit) != dimension(out_unit):
        errors.setdefault("target.unit", []).append(
            f"{unit!r} cannot express {output} (in {out_unit})"
        )
    prompt = target.get("prompt")
    if not isinstance(prompt, str) or len(prompt.strip()) < 20:
        errors.setdefault("target.prompt", []).append("write the question, 20 characters or more")
        prompt = ""
    preset = target.get("preset")
    if preset is not None and preset not in presets.GPUS:
        errors.setdefault("target.preset", []).append(f"unknown GPU preset {preset!r}")
    fixed = target.get("inputs") or {}
    if not isinstance(fixed, Mapping):
        errors.setdefault("target.inputs", []).append("must be a mapping of input: value")
        fixed = {}
    for key in target:
        if key not in ("calculator", "output", "unit", "prompt", "preset", "inputs"):
            errors.setdefault(f"target.{key}", []).append(
                "unknown; expected calculator, output, unit, prompt, preset, inputs"
            )

    variables = _parse_variables(data.get("variables"), spec, errors)
    tolerance = data.get("tolerance", DEFAULT_TOLERANCE)
    if (
        not isinstance(tolerance, int | float)
        or isinstance(tolerance, bool)
        or not 0 < tolerance <= MAX_TOLERANCE
    ):
        errors.setdefault("tolerance", []).append(
            f"a relative tolerance above 0 and at most {MAX_TOLERANCE} (0.02 is 2%)"
        )
        tolerance = DEFAULT_TOLERANCE
    mistakes = data.get("mistakes") or []
    if not isinstance(mistakes, list) or not all(isinstance(m, str) for m in mistakes):
        errors.setdefault("mistakes", []).append("a list of mistake names")
        mistakes = []
    for m in mistakes:
        if m not in MISTAKES:
            errors.setdefault("mistakes", []).append(
                f"unknown mistake {m!r}; one of {', '.join(MISTAKES)}"
            )
    follow_ups = _parse_follow_ups(data.get("follow_ups"), spec, variables, errors)
    known = {v.name for v in variables} | set(spec.input_names) | {PRESET}
    if prompt:
        for text, where in [(prompt, "target.prompt")] + [
            (f.prompt, f"follow_ups.{i + 1}") for i, f in enumerate(follow_ups)
        ]:
            for _, name, _, _ in string.Formatter().parse(text):
                if name is not None and name not in known:
                    errors.setdefault(where, []).append(f"{{{name}}} is not a variable or input")
    if errors:
        raise PracticeSpecError(errors)
    parsed = PracticeSpec(
        calculator=calculator,
        output=output,
        unit=unit,
        prompt=prompt.strip(),
        preset=preset,
        inputs=dict(fixed),
        variables=variables,
        tolerance=float(tolerance),
        mistakes=tuple(mistakes),
        follow_ups=follow_ups,
    )
    try:  # the first value of every variable must make a valid variant
        variant = {v.name: v.values[0] if v.values else v.low for v in variables}
        clean_inputs(parsed, variant)
        for f in follow_ups:
            clean_inputs(parsed, {**variant, **f.set})
    except CalculatorInputError as exc:
        raise PracticeSpecError({f"target.inputs.{k}": v for k, v in exc.fields.items()}) from exc
    return parsed


def _parse_variables(raw: Any, spec: Any, errors: dict[str, list[str]]) -> tuple[Variable, ...]:
    if not raw:
        errors.setdefault("variables", []).append(
            "give at least one variable, so each attempt draws new numbers"
        )
        return ()
    if not isinstance(raw, Mapping):
        errors.setdefault("variables", []).append("must be a mapping of name: values or range")
        return ()
    out = []
    for name, value in raw.items():
        where = f"variables.{name}"
        if name != PRESET and name not in spec.input_names:
            errors.setdefault(where, []).append(f"not an input of {spec.slug}")
            continue
        if isinstance(value, list):
            if len(value) < 2 or len(set(map(str, value))) != len(value):
                errors.setdefault(where, []).append("list two or more different values")
                continue
            if name == PRESET:
                unknown = [v for v in value if v not in presets.GPUS]
                if unknown:
                    errors.setdefault(where, []).append(f"unknown GPU preset(s) {unknown}")
                    continue
            out.append(Variable(name, values=tuple(value)))
        elif isinstance(value, Mapping) and {"min", "max"} <= set(value):
            low, high, step = value["min"], value["max"], value.get("step", 1)
            if not all(_positive(x) or x == 0 for x in (low, high)) or not _positive(step):
                errors.setdefault(where, []).append("min, max and step must be numbers")
                continue
            if not low < high:
                errors.setdefault(where, []).append("min must be below max")
                continue
            out.append(Variable(name, low=low, high=high, step=step))
        else:
            errors.setdefault(where, []).append("a list of values or {min, max, step}")
    return tuple(out)


def _parse_follow_ups(
    raw: Any, spec: Any, variables: tuple[Variable, ...], errors: dict[str, list[str]]
) -> tuple[FollowUp, ...]:
    if not raw:
        return ()
    if not isinstance(raw, list) or len(raw) > MAX_FOLLOW_UPS:
        errors.setdefault("follow_ups", []).append(f"a list of at most {MAX_FOLLOW_UPS}")
        return ()
    out = []
    for i, item in enumerate(raw, start=1):
        where = f"follow_ups.{i}"
        if not isinstance(item, Mapping) or not isinstance(item.get("prompt"), str):
            errors.setdefault(where, []).append("give a prompt and what it sets")
            continue
        changes = item.get("set")
        if not isinstance(changes, Mapping) or len(changes) != 1:
            errors.setdefault(where, []).append("set exactly one input (the one that changes)")
            continue
        (name,) = changes
        if name != PRESET and name not in spec.input_names:
            errors.setdefault(where, []).append(f"{name!r} is not an input of {spec.slug}")
            continue
        out.append(FollowUp(prompt=item["prompt"].strip(), set=dict(changes)))
    return tuple(out)


# --------------------------------------------------------------------------- variants


def seed_for(learner: str, question_key: str, attempt: int) -> int:
    """A stable 63-bit seed: the same learner, question and attempt draw the same numbers."""
    digest = hashlib.sha256(f"{learner}|{question_key}|{attempt}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def draw(spec: PracticeSpec, seed: int) -> dict[str, Any]:
    """The variant (variable -> value) that ``seed`` draws, in the spec's variable order."""
    rng = np.random.Generator(np.random.PCG64(seed))
    return {v.name: v.draw(rng) for v in spec.variables}


def with_follow_up(spec: PracticeSpec, variant: Mapping[str, Any], follow_up: int | None) -> dict:
    """The variant with follow-up ``follow_up`` (1-based) applied; ValueError if none such."""
    if follow_up is None:
        return dict(variant)
    if not 1 <= follow_up <= len(spec.follow_ups):
        raise ValueError(f"this question has {len(spec.follow_ups)} follow-up(s)")
    return {**variant, **spec.follow_ups[follow_up - 1].set}


def clean_inputs(spec: PracticeSpec, variant: Mapping[str, Any]) -> dict[str, Any]:
    """The calculator's clean inputs for a variant (raises CalculatorInputError)."""
    raw = {**spec.inputs, **{k: v for k, v in variant.items() if k != PRESET}}
    return validate(spec.calculator, raw, variant.get(PRESET, spec.preset))


def labels(spec: PracticeSpec, variant: Mapping[str, Any]) -> dict[str, str]:
    """How each value reads in a prompt: model and GPU names, numbers with separators."""
    calc = SPECS[spec.calculator]
    try:
        filled = clean_inputs(spec, variant)  # defaults and model figures, for the prompt
    except CalculatorInputError:
        filled = {}
    out = {}
    values = {**filled, **spec.inputs, **variant}
    if spec.preset is not None:
        values.setdefault(PRESET, spec.preset)
    for name, value in values.items():
        if name == "model" and value in model_catalog.MODELS:
            out[name] = model_catalog.MODELS[value].name
        elif name == PRESET and value in presets.GPUS:
            out[name] = presets.GPUS[value].name
        elif isinstance(value, bool):
            out[name] = "yes" if value else "no"
        elif isinstance(value, int | float):
            out[name] = number(value, sig=6)
        else:
            kind = calc.input(name).kind if name in calc.input_names else None
            out[name] = (
                str(value).upper() if kind == CHOICE and name.endswith("precision") else str(value)
            )
    return out


def prompt_for(spec: PracticeSpec, variant: Mapping[str, Any], follow_up: int | None = None) -> str:
    """The prompt with the variant's numbers (and the follow-up's change) filled in."""
    values = with_follow_up(spec, variant, follow_up)
    text = spec.prompt if follow_up is None else spec.follow_ups[follow_up - 1].prompt
    return text.format_map(labels(spec, values))


# ---------------------------------------------------------------------------- grading


_DTYPES: dict[str, Any] = {INTEGER: np.int64, BOOLEAN: bool, CHOICE: str}  # as compute does


def evaluate(spec: PracticeSpec, inputs: Mapping[str, Any], factor: float = 1.0) -> float:
    """The target output, in the spec's unit, of the kernel run on clean ``inputs``."""
    calc = SPECS[spec.calculator]
    arrays = {
        k: np.asarray(v, dtype=_DTYPES.get(calc.input(k).kind, np.float64))
        for k, v in calc.kernel_inputs(inputs).items()
    }
    raw = KERNELS[spec.calculator](**arrays)
    value = float(np.asarray(raw[spec.output]).reshape(-1)[0]) * factor
    return convert(value, calc.output(spec.output).unit, spec.unit)


def expected(spec: PracticeSpec, variant: Mapping[str, Any], follow_up: int | None = None) -> float:
    return evaluate(spec, clean_inputs(spec, with_follow_up(spec, variant, follow_up)))


def mistaken_values(
    spec: PracticeSpec, inputs: Mapping[str, Any], names: Sequence[str] | None = None
) -> dict[str, list[float]]:
    """Each listed mistake's candidate answers (in the spec's unit) on clean ``inputs``."""
    out: dict[str, list[float]] = {}
    right: float | None = None
    for name in spec.mistakes if names is None else names:
        mistake = MISTAKES[name]
        if mistake.outputs is not None:
            right = evaluate(spec, inputs) if right is None else right
            out[name] = mistake.outputs(right, spec.unit)
            continue
        out[name] = [
            evaluate(spec, changed, factor)
            for changed, factor in mistake.model(spec.calculator, dict(inputs), spec.unit)
        ]
    return out


@dataclass(frozen=True)
class Grade:
    correct: bool
    expected: float  # in the spec's unit
    answer: float  # the learner's answer converted to the spec's unit
    relative_error: float
    mistake: str | None = None  # the named mistake's slug

    @property
    def mistake_label(self) -> str:
        return MISTAKES[self.mistake].label if self.mistake else ""

    @property
    def direction(self) -> str:
        """ "high", "low" or "" for a correct answer."""
        if self.correct:
            return ""
        return "high" if self.answer > self.expected else "low"


def _close(value: float, target: float, tolerance: float) -> bool:
    if not math.isfinite(value) or not math.isfinite(target):
        return False
    return abs(value - target) <= tolerance * max(abs(target), 1e-300)


def grade(
    spec: PracticeSpec,
    variant: Mapping[str, Any],
    value: float,
    unit: str,
    follow_up: int | None = None,
) -> Grade:
    """Grade ``value`` ``unit`` against the variant: right within tolerance, else the
    listed mistake whose number it matches most closely (within the same tolerance)."""
    answer = convert(value, unit, spec.unit)
    inputs = clean_inputs(spec, with_follow_up(spec, variant, follow_up))
    right = evaluate(spec, inputs)
    error = abs(answer - right) / abs(right) if right else math.inf
    if _close(answer, right, spec.tolerance):
        return Grade(True, right, answer, error)
    best: tuple[float, str] | None = None
    for name, candidates in mistaken_values(spec, inputs).items():
        for candidate in candidates:
            if _close(answer, candidate, spec.tolerance) and not _close(
                candidate, right, spec.tolerance
            ):
                miss = abs(answer - candidate) / abs(candidate)
                if best is None or miss < best[0]:
                    best = (miss, name)
    return Grade(False, right, answer, error, best[1] if best else None)


def factor_hint(answer: float, right: float) -> str:
    """A hint for a wrong answer no listed slip explains: which way it is off and by
    roughly what factor, so the learner looks for the step that brought that factor in
    (never the right number itself)."""
    if not (math.isfinite(answer) and math.isfinite(right)) or right == 0 or answer == 0:
        return "Check each factor and its unit, one step at a time."
    if (answer > 0) != (right > 0):
        return "The sign is wrong: check which quantity is subtracted from which."
    ratio = abs(answer / right)
    way = "high" if ratio > 1 else "low"
    factor = ratio if ratio > 1 else 1 / ratio
    if factor < 1.5:
        return (
            f"Close, but too {way} by under 50%: check the rounding and the units "
            "(GB or GiB, dense or sparse)."
        )
    powers = round(math.log10(factor) / 3)
    if powers >= 1 and abs(math.log10(factor) - 3 * powers) < 0.05:
        return (
            f"Too {way} by a factor of about {number(10.0 ** (3 * powers))}: "
            "a unit prefix (k, M, G or ms and s) slipped in one of the steps."
        )
    return (
        f"Too {way} by a factor of about {number(factor, sig=2)}: find the first step "
        "where a factor of that size came in or went missing."
    )


_OPERATOR = re.compile(r" (×|÷|/) ")
_FIRST_NUMBER = re.compile(r"[-+]?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?")


def _terms(expression: str) -> list[tuple[str, str]]:
    """("×" or "÷", term) for each term of a product, the first one multiplying."""
    pieces = _OPERATOR.split(expression)
    ops = ["×", *("÷" if op in "÷/" else "×" for op in pieces[1::2])]
    return list(zip(ops, pieces[0::2], strict=True))


def _step_factors(line: str) -> tuple[str, list[tuple[str, str, float]]] | None:
    """A worked step's name and the factors of its product, each as (operator, name,
    value), named by the formula when its terms line up with the numbers ("×",
    "layers", 36.0). A line is ``name = formula = numbers = result`` (or ``name =
    numbers = result``); a step that is not a product of terms gives no factors."""
    parts = line.split(" = ")
    if len(parts) < 3:
        return None
    terms = _terms(parts[-2])
    symbols = _terms(parts[1]) if len(parts) >= 4 else []
    if len(terms) < 2:
        return None
    factors = []
    for i, (op, term) in enumerate(terms):
        found = _FIRST_NUMBER.search(term)
        if not found:
            continue
        value = float(found.group(0).replace(",", ""))
        name = symbols[i][1].strip() if len(symbols) == len(terms) else term.strip()
        factors.append((op, name, value))
    return parts[0].strip(), factors


def step_hint(
    spec: PracticeSpec,
    variant: Mapping[str, Any],
    answer: float,
    follow_up: int | None = None,
) -> str:
    """A hint for a wrong answer no listed slip explains: the first worked step that
    brings in a factor the answer is off by (the learner left it out or counted it
    twice), named with the formula's term; else ``factor_hint``'s direction and size.
    Never the right number, nor any step's result."""
    right = expected(spec, variant, follow_up)
    general = factor_hint(answer, right)
    if not (math.isfinite(answer) and math.isfinite(right)) or right == 0 or answer == 0:
        return general
    if (answer > 0) != (right > 0):
        return general
    ratio = abs(answer / right)
    if abs(ratio - 1) < 0.5:  # under 50% off: no factor of a step explains it
        return general
    tolerance = max(spec.tolerance, 0.01)
    groups = worked(spec, variant, follow_up).get("steps") or []
    lines = groups[0]["lines"] if groups else []
    for index, line in enumerate(lines, start=1):
        parsed = _step_factors(line)
        if parsed is None:
            continue
        step, factors = parsed
        for op, name, value in factors:
            size = abs(value)
            if size < 1e-300 or abs(size - 1) < 0.05:
                continue
            if _close(ratio, size, tolerance):
                high = True
            elif _close(ratio, 1 / size, tolerance):
                high = False
            else:
                continue
            way = "high" if high else "low"
            what = {
                ("×", True): f"counted {name} twice",
                ("×", False): f"left out {name}",
                ("÷", True): f"did not divide by {name}",
                ("÷", False): f"divided by {name} twice",
            }[(op, high)]
            return (
                f"Too {way} by a factor of {number(size, sig=3)}: look at step {index}, "
                f"{step}. It looks as if you {what}."
            )
    return general


def worked(spec: PracticeSpec, variant: Mapping[str, Any], follow_up: int | None = None) -> dict:
    """The calculator's full result (worked steps, table, chart) for the variant."""
    return compute(spec.calculator, clean_inputs(spec, with_follow_up(spec, variant, follow_up)))


# ------------------------------------------------------------------------ author check

ABSURD = 1e18  # a target above this (in its own unit) is a units slip in the spec


def author_check(spec: PracticeSpec, seeds: int = 200) -> dict[str, Any]:
    """Draw ``seeds`` variants and report what would make the question unfair:
    non-finite or absurd targets, a tolerance that accepts a listed mistake, a mistake
    that never applies, and mistakes that give the same number (so neither can be named).

    Returns ``{"seeds", "problems": [{"kind", "seed", "detail"}], "ok"}``; at most five
    problems of each kind are kept.
    """
    problems: list[dict[str, Any]] = []
    counts: dict[str, int] = {}
    applies = dict.fromkeys(spec.mistakes, False)

    def report(kind: str, seed: int, detail: str) -> None:
        counts[kind] = counts.get(kind, 0) + 1
        if counts[kind] <= 5:
            problems.append({"kind": kind, "seed": seed, "detail": detail})

    for seed in range(seeds):
        variant = draw(spec, seed)
        for follow_up in [None, *range(1, len(spec.follow_ups) + 1)]:
            where = f"variant {_describe(variant)}" + (
                f", follow-up {follow_up}" if follow_up else ""
            )
            try:
                inputs = clean_inputs(spec, with_follow_up(spec, variant, follow_up))
                right = evaluate(spec, inputs)
            except CalculatorInputError as exc:
                report("invalid", seed, f"{where}: the calculator rejects it ({exc})")
                continue
            if not math.isfinite(right) or right <= 0 or right > ABSURD:
                report("absurd", seed, f"{where}: the target is {right!r} {spec.unit}")
                continue
            found = mistaken_values(spec, inputs)
            named: list[tuple[str, float]] = []
            for name, candidates in found.items():
                for candidate in candidates:
                    if _close(candidate, right, NEGLIGIBLE):
                        continue  # the mistake changes nothing a learner could type
                    if _close(candidate, right, spec.tolerance):
                        report(
                            "tolerance-accepts-mistake",
                            seed,
                            f"{where}: {name} gives {number(candidate)} {spec.unit}, "
                            f"within {spec.tolerance:.0%} of the right "
                            f"{number(right)} {spec.unit}",
                        )
                    else:
                        applies[name] = True
                        named.append((name, candidate))
            for i, (a, va) in enumerate(named):
                for b, vb in named[i + 1 :]:
                    if a != b and _close(va, vb, spec.tolerance):
                        report(
                            "indistinguishable",
                            seed,
                            f"{where}: {a} and {b} both give {number(va)} {spec.unit}",
                        )
    for name, ever in applies.items():
        if not ever:
            report("never-applies", -1, f"{name} never changes the answer on any variant")
    return {
        "seeds": seeds,
        "counts": counts,
        "problems": problems,
        "ok": not problems,
    }


#: A slip that moves the answer by less than this (relative) changes nothing a learner could
#: type: with the composed memory/compute step (kernels/efficiency.py), a memory-bound
#: step still moves by a few parts per million when the compute peak is doubled, which is
#: no reason to call the tolerance too loose.
NEGLIGIBLE = 1e-4


def _describe(variant: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in variant.items())
