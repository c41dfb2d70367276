"""Chromium fills calculator forms, waits for the worker's result and finds the chart;
drives serving_estimate from its pickers to the chart; and looks at every calculator page
with a result on a phone (360 px) and a desktop (1280 px).

Runs against the real stack (gunicorn + Celery worker), so the page's progress polling
is exercised for real. Screenshots go to var/screenshots/calculators/ (a CI artifact).
"""

import os
import re
from pathlib import Path
from urllib.parse import urlencode

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from calculators.forms import to_text
from calculators.specs import SPECS
from tests.calculators.stack import running_stack
from tests.conftest import DESKTOP, PHONE

pytestmark = [pytest.mark.browser, pytest.mark.worker]
ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("CALC_SHOTS_DIR", ROOT / "var" / "screenshots" / "calculators"))
PHONE_360 = {"width": 360, "height": 780}
BLOCKING = {"serious", "critical"}
PRESETS = {
    "roofline": "h100-sxm",
    "decode_bound": "h100-sxm",
    "attention_intensity": "h100-sxm",
    "local_fit": "rtx-5090",
    "serving_estimate": "h100-sxm",
    "prefill": "h100-sxm",
}


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    SHOTS.mkdir(parents=True, exist_ok=True)
    with running_stack(
        tmp_path_factory.mktemp("calc-browser"), redis_url=os.environ.get("REDIS_URL")
    ) as st:
        yield st


def test_fill_form_wait_for_result_and_chart(browser, stack):
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(stack.base_url + "/calculators/decode_bound/")
    page.select_option("select[name=preset]", "h200")
    # The script fills the preset's figures into the form.
    assert page.input_value("input[name=bandwidth_tbs]") == "4.8"
    assert page.input_value("input[name=peak_tflops]") == "989"
    page.fill("input[name=params_b]", "70")
    page.fill("input[name=bytes_per_param]", "1")
    page.fill("input[name=batch_size]", "1,16,256")
    page.click("button[value=run]")
    page.wait_for_url("**/calculators/decode_bound/runs/**")
    page.wait_for_selector(".calc-result svg.calc-chart", timeout=60_000)
    assert page.locator(".calc-outputs").inner_text().count("tokens/s") >= 3
    expect(page.get_by_text("What this establishes")).to_be_visible()
    assert page.locator("svg.calc-chart .calc-point").count() >= 3  # the input points
    # Changing one input and resubmitting keeps the others.
    page.fill("input[name=params_b]", "8")
    page.click("button[value=run]")
    page.wait_for_selector(".calc-result svg.calc-chart", timeout=60_000)
    assert page.input_value("input[name=batch_size]") == "1,16,256"
    assert page.input_value("input[name=bandwidth_tbs]") == "4.8"
    assert page.input_value("input[name=params_b]") == "8"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "decode_bound-flow.png"), full_page=True)
    assert errors == []
    context.close()


def test_form_error_is_shown_next_to_the_field(browser, stack):
    page = browser.new_page(viewport=PHONE)
    page.goto(stack.base_url + "/calculators/kv_cache/")
    page.fill("input[name=layers]", "-3")
    page.click("button[value=run]")
    error = page.locator(".field-invalid .field-error")
    expect(error.first).to_contain_text("must be at least 1")
    # the summary has the focus and names the field, linked to it (the walkthrough found
    # focus left on <body> and a summary that named nothing)
    summary = page.locator(".calc-form .form-errors")
    expect(summary).to_be_focused()
    link = summary.get_by_role("link", name="Layers")
    expect(link).to_have_attribute("href", "#id_layers")
    expect(summary).to_contain_text("must be at least 1")
    link.click()
    expect(page.locator("#id_layers")).to_be_focused()
    page.screenshot(path=str(SHOTS / "kv_cache-error-phone.png"), full_page=True)
    page.close()


def test_serving_estimate_from_pickers_to_the_chart(browser, stack):
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(stack.base_url + "/calculators/serving_estimate/")
    page.select_option("select[name=model]", "qwen3-32b")
    # The picker shows what the model fills (Qwen3-32B: 64 layers).
    expect(page.locator("input[name=layers]")).to_have_attribute("placeholder", "64")
    page.select_option("select[name=preset]", "h100-sxm")
    # The GPU picker fills the GPU's figures.
    expect(page.locator("input[name=bandwidth_tbs]")).to_have_value("3.35")
    page.select_option("select[name=weight_precision]", "fp8")
    page.select_option("select[name=kv_precision]", "fp8")
    page.select_option("select[name=precision]", "fp8")
    page.fill("input[name=tp]", "2")
    page.fill("input[name=prompt_tokens]", "2000")
    page.fill("input[name=output_tokens]", "500")
    page.fill("input[name=concurrency]", "32")
    page.click("button[value=run]")
    page.wait_for_url("**/calculators/serving_estimate/runs/**")
    chart = page.locator(".calc-result svg.calc-chart")
    expect(chart).to_be_visible(timeout=60_000)
    expect(page.locator(".calc-verdict")).to_contain_text("It fits")
    expect(chart).to_contain_text("KV full at B=")  # the memory limit is marked
    expect(chart.locator(".calc-point")).to_have_count(1)  # the input point
    expect(page.locator(".calc-outputs")).to_contain_text("tokens/s")
    # Qwen3-32B from the catalogue: 2 × 64 layers × 8 KV heads × 128 × 1 byte (fp8).
    kv_row = page.locator(".calc-outputs tr", has_text="kv_bytes_per_token")
    expect(kv_row.locator("td")).to_have_text("131,072 bytes")
    # The permalink reproduces the same result without the queue.
    cell = page.locator(".calc-outputs tr", has_text="tokens_per_s_total").locator("td")
    total = cell.inner_text()
    page.click("text=Link, command line and API call for this result")
    page.click("a.calc-call-text")
    expect(page).to_have_url(re.compile(r"run=1"))
    expect(cell).to_have_text(total)
    assert not [v for v in Axe().run(page).response["violations"] if v["impact"] in BLOCKING]
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "serving_estimate-flow-1280.png"), full_page=True)
    assert errors == []
    context.close()


MISTRAL_CONFIG = """{
  "architectures": ["MistralForCausalLM"], "model_type": "mistral",
  "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
  "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
  "vocab_size": 32000, "max_position_embeddings": 32768, "tie_word_embeddings": false
}"""


def test_serving_estimate_from_a_pasted_config_json(browser, stack):
    page = browser.new_page(viewport=PHONE)
    page.goto(stack.base_url + "/calculators/serving_estimate/")
    page.select_option("select[name=model]", "")
    page.fill("textarea[name=config]", MISTRAL_CONFIG)
    page.select_option("select[name=preset]", "l4")
    page.fill("input[name=concurrency]", "4")
    page.click("button[value=run]")
    page.wait_for_url("**/calculators/serving_estimate/runs/**")
    expect(page.locator(".calc-result svg.calc-chart")).to_be_visible(timeout=60_000)
    # 2 × 32 layers × 8 KV heads × 128 × 1 byte (the example's fp8 KV cache).
    kv_row = page.locator(".calc-outputs tr", has_text="kv_bytes_per_token")
    expect(kv_row.locator("td")).to_have_text("65,536 bytes")
    # A config it cannot read is named, field by field.
    page.goto(stack.base_url + "/calculators/serving_estimate/")
    page.select_option("select[name=model]", "")
    page.fill("textarea[name=config]", '{"model_type": "llama"}')
    page.click("button[value=run]")
    expect(page.locator(".field-error").first).to_contain_text("num_hidden_layers")
    page.screenshot(path=str(SHOTS / "serving_estimate-config-error-phone.png"), full_page=True)
    page.close()


def _permalink(slug: str) -> str:
    spec = SPECS[slug]
    preset = PRESETS.get(slug)
    inputs = {
        k: v
        for k, v in spec.example.items()
        if not (preset and k in spec.preset_fills and k != "device_memory_gb")
    }
    query = {k: to_text(v) for k, v in inputs.items()}
    if preset:
        query["preset"] = preset
    query["run"] = "1"
    return f"/calculators/{slug}/?{urlencode(query, safe=',')}"


@pytest.mark.parametrize("viewport", [PHONE_360, DESKTOP], ids=["360", "1280"])
def test_every_calculator_page_with_a_result(browser, stack, viewport):
    SHOTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    problems = []
    page.goto(stack.base_url + "/calculators/")
    page.screenshot(path=str(SHOTS / f"index-{viewport['width']}.png"), full_page=True)
    for slug in SPECS:
        page.goto(stack.base_url + _permalink(slug))
        expect(page.locator(".calc-result svg.calc-chart")).to_be_visible()
        overflow = page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        if overflow > 0:
            problems.append(f"{slug}: page overflows by {overflow} px")
        page.screenshot(path=str(SHOTS / f"{slug}-{viewport['width']}.png"), full_page=True)
    # One grid and one comparison, at this width too.
    page.goto(
        stack.base_url + "/calculators/kv_cache/?layers=80&kv_heads=8&head_dim=128"
        "&seq_len=1024,4096,16384,65536&batch_size=1,8,32,128&grid=batch_size,seq_len&run=1"
    )
    expect(page.locator("svg.calc-heatmap")).to_be_visible()
    page.screenshot(path=str(SHOTS / f"kv_cache-grid-{viewport['width']}.png"), full_page=True)
    page.goto(stack.base_url + "/calculators/decode_bound/?params_b=70&bytes_per_param=1"
              "&preset=h100-sxm,h200&run=1")  # fmt: skip
    expect(page.locator(".calc-outputs thead")).to_contain_text("B: NVIDIA H200")
    page.screenshot(
        path=str(SHOTS / f"decode_bound-compare-{viewport['width']}.png"), full_page=True
    )
    violations = Axe().run(page).response["violations"]
    problems += [f"axe {v['impact']} {v['id']}" for v in violations if v["impact"] in BLOCKING]
    assert problems == [] and errors == []
    context.close()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE_360], ids=["desktop", "phone"])
def test_how_close_to_reality_section(browser, stack, viewport):
    """The published rows nearest the inputs, readable at both widths, nothing overflows
    the page and axe finds nothing serious."""
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.goto(
        stack.base_url + "/calculators/serving_estimate/?model=llama-2-70b&weight_precision=fp8"
        "&kv_precision=fp8&precision=fp8&tp=2&prompt_tokens=2048&output_tokens=2048"
        "&concurrency=64&preset=h100-sxm&run=1"
    )
    section = page.locator("section.calc-reality")
    expect(section).to_contain_text("How close is this to reality?")
    expect(section.locator("tbody tr")).to_have_count(3)
    expect(section).to_contain_text("What the estimate leaves out")
    section.scroll_into_view_if_needed()
    overflow = page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    page.screenshot(
        path=str(SHOTS / f"serving_estimate-reality-{viewport['width']}.png"), full_page=True
    )
    violations = Axe().run(page).response["violations"]
    serious = [f"{v['impact']} {v['id']}" for v in violations if v["impact"] in BLOCKING]
    assert overflow <= 0 and serious == []
    context.close()
