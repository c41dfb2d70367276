"""Labels reviewers asked for, and weight_memory and serving_estimate counting the same
weights (issue 32)."""

from __future__ import annotations

import pytest

from calculators.compute import run_inline
from calculators.specs import SPECS


def test_labels_name_what_the_value_is() -> None:
    # a typed FP32 non-tensor peak is no "dense tensor" figure
    assert SPECS["roofline"].input("peak_tflops").label == "Peak compute throughput"
    assert SPECS["prefill"].input("embedding_params_b").label == (
        "Parameters not applied per token (embedding table and the like)"
    )
    # the preset fills the usable figure (84.52 GB on an H100 SXM), so it is labelled so
    memory = SPECS["serving_estimate"].input("device_memory_gb")
    assert memory.label == "Usable memory per GPU"
    assert SPECS["paged_kv_capacity"].input("device_memory_gb").label == "Device memory per GPU"


def test_weight_memory_and_serving_estimate_agree_under_fp8() -> None:
    # Llama 3.1 70B in FP8: embedding and lm_head, 128,256 × 8,192 = 1.0507e9 each, stay
    # BF16: (70.6e9 − 2.1014e9) × 1 B + 2.1014e9 × 2 B = 72.70 GB in both calculators.
    weights = run_inline("weight_memory", {"model": "llama-3.1-70b", "bytes_per_param": 1})
    serving = run_inline(
        "serving_estimate",
        {"model": "llama-3.1-70b", "weight_precision": "fp8", "tp": 1, "prompt_tokens": 1000,
         "output_tokens": 100, "concurrency": 1},
        preset="h100-sxm",
    )  # fmt: skip
    table = 2 * 128_256 * 8_192
    expected = ((70.6e9 - table) * 1 + table * 2) / 1e9
    assert weights["outputs"]["weights_gb"] == pytest.approx(expected)
    assert serving["outputs"]["weights_gb_per_gpu"] == pytest.approx(expected)
    assert expected == pytest.approx(72.70, abs=0.01)
    assert serving["outputs"]["embedding_gb"] == pytest.approx(table * 2 / 1e9)
    assert any("stay BF16" in line for line in serving["steps"][0]["lines"])
    # in BF16 nothing changes: every weight is 2 bytes either way
    bf16 = run_inline(
        "serving_estimate",
        {"model": "llama-3.1-70b", "weight_precision": "bf16", "tp": 2, "prompt_tokens": 1000,
         "output_tokens": 100, "concurrency": 1},
        preset="h200",
    )  # fmt: skip
    assert bf16["outputs"]["weights_gb_per_gpu"] == pytest.approx(70.6 * 2 / 2)
