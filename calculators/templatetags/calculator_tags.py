"""Template tags for calculators on other apps' pages (question "Work through the numbers")."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django import template
from django.urls import reverse

from calculators import presets
from calculators.charts import render_chart
from calculators.compute import run_inline
from calculators.errors import CalculatorInputError
from calculators.forms import to_text
from calculators.provenance import box_table, input_sources, shown_inputs
from calculators.specs import SPECS

register = template.Library()


@register.simple_tag
def locked_calculators(embeds: Any) -> list[dict[str, str]]:
    """Which calculators a locked question's answer works through, once each, by name: no
    inputs and no result, which are part of the answer
    (``calculators/_question_embeds_locked.html``)."""
    found: dict[str, dict[str, str]] = {}
    for embed in embeds:
        spec = SPECS.get(embed.calculator)
        if spec is not None and embed.calculator not in found:
            found[embed.calculator] = {"slug": embed.calculator, "title": spec.title}
    return list(found.values())


@register.inclusion_tag("calculators/_embed.html")
def calculator_embed(embed: Any, index: int = 1) -> dict[str, Any]:
    """Run an author's embed (calculator, preset, inputs) in-process and show the result.

    In-process rather than through the queue: the figures are small, free to everyone,
    and the question page must render even when the workers are down.
    """
    slug = embed.calculator
    preset = embed.preset or None
    inputs = embed.inputs or {}
    spec = SPECS.get(slug)
    context: dict[str, Any] = {"index": index, "error": "", "result": None, "chart_svg": ""}
    context["heading"] = embed.label or (spec.title if spec else slug)
    query = {k: to_text(v) for k, v in inputs.items()}
    if preset:
        query["preset"] = preset
    context["page_url"] = (
        (reverse("calculators:detail", kwargs={"slug": slug}) + "?" + urlencode(query))
        if spec
        else reverse("calculators:index")
    )
    try:
        result = run_inline(slug, inputs, preset)
    except CalculatorInputError as exc:
        context["error"] = exc.fields_text()
        context["assumptions"] = ", ".join(f"{k} = {to_text(v)}" for k, v in inputs.items())
        return context
    context["result"] = result
    context["assumptions"] = assumptions(slug, inputs, preset, result)
    context["chart_svg"] = render_chart(result["chart"], uid=f"embed-{index}-{slug}")
    return context


def assumptions(
    slug: str, inputs: dict[str, Any], preset: str | None, result: dict[str, Any]
) -> str:
    """The widget's "Assumptions" line: the preset, what the author gave, and the values the
    author did not give that changed the result, marked by where they came from (the same
    rows as a ``{{calc}}`` block's inputs table, ``calculators.provenance``)."""
    clean = result["inputs"]
    shown = shown_inputs(slug, clean, input_sources(slug, inputs, preset, clean), preset)
    bits = [presets.GPUS[preset].name] if preset in presets.GPUS else []
    for row in box_table(result, shown)["table"]["inputs"]:
        marker = f" ({row['marker']})" if row["marker"] else ""
        bits.append(f"{row['name']} = {', '.join(row['cells'])}{marker}")
    return ", ".join(bits)
