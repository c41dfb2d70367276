"""Calculator pages. Thin adapters: forms validate, services run, templates show.

Without JavaScript the form posts here and the browser is redirected to the run page,
which refreshes itself until the result is in. With JavaScript the run page polls the
run API instead. If the task queue is down, the page computes in-process so that every
page keeps working.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse

from calculators import presets
from calculators.charts import render_chart
from calculators.forms import CalculatorForm, initial_from_inputs, preset_values
from calculators.models import CalculationRun
from calculators.services import request_page_run
from calculators.specs import SPECS, CalculatorSpec

GROUPS = [
    (
        "Hardware and kernels",
        ["roofline", "decode_bound", "attention_intensity", "mig", "local_fit", "sparsity_2_4"],
    ),
    (
        "Serving",
        [
            "serving_estimate",
            "prefill",
            "kv_cache",
            "paged_kv_capacity",
            "weight_memory",
            "response_time",
            "fallback_latency",
            "availability",
            "break_even",
            "speculative_decoding",
            "queueing",
        ],
    ),
    ("Training and parallelism", ["collective_time", "training_budget"]),
    ("Model architecture", ["moe_active", "sliding_window", "linear_params", "diffusion_passes"]),
]


def index(request: HttpRequest) -> HttpResponse:
    groups = [(title, [SPECS[s] for s in slugs]) for title, slugs in GROUPS]
    return render(
        request,
        "calculators/index.html",
        {
            "groups": groups,
            "meta_description": f"{len(SPECS)} calculators for inference "
            "engineering: roofline, decode speed, KV cache, MIG, cost and more, each with worked "
            "steps.",
        },
    )


def _spec_or_404(slug: str) -> CalculatorSpec:
    spec = SPECS.get(slug)
    if spec is None:
        raise Http404("No such calculator")
    return spec


def calculator(request: HttpRequest, slug: str) -> HttpResponse:
    spec = _spec_or_404(slug)
    if request.method == "POST":
        form = CalculatorForm(spec, request.POST)
        if request.POST.get("action") == "preset" and form.is_bound:
            return _fill_from_preset(request, spec)
        if form.is_valid():
            preset = form.cleaned_data.get("preset") or None
            run, inline = request_page_run(
                calculator=slug, raw_inputs=form.calculator_inputs, preset=preset, user=request.user
            )
            if inline:
                messages.warning(
                    request,
                    "The task queue is unavailable, so this was "
                    "computed directly on the web server.",
                )
            return redirect(_run_url(run, preset))
        return _render_page(request, spec, form, status=400)
    initial: dict[str, Any] = {}
    query = {k: v for k, v in request.GET.items() if k in spec.input_names}
    if query:
        initial.update(query)
    else:
        initial.update(initial_from_inputs(dict(spec.example)))
    preset = request.GET.get("preset", "")
    if preset in presets.GPUS:
        initial["preset"] = preset
    return _render_page(request, spec, CalculatorForm(spec, initial=initial))


def _fill_from_preset(request: HttpRequest, spec: CalculatorSpec) -> HttpResponse:
    """No-JS "Fill from preset": replace the preset's fields with its figures, run nothing."""
    data = request.POST.copy()
    chosen = data.get("preset", "")
    for name, value in preset_values(spec).get(chosen, {}).items():
        data[name] = value
    initial = {k: data.get(k, "") for k in [*spec.input_names, "preset"]}
    return _render_page(request, spec, CalculatorForm(spec, initial=initial))


def run_detail(request: HttpRequest, slug: str, run_id: str) -> HttpResponse:
    spec = _spec_or_404(slug)
    run = get_object_or_404(CalculationRun, pk=run_id, calculator=slug)
    initial = initial_from_inputs(run.inputs)
    preset = request.GET.get("preset", run.preset)
    if preset in presets.GPUS:
        initial["preset"] = preset
    return _render_page(request, spec, CalculatorForm(spec, initial=initial), run=run)


def _run_url(run: CalculationRun, preset: str | None) -> str:
    url = reverse("calculators:run", kwargs={"slug": run.calculator, "run_id": run.pk})
    return f"{url}?{urlencode({'preset': preset})}" if preset else url


def _render_page(
    request: HttpRequest,
    spec: CalculatorSpec,
    form: CalculatorForm,
    *,
    run: CalculationRun | None = None,
    status: int = 200,
) -> HttpResponse:
    result = run.result if run is not None and run.status == CalculationRun.Status.DONE else None
    context = {
        "spec": spec,
        "form": form,
        "run": run,
        "result": result,
        "chart_svg": render_chart(result["chart"], uid=f"chart-{spec.slug}") if result else "",
        "preset_json": json.dumps(preset_values(spec)),
        "api_run_url": reverse("calculators-api:run-detail", kwargs={"run_id": run.pk})
        if run is not None
        else "",
        "meta_description": spec.summary,
        "input_fields": [form[i.name] for i in spec.inputs],
    }
    return render(request, "calculators/calculator.html", context, status=status)
