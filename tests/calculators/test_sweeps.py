"""Every numeric input of every calculator sweeps: 100 points, with and without a hardware
preset, through the kernel (validation, kernel, steps, texts and chart, as the CLI and
pages run it) and through the API with a real Celery worker. No sweep may fail, and every
output must be finite and keep the input's shape.

A calculator's sweep starts from a base: its spec example, plus extra bases for inputs
the example leaves out (MoE and MLA layouts, local layers, the roofline's flops/bytes
form). Each numeric input is swept over ±10 % of its base value (0 to 1 where the base
is 0), rounded for whole-number inputs and kept inside the input's range, so
cross-field rules (experts_per_token ≤ experts, local_layers ≤ layers) still hold.
"""

from __future__ import annotations

import math
import os
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from calculators.compute import run_inline
from calculators.specs import INTEGER, NUMBER, SPECS
from tests.calculators.stack import running_stack, wait_for_run
from tests.calculators.sweep_cases import CASES, POINTS

# Outputs whose non-finite value carries a meaning the page states in words.
MAY_BE_NON_FINITE = {
    ("decode_bound", "compute_bound_batch"),  # inf: compute never catches up ("never")
    ("availability", "nines"),  # inf at exactly 100 %
}


IDS = [f"{slug}-{name}-{preset or 'none'}" for slug, name, preset, _ in CASES]


def check_outputs(slug: str, outputs: dict, shape: list[int]) -> None:
    assert shape == [POINTS], (slug, shape)
    assert outputs
    for name, values in outputs.items():
        assert isinstance(values, list) and len(values) == POINTS, (slug, name)
        if (slug, name) in MAY_BE_NON_FINITE:
            continue
        for v in values:
            # JSON turns NaN and infinity into null: a null number is a non-finite one.
            assert v is not None, (slug, name, "non-finite")
            if isinstance(v, float):
                assert math.isfinite(v), (slug, name, v)


def test_every_numeric_input_of_every_calculator_is_swept():
    """The case list itself covers every numeric input of every calculator, with and
    without a preset where the calculator takes one."""
    covered = {(slug, name, preset is not None) for slug, name, preset, _ in CASES}
    for slug, spec in SPECS.items():
        for inp in spec.inputs:
            if inp.kind in (NUMBER, INTEGER):
                assert (slug, inp.name, False) in covered, f"add a base for {slug}.{inp.name}"
                if spec.preset_fills:
                    assert (slug, inp.name, True) in covered, f"{slug}.{inp.name} with a preset"


@pytest.mark.parametrize(("slug", "name", "preset", "raw"), CASES, ids=IDS)
def test_sweep_through_the_kernel(slug, name, preset, raw):
    result = run_inline(slug, raw, preset)
    check_outputs(slug, result["outputs"], result["shape"])
    assert result["steps"] and result["establishes"] and result["chart"]


@pytest.mark.worker
def test_every_sweep_through_the_api_and_a_real_worker(tmp_path_factory):
    """All cases in one stack: post every run, then wait for each, so the worker drains
    them concurrently and the test costs one worker session."""
    with running_stack(
        tmp_path_factory.mktemp("sweep-stack"),
        redis_url=os.environ.get("REDIS_URL"),
        concurrency=4,
        # every case is posted within a minute, and there are more of them than the
        # production rate allows one caller (tests/security/test_rate_limits.py)
        extra_env={"CALCULATOR_RUN_RATE": f"{2 * len(CASES)}/m"},
    ) as stack:

        def post(case):
            slug, name, preset, raw = case
            body = {"inputs": raw, **({"preset": preset} if preset else {})}
            for _ in range(5):
                response = requests.post(stack.api(f"{slug}/runs/"), json=body, timeout=60)
                if response.status_code != 503:
                    break
                # The API's contract for a busy broker: come back after Retry-After.
                time.sleep(float(response.headers.get("Retry-After", 1)))
            assert response.status_code in (200, 202), (slug, name, response.content[:300])
            return response.json()["url"]

        def wait(case_url):
            (slug, name, _, _), url = case_url
            run = wait_for_run(requests.Session(), url, timeout=300, interval=0.2)
            assert run["status"] == "done", (slug, name, run.get("error"))
            check_outputs(slug, run["result"]["outputs"], run["result"]["shape"])

        with ThreadPoolExecutor(max_workers=4) as pool:
            urls = list(pool.map(post, CASES))
            list(pool.map(wait, zip(CASES, urls, strict=True)))
