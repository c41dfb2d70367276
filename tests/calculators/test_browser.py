"""Chromium fills a calculator form, waits for the worker's result and finds the chart.

Runs against the real stack (gunicorn + Celery worker), so the page's progress polling
is exercised for real. Screenshots of every calculator page go to /tmp/calc-shots/.
"""

import os
from pathlib import Path

import pytest
import requests
from playwright.sync_api import expect

from tests.calculators.stack import running_stack
from tests.conftest import DESKTOP, PHONE

pytestmark = [pytest.mark.browser, pytest.mark.worker]
SHOTS = Path(os.environ.get("CALC_SHOTS_DIR", "/tmp/calc-shots"))


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
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
    page.screenshot(path=str(SHOTS / "kv_cache-error-phone.png"), full_page=True)
    page.close()


def test_screenshot_every_calculator_page(browser, stack):
    from calculators.specs import SPECS

    SHOTS.mkdir(parents=True, exist_ok=True)
    session = requests.Session()
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(stack.base_url + "/calculators/")
    page.screenshot(path=str(SHOTS / "index.png"), full_page=True)
    for slug, spec in SPECS.items():
        preset = {
            "roofline": "h100-sxm",
            "decode_bound": "h100-sxm",
            "mig": "h100-sxm",
            "attention_intensity": "h100-sxm",
            "local_fit": "rtx-5090",
        }.get(slug)
        inputs = (
            {k: v for k, v in spec.example.items() if k not in spec.preset_fills}
            if preset
            else dict(spec.example)
        )
        response = session.post(
            stack.api(f"{slug}/runs/") + "?wait=10",
            json={"inputs": inputs, "preset": preset},
            timeout=60,
        )
        run = response.json()
        assert run.get("status") == "done", (slug, run)
        page.goto(stack.base_url + f"/calculators/{slug}/runs/{run['id']}/")
        assert page.locator(".calc-result svg.calc-chart").count() == 1, slug
        page.screenshot(path=str(SHOTS / f"{slug}.png"), full_page=True)
    phone = browser.new_context(viewport=PHONE).new_page()
    phone.goto(stack.base_url + "/calculators/roofline/")
    phone.screenshot(path=str(SHOTS / "roofline-phone.png"), full_page=True)
    assert errors == []
    context.close()
