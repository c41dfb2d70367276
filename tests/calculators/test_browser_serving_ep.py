"""Chromium opens serving_estimate for an expert-parallel DeepSeek-V3 deployment (a GET
permalink, computed on the web server) and finds the new worked steps: the KV precision
auto picked, paged admission, DeepEP's all-to-alls under two-batch overlap and prefill
under attention data parallelism; at desktop and phone widths, axe clean, no overflow.
Screenshots go to var/screenshots/calculators/."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("CALC_SHOTS_DIR", ROOT / "var" / "screenshots" / "calculators"))
QUERY = (
    "model=deepseek-v3&preset=h100-sxm&weight_precision=fp8&precision=fp8&tp=16&ep=16"
    "&dp_attention=true&overlap=two_batch&prompt_tokens=2000&output_tokens=100"
    "&concurrency=512&run=1"
)


@pytest.mark.parametrize("width", [1280, 360])
def test_expert_parallel_steps_are_shown(browser, live_server, width) -> None:
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{live_server.url}/calculators/serving_estimate/?{QUERY}")
    steps = page.locator(".calc-result")
    expect(steps).to_contain_text("DeepEP low-latency")
    expect(steps).to_contain_text("two-batch overlap")
    expect(steps).to_contain_text("prompt + output/2")
    expect(steps).to_contain_text("auto: an MLA latent at the attention precision")
    expect(steps).to_contain_text("each of the 16 ranks prefills its own prompts")
    # MLA under "auto" keeps FlashMLA's BF16 latent although the weights are FP8
    kv_row = page.locator(".calc-outputs tr", has_text="kv_precision_used")
    expect(kv_row.locator("td")).to_have_text("bf16")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert not [
        v for v in Axe().run(page).response["violations"] if v["impact"] in {"serious", "critical"}
    ]
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"serving_estimate-ep-{width}.png"), full_page=True)
    assert errors == []
    context.close()
