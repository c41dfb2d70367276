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

import numpy as np
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse

from calculators import calibration, leases, model_catalog, presets, services
from calculators.charts import render_chart
from calculators.compute import compute
from calculators.formatting import number
from calculators.forms import (
    CalculatorForm,
    initial_from_inputs,
    model_filled,
    preset_values,
    to_text,
)
from calculators.grids import GRID_KEY
from calculators.models import CalculationRun
from calculators.services import request_page_run
from calculators.specs import SPECS, CalculatorSpec

FORM_EXTRAS = ("compare", "compare_model", "grid_rows", "grid_cols")
PERMALINK_POINTS = 20_000  # larger sweeps go through the queue (press Calculate)

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
            return _fill_from_preset(request, spec, request.POST)
        if form.is_valid():
            preset = form.preset_text or None
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
    form_names = {*spec.input_names, *FORM_EXTRAS}
    query = {k: v for k, v in request.GET.items() if k in form_names}
    if GRID_KEY in request.GET:
        query["grid_rows"], _, query["grid_cols"] = request.GET[GRID_KEY].partition(",")
    preset, _, compare = request.GET.get("preset", "").partition(",")
    query.update({k: v for k, v in (("preset", preset), ("compare", compare)) if v})
    if request.GET.get("action") == "preset":  # the no-JS button of the GET form
        return _fill_from_preset(request, spec, request.GET)
    if "run" in request.GET:
        # A permalink: the same inputs give the same result, computed here (no queue, no
        # stored run) so the link works for anyone, signed in or not, worker up or down.
        form = CalculatorForm(spec, query)
        if not form.is_valid():
            return _render_page(request, spec, form, status=400)
        points = int(np.prod([len(v) for v in form.calculator_inputs.values() if _is_list(v)]))
        if points <= PERMALINK_POINTS:
            result = compute(spec.slug, form.calculator_inputs)
            return _render_page(request, spec, form, result=result, preset=form.preset_text)
        # Too large to compute here: the same inputs in a form that posts (with a token,
        # so this one page is the reader's own) and queues the sweep.
        form = CalculatorForm(spec, initial=query)
        return _render_page(request, spec, form, queue_notice=True)
    initial: dict[str, Any] = dict(query) or initial_from_inputs(dict(spec.example))
    return _render_page(request, spec, CalculatorForm(spec, initial=initial))


def _fill_from_preset(request: HttpRequest, spec: CalculatorSpec, sent: Any) -> HttpResponse:
    """No-JS "Fill from preset": replace the preset's fields with its figures, run nothing."""
    data = sent.copy()
    chosen = data.get("preset", "")
    for name, value in preset_values(spec).get(chosen, {}).items():
        data[name] = value
    initial = {k: data.get(k, "") for k in [*spec.input_names, "preset"]}
    return _render_page(request, spec, CalculatorForm(spec, initial=initial))


def run_detail(request: HttpRequest, slug: str, run_id: str) -> HttpResponse:
    spec = _spec_or_404(slug)
    run = get_object_or_404(CalculationRun, pk=run_id, calculator=slug)
    if leases.is_abandoned(run):  # its worker died: hand it back now, not at the next beat
        services.reap_abandoned(run_id=str(run.pk))
        run.refresh_from_db()
    preset = request.GET.get("preset", run.preset) or ""
    initial = initial_from_inputs(run.inputs, preset, spec)
    result = run.result if run.status == CalculationRun.Status.DONE else None
    return _render_page(
        request, spec, CalculatorForm(spec, initial=initial), run=run, result=result, preset=preset
    )


def _run_url(run: CalculationRun, preset: str | None) -> str:
    url = reverse("calculators:run", kwargs={"slug": run.calculator, "run_id": run.pk})
    return f"{url}?{urlencode({'preset': preset})}" if preset else url


def _render_page(
    request: HttpRequest,
    spec: CalculatorSpec,
    form: CalculatorForm,
    *,
    run: CalculationRun | None = None,
    result: dict[str, Any] | None = None,
    preset: str = "",
    status: int = 200,
    queue_notice: bool = False,
) -> HttpResponse:
    """The page. Its form is a GET to the permalink (``run=1``: computed here) and carries
    no token, so the page is the same for every reader and is cached whole;
    calculators.js turns it into a POST with the token from the CSRF cookie, which the
    page's wrapper (``inferview.pages.calculators``) sets. A form that must post without
    the script (a bound form with errors, a sweep too large for a link) carries a token."""
    if result is not None:
        result = _label_compare_columns(result, preset)
    context = {
        "spec": spec,
        "form": form,
        "run": run,
        "result": result,
        "calls": reproduce(request, spec, result["inputs"], preset) if result else None,
        "verdict": _verdict(spec, result) if result else None,
        "chart_svg": render_chart(result["chart"], uid=f"chart-{spec.slug}") if result else "",
        "preset_json": json.dumps(preset_values(spec)),
        "model_fills": _model_fills(spec),
        "api_run_url": reverse("calculators-api:run-detail", kwargs={"run_id": run.pk})
        if run is not None
        else "",
        "meta_description": spec.summary,
        "reality": calibration.page_section(
            spec.slug, result["inputs"] if result else dict(spec.example), preset
        ),
        "input_fields": [
            form[name]
            for i in spec.inputs
            for name in ((i.name, "config") if i.name == "model" else (i.name,))
            if name in form.fields
        ],
        "extra_fields": [form[name] for name in FORM_EXTRAS if name in form.fields],
        # the error summary's links, in the form's order (the preset's first)
        "fields_with_errors": [field for field in form if field.errors],
        "extras_have_errors": any(form[n].errors for n in FORM_EXTRAS if n in form.fields),
        "post_form": bool(form.is_bound and form.errors) or queue_notice,
        "queue_notice": queue_notice,
    }
    return render(request, "calculators/calculator.html", context, status=status)


def _is_list(value: Any) -> bool:
    return isinstance(value, list)


def _call_inputs(spec: CalculatorSpec, inputs: dict[str, Any], preset: str) -> dict[str, Any]:
    """The inputs a call must name to reproduce a run: what differs from the defaults and
    from what the preset fills (a comparison fills every preset input itself)."""
    first, _, second = preset.partition(",")
    filled = preset_values(spec).get(first, {}) if not second else {}
    from_model = model_filled(spec, inputs)
    out = {}
    for name, value in inputs.items():
        if name in from_model:
            continue
        if name != GRID_KEY:
            inp = spec.input(name)
            if inp.default is not None and value == inp.default:
                continue
            if second and name in spec.preset_fills:
                continue
            if name in filled and to_text(value) == filled[name]:
                continue
        out[name] = value
    return out


def reproduce(
    request: HttpRequest, spec: CalculatorSpec, inputs: dict[str, Any], preset: str
) -> dict[str, str]:
    """A permalink, a CLI command and an API call that give the same result."""
    given = _call_inputs(spec, inputs, preset)
    query = {name: to_text(value) for name, value in given.items()}
    if preset:
        query["preset"] = preset
    query["run"] = "1"
    path = reverse("calculators:detail", kwargs={"slug": spec.slug})
    permalink = request.build_absolute_uri(f"{path}?{urlencode(query, safe=',')}")
    cli = " ".join(
        ["python manage.py calc", spec.slug]
        + [f"{name}={to_text(value)}" for name, value in given.items()]
        + ([f"--preset {preset}"] if preset else [])
    )
    body: dict[str, Any] = {"inputs": given}
    if preset:
        body["preset"] = preset
    api_url = request.build_absolute_uri(
        reverse("calculators-api:runs", kwargs={"slug": spec.slug})
    )
    api = (
        f"curl -X POST '{api_url}?wait=10' -H 'Content-Type: application/json' "
        f"-d '{json.dumps(body, separators=(',', ':'))}'"
    )
    return {"permalink": permalink, "cli": cli, "api": api}


def _label_compare_columns(result: dict[str, Any], preset: str) -> dict[str, Any]:
    """Name the two columns of a comparison by what is compared: two presets (H100 SXM,
    H200) or two models (Llama 3.1 70B, Qwen3 235B)."""
    columns = result.get("table", {}).get("columns", [])
    gpus, models = preset.split(","), result.get("inputs", {}).get("model")
    if len(columns) != 2:
        return result
    if len(gpus) == 2 and all(s in presets.GPUS for s in gpus):
        titles = [presets.GPUS[s].name for s in gpus]
    elif isinstance(models, list) and all(m in model_catalog.MODELS for m in models):
        titles = [model_catalog.MODELS[m].name for m in models]
    else:
        return result
    names = {c: f"{c[:1]}: {t}" for c, t in zip(columns, titles, strict=True)}

    def relabel(text: str | None) -> str | None:
        for old, new in names.items():
            if text and text.startswith(old):
                return new + text[len(old) :]
        return text

    table = {**result["table"], "columns": list(names.values())}
    steps = [{**s, "title": relabel(s["title"])} for s in result.get("steps", [])]
    establishes = [relabel(t) for t in result.get("establishes", [])]
    return {**result, "table": table, "steps": steps, "establishes": establishes}


def _verdict(spec: CalculatorSpec, result: dict[str, Any]) -> dict[str, Any] | None:
    """serving_estimate's headline: does it fit, and if not, why (the first column)."""
    if spec.slug != "serving_estimate":
        return None
    out = result["outputs"]

    def first(name: str) -> Any:
        value = out.get(name)
        while isinstance(value, list):
            value = value[0] if value else None
        return value

    return {
        "fits": bool(first("fits")),
        "note": first("fit_note"),
        "max_concurrency": number(first("max_concurrency")),
        "weights_gb_per_gpu": number(first("weights_gb_per_gpu")),
        "kv_capacity_tokens": number(first("kv_capacity_tokens")),
        "several": result.get("points", 1) > 1,
    }


def _model_fills(spec: CalculatorSpec) -> dict[str, dict[str, str]]:
    """For the page script: model slug -> {input name: the value the model fills}, shown
    as placeholders so a reader sees what picking a model puts in."""
    if "model" not in spec.input_names:
        return {}
    names = [n for n in spec.input_names if n != "model"]
    return {
        slug: {
            k: to_text(v)
            for k, v in model_catalog.model_fill(slug, names, spec.model_renames).items()
        }
        for slug in model_catalog.MODELS
    }
