"""Turn untrusted input into clean calculator inputs, or say exactly what is wrong.

``validate`` is the only way into ``compute`` from outside (API, form, CLI, directive,
task), so nothing reaches a worker unvalidated. It collects every problem before
raising one ``CalculatorInputError`` whose ``fields`` name each input and the reasons.

Clean inputs are plain JSON values (int, float, bool, str or 1-D lists of them) with
defaults and preset figures filled in, so that the same request always yields the same
dict and therefore the same canonical hash.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from . import model_catalog, presets
from .errors import CalculatorInputError
from .grids import GRID_KEY, check_grid, compare_presets, split_grid
from .specs import BOOLEAN, CHOICE, INTEGER, SPECS, CalculatorSpec, Input
from .specs.base import PEAK

MAX_POINTS = 1_000_000

Errors = dict[str, list[str]]


def validate(slug: str, raw_inputs: Any, preset: Any = None, config: Any = None) -> dict[str, Any]:
    """Return clean inputs for ``slug``; raise CalculatorInputError naming every bad field.

    Precedence, lowest first: the spec's defaults, what ``model=<slug>`` (or a pasted
    Hugging Face ``config``, also accepted as ``inputs["config"]``) fills, what the
    hardware ``preset`` fills (its peak at the ``precision`` input), explicit inputs.
    """
    spec = _spec(slug)
    if raw_inputs is None:
        raw_inputs = {}
    if not isinstance(raw_inputs, Mapping):
        raise CalculatorInputError({"inputs": ["must be an object of name: value pairs"]})
    raw_inputs = dict(raw_inputs)
    if "config" in raw_inputs:
        inline_config = raw_inputs.pop("config")
        config = inline_config if config is None else config

    errors: Errors = {}
    raw_inputs, grid = split_grid(spec, raw_inputs, errors)
    known = set(spec.input_names)
    for name in raw_inputs:
        if name not in known:
            errors.setdefault(str(name), []).append(
                f"unknown input for {slug}; expected one of {', '.join(spec.input_names)}"
            )

    merged: dict[str, Any] = {i.name: i.default for i in spec.inputs if i.default is not None}
    merged.update(_model_values(spec, raw_inputs.get("model"), config, errors))
    merged.update(
        _preset_values(spec, preset, raw_inputs.get("precision", merged.get("precision")), errors)
    )
    merged.update({k: v for k, v in raw_inputs.items() if k in known and v is not None})

    clean: dict[str, Any] = {}
    lengths: dict[str, int] = {}
    for inp in spec.inputs:
        if inp.name not in merged:
            if inp.required and inp.default is None:
                errors.setdefault(inp.name, []).append("required")
            continue
        value, reasons = _clean_value(inp, merged[inp.name])
        if reasons:
            errors.setdefault(inp.name, []).extend(reasons)
        else:
            clean[inp.name] = value
            if isinstance(value, list):
                lengths[inp.name] = len(value)

    if grid:
        check_grid(grid, lengths, MAX_POINTS, errors)
        clean[GRID_KEY] = grid
    _check_broadcast({k: n for k, n in lengths.items() if k not in grid}, errors)
    if not errors and spec.check is not None:
        for name, reasons in spec.check(clean).items():
            errors.setdefault(name, []).extend(reasons)
    if "precision" in errors and errors.get("peak_tflops") == ["required"]:
        del errors["peak_tflops"]  # the precision error already says why it is missing
    if errors:
        raise CalculatorInputError(errors)
    return clean


def _spec(slug: Any) -> CalculatorSpec:
    spec = SPECS.get(slug) if isinstance(slug, str) else None
    if spec is None:
        raise CalculatorInputError(
            {"calculator": [f"unknown calculator {slug!r}; known: {', '.join(SPECS)}"]}
        )
    return spec


def preset_figures(
    spec: CalculatorSpec, gpu: presets.GpuPreset, precision: Any = presets.DEFAULT_PRECISION
) -> dict[str, Any]:
    """The inputs a GPU preset fills for ``spec``, scaled; unknown (None) figures are left
    out, so such an input stays required rather than being filled with a guess. The peak
    is the preset's dense figure at ``precision`` (a list of precisions gives a list)."""
    values: dict[str, Any] = {}
    for name, fill in spec.preset_fills.items():
        if fill.attribute == PEAK:
            if isinstance(precision, list):
                peaks = [gpu.peak(p) if isinstance(p, str) else None for p in precision]
                if all(x is not None for x in peaks):
                    values[name] = [float(x) * fill.scale for x in peaks]  # type: ignore[arg-type]
                continue
            figure = gpu.peak(precision) if isinstance(precision, str) else None
        else:
            figure = getattr(gpu, fill.attribute)
        if figure is not None:
            values[name] = figure if isinstance(figure, (str, bool)) else float(figure) * fill.scale
    return values


def _preset_values(
    spec: CalculatorSpec, preset: Any, precision: Any, errors: Errors
) -> dict[str, Any]:
    if preset is None or preset == "":
        return {}
    if not isinstance(preset, str):
        errors["preset"] = ["must be a preset slug string"]
        return {}
    if "," in preset:  # "h100-sxm,h200": two columns side by side
        return compare_presets(
            preset.split(","), lambda one: _preset_values(spec, one, precision, errors), errors
        )
    gpu = presets.GPUS.get(preset)
    if gpu is None:
        errors["preset"] = [f"unknown preset {preset!r}; known: {', '.join(presets.GPUS)}"]
        return {}
    if not spec.preset_fills:
        errors["preset"] = [f"{spec.slug} takes no hardware preset"]
        return {}
    precision = precision if precision is not None else presets.DEFAULT_PRECISION
    values = preset_figures(spec, gpu, precision)
    if any(f.attribute == PEAK for f in spec.preset_fills.values()):
        wanted = precision if isinstance(precision, list) else [precision]
        for p in dict.fromkeys(x for x in wanted if isinstance(x, str)):
            if p in presets.PRECISIONS and (problem := presets.precision_problem(gpu, p)):
                if gpu.peaks:  # a device with no published peak at all stays silent
                    errors.setdefault("precision", []).append(problem)
    if spec.slug == "mig" and preset not in presets.MIG_PROFILES:
        errors["preset"] = [
            f"{preset} has no MIG profiles in our data; choose one of "
            f"{', '.join(presets.MIG_PROFILES)}"
        ]
    return values


def _model_values(spec: CalculatorSpec, model: Any, config: Any, errors: Errors) -> dict[str, Any]:
    """What ``model=<slug>`` (one slug or a list, for a side-by-side run) or a pasted
    config.json fills; problems are reported on ``model`` or ``config``."""
    if model is None and config is None:
        return {}
    if "model" not in spec.input_names:
        name = "model" if model is not None else "config"
        errors[name] = [f"{spec.slug} takes no model architecture"]
        return {}
    if model is not None and config is not None:
        errors["config"] = ["give model or config, not both"]
        return {}
    names = [n for n in spec.input_names if n != "model"]
    if config is not None:
        try:
            return model_catalog.config_fill(config, names, spec.model_renames)
        except model_catalog.ConfigError as exc:
            errors["config"] = exc.problems
            return {}
    slugs = model if isinstance(model, list) else [model]
    unknown = [m for m in slugs if not isinstance(m, str) or m not in model_catalog.MODELS]
    if unknown or not slugs:
        errors["model"] = [
            f"unknown model {unknown[0] if unknown else model!r}; known: "
            f"{', '.join(model_catalog.MODELS)}"
        ]
        return {}
    fills = [model_catalog.model_fill(m, names, spec.model_renames) for m in slugs]
    if not isinstance(model, list):
        return fills[0]
    values: dict[str, Any] = {}
    for name in dict.fromkeys(k for f in fills for k in f):
        column = [f.get(name) for f in fills]
        if None in column:
            # Fields only some models have: a model without local layers has none, and
            # its window is moot; other gaps (MLA beside GQA, MoE beside dense) cannot
            # share one kernel call.
            if name == "local_layers":
                column = [0 if v is None else v for v in column]
            elif name in ("experts", "experts_per_token"):
                # A dense model beside an MoE one: one "expert" read by every token, so
                # serving_estimate counts no expert weights for it.
                column = [1 if v is None else v for v in column]
            elif name == "local_window":
                column = [
                    model_catalog.MODELS[m].max_context if v is None else v
                    for m, v in zip(slugs, column, strict=True)
                ]
            else:
                have = [m for m, v in zip(slugs, column, strict=True) if v is not None]
                errors["model"] = [
                    f"{name} is defined for {', '.join(have)} only; run models with "
                    "different attention or expert layouts separately"
                ]
                return {}
        values[name] = column
    return values


def clean_value(inp: Input, value: Any) -> tuple[Any, list[str]]:
    """One input's value (a scalar or a 1-D list) cleaned, or the reasons it is refused:
    type, range, choices, list length. No rule spanning several inputs is applied here."""
    return _clean_value(inp, value)


def _clean_value(inp: Input, value: Any) -> tuple[Any, list[str]]:
    if isinstance(value, list | tuple):
        items = list(value)
        if not items:
            return None, ["must not be an empty list"]
        if len(items) > MAX_POINTS:
            return None, [
                f"has {len(items):,} values; a sweep may have at most {MAX_POINTS:,} points"
            ]
        if inp.kind in (BOOLEAN, CHOICE):
            cleaned, reasons = [], []
            for i, item in enumerate(items):
                v, r = _clean_scalar(inp, item)
                cleaned.append(v)
                reasons += [f"item {i + 1}: {x}" for x in r]
                if len(reasons) >= 3:
                    break
            return cleaned, reasons
        return _clean_numbers(inp, items)
    return _clean_scalar(inp, value)


def _clean_scalar(inp: Input, value: Any) -> tuple[Any, list[str]]:
    if inp.kind == BOOLEAN:
        if isinstance(value, bool):
            return value, []
        return None, [f"must be true or false, not {_kind(value)}"]
    if inp.kind == CHOICE:
        if not isinstance(value, str):
            return None, [f"must be one of {', '.join(inp.choices)}, not {_kind(value)}"]
        if value not in inp.choices:
            return None, [f"{value!r} is not one of {', '.join(inp.choices)}"]
        return value, []
    cleaned, reasons = _clean_numbers(inp, [value])
    return (cleaned[0] if cleaned else None), reasons


def _clean_numbers(inp: Input, items: list[Any]) -> tuple[list[Any] | None, list[str]]:
    """Check numbers in a plain loop: the type checks must see every Python object (a
    bool is an int to NumPy), and at 10^6 points this stays well under a second."""
    many = len(items) > 1
    out: list[Any] = []
    reasons: list[str] = []
    for i, x in enumerate(items):
        where = f"item {i + 1}: " if many else ""
        reason = _number_problem(inp, x)
        if reason:
            reasons.append(where + reason)
            if len(reasons) >= 3:
                reasons.append("(further items not checked)")
                break
            continue
        out.append(int(x) if inp.kind == INTEGER else float(x))
    if reasons:
        return None, reasons
    return out, []


def _number_problem(inp: Input, x: Any) -> str | None:
    if isinstance(x, bool) or not isinstance(x, int | float):
        return f"must be a number, not {_kind(x)}"
    if isinstance(x, float):
        if math.isnan(x):
            return "must be a number, not NaN"
        if math.isinf(x):
            return "must be finite, not infinity"
        if inp.kind == INTEGER and not x.is_integer():
            return f"must be a whole number, not {x:g}"
    if inp.min is not None:
        if inp.min_exclusive and x <= inp.min:
            return (
                f"must be greater than {inp.min:g}" if inp.min else f"must be positive, not {x:g}"
            )
        if x < inp.min:
            return (
                f"must not be negative, not {x:g}"
                if inp.min == 0
                else f"must be at least {inp.min:g}, not {x:g}"
            )
    if inp.max is not None and x > inp.max:
        return f"must be at most {inp.max:g}, not {x:g}"
    return None


def _check_broadcast(lengths: dict[str, int], errors: Errors) -> None:
    sizes = {n: k for n, k in lengths.items() if k != 1}
    distinct = set(sizes.values())
    if len(distinct) > 1:
        desc = ", ".join(f"{n} has {k}" for n, k in sizes.items())
        for name in sizes:
            errors.setdefault(name, []).append(
                f"arrays do not broadcast ({desc} values); give every list the same length "
                "or a single value"
            )


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, str):
        return f"the string {value[:40]!r}"
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list | tuple):
        return "a list"
    return type(value).__name__


# ---------------------------------------------------------------- text input


def parse_text_inputs(slug: str, texts: Mapping[str, str]) -> dict[str, Any]:
    """Turn ``name=text`` pairs (CLI, directive, HTML form) into raw values for validate.

    Numbers become int or float, "1,2,4" becomes a list, true/false become booleans for
    boolean inputs; anything unparseable is reported as the field's error.
    """
    spec = _spec(slug)
    raw: dict[str, Any] = {}
    errors: Errors = {}
    kinds = {i.name: i.kind for i in spec.inputs}
    for name, text in texts.items():
        text = (text or "").strip()
        if text == "":
            continue  # an empty form field means "use the default"
        if name == "config":  # a pasted config.json: JSON, not a comma-separated list
            raw[name] = text
            continue
        kind = kinds.get(name)
        parts = [t.strip() for t in text.split(",")]
        try:
            values = [_parse_one(kind, t) for t in parts]
        except ValueError as exc:
            errors.setdefault(name, []).append(str(exc))
            continue
        raw[name] = values[0] if len(values) == 1 else values
    if errors:
        raise CalculatorInputError(errors)
    return raw


def _parse_one(kind: str | None, text: str) -> Any:
    if text == "":
        raise ValueError("has an empty item in its list")
    low = text.lower()
    if kind == BOOLEAN:
        if low in ("true", "yes", "1", "on"):
            return True
        if low in ("false", "no", "0", "off"):
            return False
        raise ValueError(f"must be true or false, not {text!r}")
    if kind == CHOICE or kind is None:
        return text if kind == CHOICE else _number_or_text(text)
    return _number_or_text(text, strict=True)


def _number_or_text(text: str, strict: bool = False) -> Any:
    try:
        return int(text.replace("_", ""))
    except ValueError:
        pass
    try:
        value = float(text.replace("_", ""))
    except ValueError:
        if strict:
            raise ValueError(f"must be a number, not {text!r}") from None
        return text
    if math.isnan(value):
        raise ValueError("must be a number, not NaN")
    if math.isinf(value):
        raise ValueError("must be finite, not infinity")
    return value


def validate_text(
    slug: str, texts: Mapping[str, str], preset: Any = None, config: Any = None
) -> dict[str, Any]:
    """parse_text_inputs + validate, reporting parse and validation problems together."""
    parse_errors: Errors = {}
    try:
        raw = parse_text_inputs(slug, texts)
    except CalculatorInputError as exc:
        if "calculator" in exc.fields:
            raise
        parse_errors = exc.fields
        raw = parse_text_inputs(slug, {k: v for k, v in texts.items() if k not in parse_errors})
    try:
        clean = validate(slug, raw, preset, config)
    except CalculatorInputError as exc:
        merged = dict(parse_errors)
        for name, reasons in exc.fields.items():
            if name in parse_errors and reasons == ["required"]:
                continue  # it was given, just not readable: the parse error says so
            merged.setdefault(name, []).extend(reasons)
        raise CalculatorInputError(merged) from None
    if parse_errors:
        raise CalculatorInputError(parse_errors)
    return clean
