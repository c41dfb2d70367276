"""serving_estimate's ``admission`` = paged | reserved (issue 32): TensorRT-LLM's default
capacity scheduler admits a request only with its whole sequence set aside, vLLM's paged
cache on what the request holds. Checked by hand, and the same through the API, the page
and ``manage.py calc``."""

from __future__ import annotations

import json

import pytest

from calculators.kernels import serving_estimate

from .surfaces import api_cli_page

# 10 layers × 8 KV heads × 128 × 2 (K, V) × 2 bytes = 40,960 B a token. Pool: 80 GB × 0.9
# − 20 GB of BF16 weights = 52 GB = 52e9 / 40,960 = 1,269,531 tokens (floor).
SMALL = dict(
    params_b=10, layers=10, heads=8, kv_heads=8, head_dim=128, device_memory_gb=80,
    bandwidth_tbs=1.0, peak_tflops=100, compute_efficiency=0.5, bandwidth_efficiency=1.0,
    prompt_tokens=1000, output_tokens=2000, concurrency=8,
)  # fmt: skip
CAPACITY = 1_269_531


def test_reserved_admission_sets_aside_the_whole_sequence() -> None:
    paged = serving_estimate(**SMALL)
    reserved = serving_estimate(**SMALL, admission="reserved")
    assert float(paged["kv_capacity_tokens"]) == CAPACITY
    # paged: ⌊1,269,531 / (1000 + 2000/2)⌋ = 634; reserved: ⌊1,269,531 / 3000⌋ = 423
    assert int(paged["max_concurrency"]) == 634
    assert int(reserved["max_concurrency"]) == 423
    # At a given concurrency a step reads and computes the same: only admission differs.
    for name in ("itl_ms", "prefill_ms", "tokens_per_s_total", "memory_ms"):
        assert float(reserved[name]) == pytest.approx(float(paged[name])), name


def test_a_batch_that_fits_paged_may_not_fit_reserved() -> None:
    both = serving_estimate(**{**SMALL, "concurrency": 500}, admission=["paged", "reserved"])
    assert both["fits"].tolist() == [True, False]


INPUTS = {
    "model": "llama-3.1-70b", "weight_precision": "fp8", "precision": "fp8",
    "prompt_tokens": 128, "output_tokens": 2048, "concurrency": 64, "admission": "reserved",
}  # fmt: skip


@pytest.mark.django_db
def test_the_same_through_api_page_and_cli(client, published) -> None:
    api, cli, html = api_cli_page(client, INPUTS, "h200")
    assert api["max_concurrency"] == cli["max_concurrency"]
    assert api["itl_ms"] == pytest.approx(cli["itl_ms"])
    assert "reserved admission" in html and "GUARANTEED_NO_EVICT" in html
    _, paged, _ = api_cli_page(client, {**INPUTS, "admission": "paged"}, "h200")
    # (128 + 2048) against (128 + 1024) tokens a request: about 1.89x as many paged
    assert paged["max_concurrency"] / cli["max_concurrency"] == pytest.approx(2176 / 1152, rel=0.01)
    assert paged["itl_ms"] == pytest.approx(cli["itl_ms"])
    bad = client.post(
        "/api/v1/calculators/serving_estimate/runs/",
        json.dumps({"inputs": {**INPUTS, "admission": "evict"}, "preset": "h200"}),
        content_type="application/json",
    )
    assert bad.status_code == 400 and bad.json()["error"]["fields"]["admission"]


def _establishes(inputs: dict) -> str:
    from calculators.compute import run_inline

    return " ".join(run_inline("serving_estimate", inputs, "h200")["establishes"])


@pytest.mark.django_db
def test_the_page_says_what_reserved_admission_does_with_a_batch_that_does_not_fit() -> None:
    over = {**INPUTS, "concurrency": 200}  # 149 fit reserved, 281 paged (2,176 vs 1,152)
    text = _establishes(over)
    assert "admits only 149 requests with their whole 2,176 tokens set aside" in text
    assert "never preempts" in text and "preempt the rest" not in text
    paged = _establishes({**over, "admission": "paged"})
    assert "It fits: 200 requests" in paged and "mean resident length" in paged


@pytest.mark.django_db
def test_the_page_counts_whole_sequences_when_a_reserved_batch_fits() -> None:
    text = _establishes(INPUTS)  # 64 requests × 2,176 tokens = 139,264
    assert "each admitted with its whole sequence set aside, take 139,264 of the" in text
