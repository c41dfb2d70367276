"""Calculator page tools: permalinks that reproduce a run, the CLI and API calls beside
the result, comparisons, grids, choice pickers and serving_estimate's verdict."""

import json
import re
import shlex
from html import unescape
from io import StringIO
from urllib.parse import urlsplit

import pytest
from django.core.management import call_command

from calculators.compute import run_inline
from calculators.models import CalculationRun

pytestmark = pytest.mark.django_db

SERVING = {
    "params_b": "70.6",
    "layers": "80",
    "heads": "64",
    "kv_heads": "8",
    "head_dim": "128",
    "weight_precision": "fp8",
    "kv_precision": "fp8",
    "tp": "2",
    "prompt_tokens": "2000",
    "output_tokens": "500",
    "concurrency": "32",
}


def _calls(html: str) -> dict[str, str]:
    link = re.search(r'<a class="calc-call-text" href="([^"]+)"', html).group(1)
    codes = re.findall(r'<pre class="calc-call-text"[^>]*><code>(.*?)</code></pre>', html, re.S)
    return {"permalink": unescape(link), "cli": unescape(codes[0]), "api": unescape(codes[1])}


def test_permalink_cli_and_api_reproduce_the_run(
    client, published, django_capture_on_commit_callbacks
):
    from calculators.execution import execute_run

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/calculators/serving_estimate/",
            {**SERVING, "preset": "h100-sxm", "action": "run"},
        )
    run = CalculationRun.objects.get()
    execute_run(run_id=str(run.pk))
    html = client.get(response["Location"]).content.decode()
    expected = CalculationRun.objects.get().result["outputs"]
    calls = _calls(html)

    # The permalink computes the same outputs in-process, with no stored run.
    url = urlsplit(calls["permalink"])
    page = client.get(f"{url.path}?{url.query}").content.decode()
    # 830.0: the H100 preset now fills the link for TP all-reduces (160 × (8 µs + 32·8192·2 B
    # / 369 GB/s) = 1.507 ms a step), the usable memory and FP8's prefill efficiency 0.45;
    # 829 since each step composes memory and compute, (m⁴ + c⁴)^¼ (15.37 and 4.76 ms).
    assert "829 tokens/s" in page and "It fits" in page
    assert CalculationRun.objects.count() == 1

    # The CLI command prints the same outputs.
    args = shlex.split(calls["cli"])[3:]
    out = StringIO()
    call_command("calc", *args, "--json", stdout=out)
    assert json.loads(out.getvalue()) == expected

    # The API body names the same inputs and preset.
    body = json.loads(shlex.split(calls["api"])[-1])
    assert body["preset"] == "h100-sxm" and "bandwidth_tbs" not in body["inputs"]
    assert run_inline("serving_estimate", body["inputs"], body["preset"])["outputs"] == expected


def test_permalink_with_bad_input_names_the_field(client):
    response = client.get(
        "/calculators/kv_cache/?layers=-1&kv_heads=8&head_dim=128&seq_len=8&run=1"
    )
    assert response.status_code == 400
    assert "must be at least 1" in response.content.decode()


def test_result_table_and_chart_are_keyboard_scrollable_regions(client):
    html = client.get(
        "/calculators/kv_cache/?layers=80&kv_heads=8&head_dim=128&seq_len=4096&run=1"
    ).content.decode()
    assert re.search(r'class="calc-table-wrap" tabindex="0" role="region" aria-label="[^"]+"', html)
    assert re.search(r'<figure class="calc-figure" tabindex="0"', html)


def test_compare_two_presets_from_the_form(client, published, django_capture_on_commit_callbacks):
    from calculators.execution import execute_run

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/calculators/decode_bound/",
            {
                "preset": "h100-sxm",
                "compare": "h200",
                # As the script filled them from the first preset: dropped for the comparison.
                "bandwidth_tbs": "3.35",
                "peak_tflops": "989",
                "params_b": "8",
                "bytes_per_param": "2",
                "action": "run",
            },
        )
    run = CalculationRun.objects.get()
    assert run.inputs["bandwidth_tbs"] == [3.35, 4.8] and run.preset == "h100-sxm,h200"
    execute_run(run_id=str(run.pk))
    html = client.get(response["Location"]).content.decode()
    assert "A: NVIDIA H100 SXM" in html and "B: NVIDIA H200" in html
    assert "<li>A: NVIDIA H100 SXM: " in html  # the texts name the column the same way
    assert "209.4 tokens/s" in html and "300 tokens/s" in html
    assert re.search(r'<option value="h200" selected', html)


def test_grid_from_the_form_draws_a_heat_map(client):
    response = client.get(
        "/calculators/kv_cache/?layers=80&kv_heads=8&head_dim=128&seq_len=1024,4096,16384"
        "&batch_size=1,8,64&grid=batch_size,seq_len&run=1"
    )
    html = response.content.decode()
    assert response.status_code == 200 and "calc-heatmap" in html
    assert "10.7" in html  # batch 8 × 4096 tokens × 327,680 bytes = 10.74 GB
    assert re.search(r'<option value="batch_size" selected', html)


def test_grid_error_is_shown_on_the_grid_field(client):
    html = client.get(
        "/calculators/kv_cache/?layers=80&kv_heads=8&head_dim=128&seq_len=4096"
        "&batch_size=1,8&grid=batch_size,seq_len&run=1"
    ).content.decode()
    assert "is a grid axis" in html


def test_choice_inputs_are_pickers(client):
    html = client.get("/calculators/serving_estimate/").content.decode()
    assert re.search(r'<select name="weight_precision"', html)
    assert '<option value="fp8">' in html or '<option value="fp8"' in html


def test_serving_verdict_says_why_it_does_not_fit(client):
    query = "&".join(
        f"{k}={v}" for k, v in {**SERVING, "weight_precision": "bf16", "tp": "1"}.items()
    )
    html = client.get(
        f"/calculators/serving_estimate/?{query}&preset=h100-sxm&run=1"
    ).content.decode()
    assert "The weights do not fit" in html and "141.2 GB of weights per GPU" in html
    assert (
        # usable 81,559 MiB = 85.521 GB less 1 GB context; (84.521 × 0.9 − 35.3) × 2 =
        # 81.538 GB of pool / 163,840 B a token
        "holds 497,665 tokens"
        in client.get(
            "/calculators/serving_estimate/?"
            + "&".join(f"{k}={v}" for k, v in SERVING.items())
            + "&preset=h100-sxm&run=1"
        ).content.decode()
    )


def test_what_this_establishes_never_repeats_a_bullet(client):
    html = client.get(
        "/calculators/serving_estimate/?"
        + "&".join(f"{k}={v}" for k, v in SERVING.items())
        + "&concurrency=8,16,32&preset=h100-sxm&run=1"
    ).content.decode()
    block = re.search(r'class="calc-establishes">(.*?)</ul>', html, re.S).group(1)
    items = [
        re.sub(r"^[A-L](?: \([^)]*\))?: ", "", i) for i in re.findall(r"<li>(.*?)</li>", block)
    ]
    assert len(items) == len(set(items)), items


def test_a_sentence_two_columns_share_is_said_once():
    """Columns A and C have the same inputs, so their sentences are one bullet "A, C: …"."""
    result = run_inline("decode_bound", {"params_b": [8, 16, 8], "bytes_per_param": 2}, "h100-sxm")
    bodies = [re.sub(r"^[A-L](?:, [A-L])*(?: \([^)]*\))?: ", "", t) for t in result["establishes"]]
    assert len(bodies) == len(set(bodies)), result["establishes"]
    assert any(t.startswith("A, C: ") for t in result["establishes"])


def test_compare_two_models_from_a_permalink(client):
    query = (
        "model=llama-3.1-70b,qwen3-235b-a22b&weight_precision=fp8&kv_precision=fp8&tp=8"
        "&prompt_tokens=2000&output_tokens=500&concurrency=64&preset=h200&run=1"
    )
    response = client.get(f"/calculators/serving_estimate/?{query}")
    html = response.content.decode()
    assert response.status_code == 200
    assert "A: Llama 3.1 70B" in html and "B: Qwen3 235B-A22B" in html
    # Qwen3-235B-A22B: 2 × 94 layers × 4 KV heads × 128 × 1 byte = 96,256 bytes per token.
    assert "96,256 bytes" in html and "163,840 bytes" in html
    calls = _calls(html)
    assert "model=llama-3.1-70b,qwen3-235b-a22b" in calls["cli"] and "params_b" not in calls["cli"]


def test_a_model_run_refills_the_form_with_the_model_not_its_numbers(client):
    from calculators.forms import CalculatorForm, initial_from_inputs
    from calculators.specs import SPECS

    spec = SPECS["serving_estimate"]
    inputs = run_inline(
        "serving_estimate",
        {"model": "llama-3.1-70b", "layers": 40, "prompt_tokens": 100, "output_tokens": 10,
         "concurrency": 2},
        "h100-sxm",
    )["inputs"]  # fmt: skip
    initial = initial_from_inputs(inputs, "h100-sxm", spec)
    assert initial["model"] == "llama-3.1-70b" and initial["preset"] == "h100-sxm"
    assert "kv_heads" not in initial and "params_b" not in initial  # as the model fills them
    assert initial["layers"] == "40"  # typed over the model: kept
    form = CalculatorForm(spec, {**initial, "model": "qwen3-32b", "layers": ""})
    assert form.is_valid(), form.errors
    assert form.calculator_inputs["kv_heads"] == 8 and form.calculator_inputs["layers"] == 64
