"""The calculator form: one text field per input (so sweeps like 1,8,32 are possible),
a preset choice, and validation delegated to calculators.validation."""

from __future__ import annotations

from typing import Any

from django import forms

from calculators import presets
from calculators.errors import CalculatorInputError
from calculators.specs import BOOLEAN, CHOICE, INTEGER, CalculatorSpec, Input
from calculators.validation import MAX_POINTS, preset_figures, validate_text

FORM_LIST_LIMIT = 2000  # longer sweeps are too long to edit in a text box


def preset_choices(spec: CalculatorSpec) -> list[tuple[str, str]]:
    if not spec.preset_fills:
        return []
    slugs = list(presets.MIG_PROFILES) if spec.slug == "mig" else list(presets.GPUS)
    return [("", "No preset")] + [(s, presets.GPUS[s].name) for s in slugs]


def preset_values(spec: CalculatorSpec) -> dict[str, dict[str, str]]:
    """For the preset-fill script: preset slug -> {input name: text value}."""
    return {
        slug: {
            name: to_text(value) for name, value in preset_figures(spec, presets.GPUS[slug]).items()
        }
        for slug, _ in preset_choices(spec)[1:]
    }


def to_text(value: Any) -> str:
    """A clean input value as the text a form field shows."""
    if isinstance(value, list):
        return ",".join(to_text(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.12g}"
    return str(value)


def describe(inp: Input) -> str:
    parts = []
    if inp.kind == INTEGER:
        parts.append("whole number")
    rng = inp.describe_range()
    if rng:
        parts.append(rng)
    if inp.kind == BOOLEAN:
        parts.append("true or false")
    if inp.default is not None:
        parts.append(f"default {to_text(inp.default)}")
    elif not inp.required:
        parts.append("optional")
    return "; ".join(parts)


class CalculatorForm(forms.Form):
    """Fields are built from the spec; ``clean`` returns validated calculator inputs."""

    def __init__(self, spec: CalculatorSpec, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.spec = spec
        choices = preset_choices(spec)
        if choices:
            self.fields["preset"] = forms.ChoiceField(
                choices=choices,
                required=False,
                label="Hardware preset",
                help_text="Fills " + ", ".join(spec.preset_fills) + "; values you type "
                "override it.",
            )
        for inp in spec.inputs:
            attrs = {
                "inputmode": "decimal" if inp.kind not in (CHOICE, BOOLEAN) else "text",
                "autocomplete": "off",
                "spellcheck": "false",
                "data-preset-fill": "1" if inp.name in spec.preset_fills else "0",
            }
            if inp.kind in (CHOICE, BOOLEAN):
                attrs["list"] = f"choices-{inp.name}"
            if inp.default is not None:  # an empty field means the default; show it
                attrs["placeholder"] = attrs["data-default"] = to_text(inp.default)
            self.fields[inp.name] = forms.CharField(
                required=False,
                label=inp.label,
                help_text=describe(inp),
                max_length=40 * MAX_POINTS,
                widget=forms.TextInput(attrs=attrs),
            )
            self.fields[inp.name].unit = inp.unit
            self.fields[inp.name].choices = (
                list(inp.choices)
                if inp.kind == CHOICE
                else ["true", "false"]
                if inp.kind == BOOLEAN
                else []
            )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        texts = {i.name: data.get(i.name) or "" for i in self.spec.inputs}
        try:
            self.calculator_inputs = validate_text(
                self.spec.slug, texts, data.get("preset") or None
            )
        except CalculatorInputError as exc:
            for name, reasons in exc.fields.items():
                field = name if name in self.fields else None
                for reason in reasons:
                    self.add_error(field, reason if field else f"{name}: {reason}")
        return data


def initial_from_inputs(inputs: dict[str, Any]) -> dict[str, str]:
    initial = {}
    for name, value in inputs.items():
        if isinstance(value, list) and len(value) > FORM_LIST_LIMIT:
            continue
        initial[name] = to_text(value)
    return initial
