"""A step composed from its memory and compute times as measured kernels behave (issue 32):
(m^p + c^p)^(1/p) with p = 4 fitted on the calibration set, not max(m, c). Each figure
below is worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from calculators.kernels import decode_bound, prefill, serving_estimate
from calculators.kernels.efficiency import STEP_P, compose_step

from .surfaces import api_cli_page


def test_the_fitted_exponent_is_four() -> None:
    assert STEP_P == 4.0


def test_far_from_the_crossover_it_is_the_max_within_a_third_of_a_percent() -> None:
    # smaller ≤ larger / 3: (1 + (1/3)⁴)^¼ = (82/81)^¼ = 1.003072, the stated 0.31%
    assert float(compose_step(3.0, 1.0)) == pytest.approx(3 * (82 / 81) ** 0.25, rel=1e-15)
    assert float(compose_step(3.0, 1.0)) / 3.0 == pytest.approx(1.003072, abs=1e-6)
    larger = np.array([3.0, 10.0, 100.0, 1.0])
    smaller = np.array([1.0, 1.0, 1.0, 0.0])
    ratio = compose_step(larger, smaller) / larger
    assert np.all(ratio >= 1.0) and np.all(ratio <= 1.0031)
    # a tenth: 10 × (1 + 10⁻⁴)^¼ = 10 × 1.000025
    assert float(compose_step(1.0, 10.0)) == pytest.approx(10.00025, abs=1e-6)


def test_at_the_crossover_it_is_two_to_the_quarter_above_either() -> None:
    assert float(compose_step(5.0, 5.0)) == pytest.approx(5.0 * 2**0.25, rel=1e-15)
    assert 2**0.25 == pytest.approx(1.189207, abs=1e-6)


def test_other_exponents_and_the_edges() -> None:
    assert float(compose_step(3.0, 4.0, 2)) == pytest.approx(5.0)  # p = 2: hypot
    assert float(compose_step(3.0, 4.0, 1)) == pytest.approx(7.0)  # p = 1: the sum
    assert float(compose_step(3.0, 4.0, np.inf)) == 4.0  # p = ∞: the bare max
    assert float(compose_step(3.0, 3.0, np.inf)) == 3.0
    assert float(compose_step(0.0, 0.0)) == 0.0
    assert float(compose_step(np.inf, 1.0)) == np.inf
    # p swept: one value per column, the fast path's answer at 4
    swept = compose_step(3.0, 4.0, np.array([1.0, 2.0, 4.0]))
    assert swept.tolist() == pytest.approx([7.0, 5.0, (81 + 256) ** 0.25])
    # broadcasting either way, and in place without touching the inputs
    m = np.array([1.0, 2.0])
    out = compose_step(m, 2.0)
    assert out.tolist() == pytest.approx([(1 + 16) ** 0.25, 2 * 2**0.25])
    assert m.tolist() == [1.0, 2.0]
    assert compose_step(2.0, m).tolist() == pytest.approx(out.tolist())


def test_decode_step_at_and_away_from_the_crossover() -> None:
    # 10 B params × 2 B over 2 TB/s = 10 ms; compute 2 × 10 × batch / 200 TFLOP/s =
    # batch / 10 ms: at batch 100 both are 10 ms and the step is 10 × 2^¼ = 11.892 ms;
    # at batch 10 compute is 1 ms and the step 10 × (1 + 10⁻⁴)^¼ = 10.00025 ms.
    out = decode_bound(
        params_b=10, bytes_per_param=2, bandwidth_tbs=2, peak_tflops=200,
        batch_size=np.array([10, 100]),
    )  # fmt: skip
    assert out["memory_ms_per_step"].tolist() == pytest.approx([10.0, 10.0])
    assert out["compute_ms_per_step"].tolist() == pytest.approx([1.0, 10.0])
    assert out["ms_per_token"].tolist() == pytest.approx([10.00025, 11.892071], abs=1e-6)
    assert out["tokens_per_s_total"][1] == pytest.approx(100 * 1000 / (10 * 2**0.25))
    assert out["compute_bound_batch"][0] == pytest.approx(100.0)  # still where they meet
    bare = decode_bound(
        params_b=10, bytes_per_param=2, bandwidth_tbs=2, peak_tflops=200, batch_size=100,
        step_p=np.inf,
    )  # fmt: skip
    assert float(bare["ms_per_token"]) == 10.0


def test_prefill_at_the_crossover() -> None:
    # 10 B params × 2 B over 2 TB/s = 10 ms to read; 100 tokens: 2·10e9·100 = 2e12 FLOPs
    # plus causal attention 4·1·100²·1·1 / 2 = 2e4, at 200 TFLOP/s = 10.0000001 ms; the
    # TTFT is (c⁴ + 10⁴)^¼ = 11.892 ms, where the bare max said 10.
    out = prefill(
        params_b=10, layers=1, heads=1, head_dim=1, prompt_tokens=100, peak_tflops=200,
        compute_efficiency=1.0, bandwidth_tbs=2, bytes_per_param=2,
    )  # fmt: skip
    compute = (2e12 + 2e4) / 2e14 * 1e3
    assert float(out["compute_ms"]) == pytest.approx(compute, rel=1e-15)
    assert float(out["ttft_ms"]) == pytest.approx((compute**4 + 10.0**4) ** 0.25, rel=1e-15)
    assert float(out["ttft_ms"]) == pytest.approx(11.892071, abs=1e-6)
    # without a bandwidth there is one ceiling and nothing to compose
    alone = prefill(
        params_b=10, layers=1, heads=1, head_dim=1, prompt_tokens=100, peak_tflops=200,
        compute_efficiency=1.0,
    )  # fmt: skip
    assert float(alone["ttft_ms"]) == pytest.approx(compute)


CROSS = dict(
    params_b=10, layers=1, heads=1, kv_heads=1, head_dim=1, device_memory_gb=80,
    bandwidth_tbs=1.0, peak_tflops=40, compute_efficiency=0.5, bandwidth_efficiency=1.0,
    prompt_tokens=1, output_tokens=2,
)  # fmt: skip


def test_serving_decode_step_at_the_crossover() -> None:
    # 20 requests: weights 20 GB at 1 TB/s = 20 ms (their KV, 20 × 2 tokens × 4 B, adds
    # 1.6e-7 ms); compute 20 × 2e10 FLOPs (attention adds 4·2 per token) at 40 × 0.5 =
    # 20 TFLOP/s = 20 ms: the crossover, where the step is 20 × 2^¼ = 23.78 ms.
    out = serving_estimate(**{**CROSS, "concurrency": 20})
    memory, compute = float(out["memory_ms"]), float(out["compute_ms"])
    assert memory == pytest.approx(20.0, rel=1e-6) and compute == pytest.approx(20.0, rel=1e-6)
    assert float(out["itl_ms"]) == pytest.approx((memory**4 + compute**4) ** 0.25, rel=1e-15)
    assert float(out["itl_ms"]) / 20.0 == pytest.approx(2**0.25, rel=1e-6)
    bare = serving_estimate(**{**CROSS, "concurrency": 20}, step_p=np.inf)
    assert float(bare["itl_ms"]) == pytest.approx(max(memory, compute), rel=1e-15)


@pytest.mark.django_db
def test_step_p_through_api_cli_and_page(client, published) -> None:
    inputs = {
        "model": "llama-2-7b", "tp": 1, "prompt_tokens": 128, "output_tokens": 128,
        "concurrency": 384, "step_p": 2,
    }  # fmt: skip
    api, cli, html = api_cli_page(client, inputs, "a100-80gb")
    assert api["itl_ms"] == pytest.approx(cli["itl_ms"])
    # p = 2 composes the two as their hypotenuse
    assert cli["itl_ms"] == pytest.approx(
        float(np.hypot(cli["memory_ms"], cli["compute_ms"]) + cli["tp_comm_ms"] + cli["a2a_ms"])
    )
    assert "Step composition exponent p" in html and "p = 2" in html
