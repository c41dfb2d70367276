"""MLA's KV cache under tensor parallelism (issue 32): the latent is not sharded over TP
ranks, so each rank holds the whole cache; attention data parallelism is the remedy.
Figures worked out by hand."""

from __future__ import annotations

import pytest

from calculators.compute import run_inline
from calculators.kernels import serving_estimate

# 10 B parameters in FP8 (10 GB) over tp = 4: 2.5 GB per GPU; 40 GB × 0.9 = 36 GB usable,
# 33.5 GB left per GPU, a 134 GB pool over the 4 GPUs. MLA cache per token: 10 layers ×
# (512 + 64) × 2 B = 11,520 bytes.
MLA = dict(
    params_b=10, layers=10, heads=16, kv_heads=16, head_dim=128, kv_lora_rank=512,
    rope_head_dim=64, device_memory_gb=40, bandwidth_tbs=1.0, peak_tflops=1000,
    weight_precision="fp8", kv_precision="bf16", tp=4, prompt_tokens=1000,
    output_tokens=200, concurrency=100, bandwidth_efficiency=1.0, compute_efficiency=0.5,
)  # fmt: skip


def test_mla_under_tp_holds_one_copy_per_rank() -> None:
    out = serving_estimate(**MLA)
    assert float(out["kv_bytes_per_token"]) == 11_520
    assert float(out["kv_pool_gb"]) == pytest.approx(134.0)
    assert float(out["kv_copies"]) == 4
    # 134e9 / (11,520 × 4) = 2,907,986.1 tokens, not the 11,631,944 the summed pool gives
    assert int(out["kv_capacity_tokens"]) == 2_907_986
    # paged: ⌊2,907,986 / (1,000 + 200/2)⌋ = ⌊2,643.6⌋ = 2,643 requests
    assert int(out["max_concurrency"]) == 2_643
    # each rank reads the whole latent: 100 × 1,100 × 11,520 B = 1.2672 GB per rank, over
    # 1 TB/s = 1.2672 ms, beside 2.5 GB of its own weights = 2.5 ms: 3.7672 ms
    assert float(out["memory_ms"]) == pytest.approx(2.5 + 1.2672)


def test_without_mla_the_cache_shards_over_tp() -> None:
    gqa = {k: v for k, v in MLA.items() if k not in ("kv_lora_rank", "rope_head_dim")}
    out = serving_estimate(**{**gqa, "kv_bytes_per_token": 11_520})
    assert float(out["kv_copies"]) == 1
    assert int(out["kv_capacity_tokens"]) == 11_631_944  # ⌊134e9 / 11,520⌋
    # the KV read spreads over the 4 ranks: 1.2672 GB / 4 GB/s = 0.3168 ms
    assert float(out["memory_ms"]) == pytest.approx(2.5 + 0.3168)


def test_dp_attention_gives_each_rank_its_own_sequences() -> None:
    # An MoE model of 10 B with 2 B active, 16 experts, top-2: experts (10 − 2) × 16 / 14
    # = 9.1429 B, dense 0.8571 B. With dp_attention (ep = 1): dense 0.8571 GB on
    # every GPU plus 9.1429 / 4 = 2.2857 GB of experts = 3.1429 GB per GPU; pool
    # (36 − 3.1429) × 4 = 131.43 GB, one copy: ⌊131.43e9 / 11,520⌋ tokens.
    moe = {**MLA, "active_params_b": 2, "experts": 16, "experts_per_token": 2}
    dp = serving_estimate(**moe, dp_attention=True)
    per_gpu = (10 - 8 * 16 / 14) + 8 * 16 / 14 / 4
    assert float(dp["weights_gb_per_gpu"]) == pytest.approx(per_gpu)
    assert per_gpu == pytest.approx(3.1429, abs=1e-4)
    assert float(dp["kv_copies"]) == 1
    pool = (36 - per_gpu) * 4
    assert int(dp["kv_capacity_tokens"]) == int(pool * 1e9 // 11_520)
    tp_only = serving_estimate(**moe)
    assert float(tp_only["kv_copies"]) == 4
    assert int(tp_only["kv_capacity_tokens"]) == int(134e9 // (11_520 * 4))


def test_deepseek_v3_on_eight_h200_through_the_form() -> None:
    """DeepSeek-V3 (671 B, FP8) on 8 × H200 at tp = 8: 83.9 GB of weights per GPU, about
    38 GB of usable memory left on each; the 70,272-byte MLA latent is held by all eight
    ranks, so the replica holds about 38e9 / 70,272 ≈ 0.54 M tokens, not 4.3 M. With
    dp_attention it holds eight times as many less the replicated dense weights."""
    common = {
        "model": "deepseek-v3", "weight_precision": "fp8", "kv_precision": "bf16", "tp": 8,
        "prompt_tokens": 2000, "output_tokens": 500, "concurrency": 64,
    }  # fmt: skip
    tp = run_inline("serving_estimate", common, preset="h200")["outputs"]
    assert tp["kv_copies"] == 8 and tp["kv_bytes_per_token"] == 70_272
    left_per_gpu = tp["kv_pool_gb"] / 8
    assert tp["kv_capacity_tokens"] == int(left_per_gpu * 1e9 // 70_272)
    dp = run_inline("serving_estimate", {**common, "dp_attention": True}, preset="h200")
    dp_out = dp["outputs"]
    assert dp_out["kv_copies"] == 1
    assert dp_out["kv_capacity_tokens"] == int(dp_out["kv_pool_gb"] * 1e9 // 70_272)
    assert dp_out["max_concurrency"] > 4 * tp["max_concurrency"]
    assert any("copies = 8" in line for line in run_inline(
        "serving_estimate", common, preset="h200")["steps"][0]["lines"])  # fmt: skip
