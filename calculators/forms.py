"""The calculator form: one text field per input (so sweeps like 1,8,32 are possible),
a preset choice, and validation delegated to calculators.validation."""

from __future__ import annotations

from typing import Any

from django import forms
from django.forms.renderers import Jinja2

from calculators import model_catalog, presets
from calculators.errors import CalculatorInputError
from calculators.grids import GRID_KEY, GRID_OUTPUTS
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
    """Fields are built from the spec; ``clean`` returns validated calculator inputs.

    Its widgets render through Django's Jinja2 form renderer (the same widget markup as
    the default one, Django ships both): a calculator form has up to 25 inputs and 150
    select options, each a template include in the Django template language, which took
    half of the page's time. Only this form: the admin's widgets exist for the default
    renderer alone."""

    default_renderer = Jinja2()

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
            self.fields["compare"] = forms.ChoiceField(
                choices=[("", "Nothing")] + choices[1:],
                required=False,
                label="Compare with",
                help_text="A second preset, side by side in the same run. Leave the preset's "
                "fields as the preset filled them.",
            )
        if spec.slug in GRID_OUTPUTS:
            numeric = [("", "No grid")] + [
                (i.name, f"{i.label} ({i.name})")
                for i in spec.inputs
                if i.kind not in (CHOICE, BOOLEAN)
            ]
            for name, label in (("grid_rows", "Grid rows"), ("grid_cols", "Grid columns")):
                self.fields[name] = forms.ChoiceField(
                    choices=numeric,
                    required=False,
                    label=label,
                    help_text="Give both inputs lists (e.g. 1,8,32) for a heat map of every pair.",
                )
        for inp in spec.inputs:
            attrs = {
                "inputmode": "decimal" if inp.kind not in (CHOICE, BOOLEAN) else "text",
                "autocomplete": "off",
                "spellcheck": "false",
                "data-preset-fill": "1" if inp.name in spec.preset_fills else "0",
            }
            if inp.kind == BOOLEAN:
                attrs["list"] = f"choices-{inp.name}"
            if inp.default is not None:  # an empty field means the default; show it
                attrs["placeholder"] = attrs["data-default"] = to_text(inp.default)
            widget: forms.Widget = forms.TextInput(attrs=attrs)
            if inp.kind == CHOICE and "," not in str(self._given(inp.name)):
                # A choice is picked from a list; a sweep over choices ("bf16,fp8") keeps
                # the text box so it can still be edited.
                blank = f"default ({inp.default})" if inp.default is not None else "choose…"
                options = [("", blank)] + [(c, c) for c in inp.choices]
                widget = forms.Select(choices=options, attrs={"data-preset-fill": "0"})
            self.fields[inp.name] = forms.CharField(
                required=False,
                label=inp.label,
                help_text=describe(inp),
                max_length=40 * MAX_POINTS,
                widget=widget,
            )
            # Read by the template beside the widget (the unit label and the datalist).
            self.fields[inp.name].unit = inp.unit  # type: ignore[attr-defined]
            self.fields[inp.name].choices = (  # type: ignore[attr-defined]
                ["true", "false"] if inp.kind == BOOLEAN else []
            )

        if "model" in spec.input_names:
            self.fields["compare_model"] = forms.ChoiceField(
                choices=[("", "Nothing")]
                + [(slug, m.name) for slug, m in model_catalog.MODELS.items()],
                required=False,
                label="Compare with model",
                help_text="A second model, side by side in the same run.",
            )
            self.fields["config"] = forms.CharField(
                required=False,
                label="…or paste a config.json",
                help_text="A Hugging Face config.json fills the same architecture inputs as "
                "a model; values you type override it.",
                max_length=200_000,
                widget=forms.Textarea(
                    attrs={"rows": 3, "spellcheck": "false", "autocomplete": "off"}
                ),
            )

    def _given(self, name: str) -> Any:
        source = self.data if self.is_bound else self.initial
        return source.get(name, "") if source else ""

    @property
    def preset_text(self) -> str:
        """The preset as validation takes it: one slug, or two for a comparison."""
        data = getattr(self, "cleaned_data", {})
        first, second = data.get("preset") or "", data.get("compare") or ""
        return f"{first},{second}" if first and second else first or second

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        texts = {i.name: data.get(i.name) or "" for i in self.spec.inputs}
        if data.get("compare") and data.get("preset"):
            # The script (or a no-JS "Fill") wrote the first preset's figures into the
            # form; left as filled they would override both columns, so they are dropped.
            filled = preset_values(self.spec).get(data["preset"], {})
            for name, value in filled.items():
                if texts.get(name, "").strip() == value:
                    texts[name] = ""
        precision = (texts.get("precision") or "").strip()
        if data.get("preset") and precision and precision != presets.DEFAULT_PRECISION:
            # The script filled the preset's default-precision peak; left as filled it
            # would override the peak at the precision chosen here, so it is dropped.
            filled = preset_values(self.spec).get(data["preset"], {})
            if (
                "peak_tflops" in filled
                and texts.get("peak_tflops", "").strip() == filled["peak_tflops"]
            ):
                texts["peak_tflops"] = ""
        if data.get("compare_model") and texts.get("model"):
            texts["model"] = f"{texts['model']},{data['compare_model']}"
        rows, cols = data.get("grid_rows"), data.get("grid_cols")
        if rows or cols:
            texts[GRID_KEY] = f"{rows or '?'},{cols or '?'}"
        try:
            self.calculator_inputs = validate_text(
                self.spec.slug, texts, self.preset_text or None, data.get("config") or None
            )
        except CalculatorInputError as exc:
            for name, reasons in exc.fields.items():
                if name == GRID_KEY:
                    name = "grid_rows"
                field = name if name in self.fields else None
                for reason in reasons:
                    self.add_error(field, reason if field else f"{name}: {reason}")
        return data


def initial_from_inputs(
    inputs: dict[str, Any], preset: str = "", spec: CalculatorSpec | None = None
) -> dict[str, str]:
    """Form values that reproduce ``inputs`` (a run's clean inputs, or a spec's example)."""
    initial = {}
    for name, value in inputs.items():
        if name == GRID_KEY:
            initial["grid_rows"], initial["grid_cols"] = value
            continue
        if isinstance(value, list) and len(value) > FORM_LIST_LIMIT:
            continue
        initial[name] = to_text(value)
    model = inputs.get("model")
    if spec is not None and model:
        # Show what the model fills as the model, not as typed values: typed values would
        # override the next model picked (and both columns of a model comparison).
        for name in model_filled(spec, inputs):
            initial.pop(name, None)
        models = model if isinstance(model, list) else [model]
        initial["model"] = models[0]
        if len(models) > 1:
            initial["compare_model"] = models[1]
    first, _, second = preset.partition(",")
    if first in presets.GPUS:
        initial["preset"] = first
    if second in presets.GPUS:
        initial["compare"] = second
        for name in spec.preset_fills if spec else ():
            initial.pop(name, None)  # the two presets fill these; leave them empty
    return initial


def model_filled(spec: CalculatorSpec, inputs: dict[str, Any]) -> set[str]:
    """Inputs of a run that hold what its model gives: all the model fills when two models
    are compared, otherwise those left as the model filled them."""
    model = inputs.get("model")
    if not model or "model" not in spec.input_names:
        return set()
    models = model if isinstance(model, list) else [model]
    if not all(isinstance(m, str) and m in model_catalog.MODELS for m in models):
        return set()
    names = [n for n in spec.input_names if n != "model"]
    fills = model_catalog.model_fill(models[0], names, spec.model_renames)
    if len(models) > 1:
        return set(fills)
    return {name for name, value in fills.items() if inputs.get(name) == value}
