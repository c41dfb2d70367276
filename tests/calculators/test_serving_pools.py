"""serving_estimate's pool = both | prefill | decode (issue 32): one pool of a
disaggregated deployment changes the main outputs, checked by hand, and the same through
the API, the page and ``manage.py calc``."""

from __future__ import annotations

import json

import pytest

from calculators.kernels import serving_estimate

from .surfaces import api_cli_page

SMALL = dict(
    params_b=10, layers=10, heads=8, kv_heads=8, head_dim=128, device_memory_gb=80,
    bandwidth_tbs=1.0, peak_tflops=100, compute_efficiency=0.5, bandwidth_efficiency=1.0,
    prompt_tokens=1000, output_tokens=100, concurrency=8,
)  # fmt: skip


def composed(a: float, b: float) -> float:
    """A step's time from its two ceilings, (a⁴ + b⁴)^¼ (efficiency.STEP_P = 4)."""
    return (a**4 + b**4) ** 0.25


# prefill: 2·10e9·1000 + 2·10·1000²·8·128 = 2.002048e13 FLOPs at 50 TFLOP/s = 400.41 ms,
# with the 20 GB weight read at 1 TB/s (20 ms): (400.41⁴ + 20⁴)^¼ = 400.41 ms
PREFILL_MS = composed((2e13 + 2 * 10 * 1000**2 * 8 * 128) / 5e13 * 1e3, 20.0)
# decode: (20e9 + 8 × 1050 × 40,960 B) / 1 TB/s = 20.344 ms; compute 8 × (2e10 + 4·10·1050
# ·8·128) FLOPs at 50 TFLOP/s = 3.207 ms; (20.344⁴ + 3.207⁴)^¼ = 20.347 ms
ITL_MS = composed(
    (20e9 + 8 * 1050 * 40960) / 1e12 * 1e3, 8 * (2e10 + 4 * 10 * 1050 * 8 * 128) / 5e13 * 1e3
)


def test_both_is_the_default() -> None:
    base, both = serving_estimate(**SMALL), serving_estimate(**SMALL, pool="both")
    for key in ("tokens_per_s_total", "request_s", "itl_loaded_ms", "ttft_loaded_ms"):
        assert float(both[key]) == float(base[key])
    assert float(base["request_s"]) == pytest.approx((8 * PREFILL_MS + 100 * ITL_MS) / 1e3)


def test_prefill_pool_by_hand() -> None:
    out = serving_estimate(**SMALL, pool="prefill", gpu_cost_per_hour=3.6)
    assert float(out["prefill_ms"]) == pytest.approx(PREFILL_MS)
    # prompts back to back: 1000 tokens per 400.41 ms = 2,497.4 tokens/s
    assert float(out["tokens_per_s_total"]) == pytest.approx(1000 / PREFILL_MS * 1e3)
    assert float(out["ttft_loaded_ms"]) == pytest.approx(PREFILL_MS)
    assert float(out["request_s"]) == pytest.approx(PREFILL_MS / 1e3)
    # 3.6 USD/h = 0.001 USD/s over 2,497.4 tokens/s, per million (prompt) tokens
    assert float(out["cost_per_m_output_tokens"]) == pytest.approx(
        0.001 / (1000 / PREFILL_MS * 1e3) * 1e6
    )


def test_decode_pool_by_hand() -> None:
    out = serving_estimate(**SMALL, pool="decode")
    assert float(out["itl_ms"]) == pytest.approx(ITL_MS)
    # only decode steps: 8 tokens per 20.344 ms step = 393.2 tokens/s; ITL the bare step
    assert float(out["tokens_per_s_total"]) == pytest.approx(8 / ITL_MS * 1e3)
    assert float(out["itl_loaded_ms"]) == pytest.approx(ITL_MS)
    assert float(out["request_s"]) == pytest.approx(100 * ITL_MS / 1e3)
    # the per-pool outputs are the same whichever pool is chosen
    both = serving_estimate(**SMALL)
    assert float(out["decode_tokens_per_s_per_gpu"]) == float(both["decode_tokens_per_s_per_gpu"])


def test_pools_swept_in_one_call() -> None:
    out = serving_estimate(**SMALL, pool=["both", "prefill", "decode"])
    total = out["tokens_per_s_total"]
    assert total[1] == pytest.approx(1000 / PREFILL_MS * 1e3)
    assert total[2] == pytest.approx(8 / ITL_MS * 1e3)
    assert total[0] == pytest.approx(8 * 100 / (8 * PREFILL_MS + 100 * ITL_MS) * 1e3)


INPUTS = {
    "model": "llama-3.1-8b",
    "tp": 1,
    "prompt_tokens": 2000,
    "output_tokens": 500,
    "concurrency": 16,
    "pool": "decode",
}


@pytest.mark.django_db
def test_the_same_through_api_page_and_cli(client, published) -> None:
    api, cli, text = api_cli_page(client, INPUTS, "h100-sxm")
    assert api["tokens_per_s_total"] == pytest.approx(cli["tokens_per_s_total"])
    assert cli["tokens_per_s_total"] == pytest.approx(16 / cli["itl_ms"] * 1e3)
    assert "A decode replica emits" in text and "pool = decode" in text
    bad = client.post(
        "/api/v1/calculators/serving_estimate/runs/",
        json.dumps({"inputs": {**INPUTS, "pool": "mixed"}, "preset": "h100-sxm"}),
        content_type="application/json",
    )
    assert bad.status_code == 400 and bad.json()["error"]["fields"]["pool"]
