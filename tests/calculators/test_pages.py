"""Calculator pages: index, form (with and without errors), run page, embeds."""

import re

import pytest

from calculators.execution import execute_run
from calculators.models import CalculationRun
from calculators.specs import SPECS

pytestmark = pytest.mark.django_db


def test_index_lists_every_calculator(client):
    html = client.get("/calculators/").content.decode()
    for slug in SPECS:
        assert f'href="/calculators/{slug}/"' in html


@pytest.mark.parametrize("slug", list(SPECS))
def test_every_calculator_page_shows_units_ranges_and_example(client, slug):
    response = client.get(f"/calculators/{slug}/")
    assert response.status_code == 200
    html = response.content.decode()
    spec = SPECS[slug]
    for inp in spec.inputs:
        assert f'name="{inp.name}"' in html
        if inp.unit and inp.unit != "fraction":
            assert f'class="calc-unit">{inp.unit}<' in html
    if spec.preset_fills:
        assert 'name="preset"' in html


def test_query_string_prefills_the_form(client):
    html = client.get("/calculators/kv_cache/?layers=80&kv_heads=8").content.decode()
    assert re.search(r'name="layers"[^>]*value="80"', html)


def test_no_js_post_redirects_to_the_run_page(
    client, published, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/calculators/decode_bound/",
            {
                "preset": "h100-sxm",
                "params_b": "8",
                "bytes_per_param": "2",
                "batch_size": "1,8,32",
                "action": "run",
            },
        )
    assert response.status_code == 302
    run = CalculationRun.objects.get()
    assert response["Location"] == f"/calculators/decode_bound/runs/{run.pk}/?preset=h100-sxm"
    assert published == [str(run.pk)]
    page = client.get(response["Location"]).content.decode()
    assert "waiting for a worker" in page and 'http-equiv="refresh"' in page
    execute_run(run_id=str(run.pk))
    page = client.get(response["Location"]).content.decode()
    assert "What this establishes" in page and "What still needs measurement" in page
    assert "<svg" in page and "Worked steps" in page and "209.4 tokens/s" in page
    # Resubmitting keeps every input: the form is prefilled from the run.
    assert re.search(r'name="batch_size"[^>]*value="1,8,32"', page)
    assert re.search(r'name="bandwidth_tbs"[^>]*value="3.35"', page)
    assert re.search(r'<option value="h100-sxm" selected', page)


@pytest.mark.parametrize(
    "field, value, reason",
    [
        ("params_b", "eight", "must be a number"),
        ("params_b", "-1", "must be positive"),
        ("batch_size", "2.5", "whole number"),
        ("batch_size", "0", "at least 1"),
        ("bandwidth_efficiency", "1.5", "at most 1"),
        ("params_b", "nan", "NaN"),
        ("params_b", "inf", "infinity"),
        ("batch_size", "1,2,3", "do not broadcast"),
    ],
)
def test_form_errors_name_the_field_and_keep_the_inputs(client, field, value, reason):
    data = {
        "preset": "h100-sxm",
        "params_b": "8",
        "bytes_per_param": "2",
        "batch_size": "1",
        "action": "run",
    }
    if field == "batch_size" and reason == "do not broadcast":
        data["params_b"] = "1,2"
    data[field] = value
    response = client.post("/calculators/decode_bound/", data)
    assert response.status_code == 400
    html = response.content.decode()
    assert reason in html
    assert re.search(rf'name="{field}"[^>]*value="{re.escape(value)}"', html)
    assert CalculationRun.objects.count() == 0


def test_form_missing_required_and_unknown_preset(client):
    response = client.post("/calculators/decode_bound/", {"preset": "nope", "action": "run"})
    html = response.content.decode()
    assert response.status_code == 400
    assert "required" in html and "nope" in html


def test_form_choice_error(client):
    response = client.post(
        "/calculators/mig/",
        {"preset": "h100-sxm", "profile": "9g.1gb", "model_gb": "5", "action": "run"},
    )
    assert response.status_code == 400 and "is not one of" in response.content.decode()


def test_fill_from_preset_without_js(client):
    response = client.post(
        "/calculators/roofline/",
        {"preset": "a100-80gb", "peak_tflops": "1", "intensity": "10", "action": "preset"},
    )
    html = response.content.decode()
    assert re.search(r'name="peak_tflops"[^>]*value="312"', html)
    assert re.search(r'name="intensity"[^>]*value="10"', html)
    assert CalculationRun.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_page_computes_inline_when_the_queue_is_down(client, broker_down):
    response = client.post(
        "/calculators/availability/", {"availability_pct": "99.95", "action": "run"}, follow=True
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert "computed directly on the web server" in html and "21.91 min" in html
    assert CalculationRun.objects.get().status == "done"


def test_unknown_calculator_page_404(client):
    assert client.get("/calculators/nope/").status_code == 404


def test_question_embed_renders_with_preset(client):
    from django.template import Context, Template

    class Embed:
        calculator, preset, label = "decode_bound", "h100-sxm", ""
        inputs = {"params_b": 8, "bytes_per_param": 2}

    class Bad:
        calculator, preset, label, inputs = "kv_cache", "", "Broken", {"layers": -1}

    html = Template('{% include "calculators/_question_embeds.html" with embeds=embeds %}').render(
        Context({"embeds": [Embed(), Bad()]})
    )
    assert "Decode speed bound" in html and "NVIDIA H100 SXM" in html
    assert "What still needs measurement" in html and "<svg" in html
    assert "/calculators/decode_bound/?params_b=8" in html and "preset=h100-sxm" in html
    assert "could not run" in html and "layers" in html


@pytest.mark.django_db
def test_one_error_summary_names_form_and_field_errors_and_takes_the_focus(client, monkeypatch):
    """Errors about the form as a whole and about fields share one summary, announced once
    (no per-field alert) and focused on load; an error in the folded 'Compare and grid'
    opens it (the second reading: a form-level error left the focus on <body>)."""
    from calculators import forms
    from calculators.errors import CalculatorInputError

    def refuse(*args, **kwargs):
        raise CalculatorInputError({"inputs": ["these two cannot go together"], "layers": ["no"]})

    monkeypatch.setattr(forms, "validate_text", refuse)
    html = client.get("/calculators/kv_cache/", {"run": "1", "layers": "2"}).content.decode()
    summaries = re.findall(r'<div class="form-errors"[^>]*>.*?</div>', html, re.S)
    assert len(summaries) == 1 and "data-focus-on-load" in summaries[0]
    assert "inputs: these two cannot go together" in summaries[0]
    assert '<a href="#id_layers">Layers</a>: no' in summaries[0]
    assert html.count('role="alert"') == 1
    html = client.get("/calculators/serving_estimate/", {"run": "1", "compare": "x"}).content
    assert b'<details class="calc-more" open>' in html
