"""prefill, serving_estimate and paged_kv_capacity against figures derived by hand.

Inputs are deliberately non-trivial (batch > 1, efficiencies < 1, bytes != 1 and != 2,
tp > 1) so that a dropped or swapped factor changes the answer. The expected numbers
are written out as arithmetic in each test, not taken from the kernel.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pytest import approx

from calculators.compute import run_inline
from calculators.errors import CalculatorInputError
from calculators.kernels import paged_kv_capacity, prefill, serving_estimate

# ---------------------------------------------------------------- prefill

PREFILL = dict(
    params_b=8,
    embedding_params_b=0.5,
    layers=32,
    heads=32,
    head_dim=128,
    prompt_tokens=4096,
    batch=2,
    peak_tflops=1000,
    compute_efficiency=0.5,
    bandwidth_tbs=2.0,
    bytes_per_param=1.0,
)


def test_prefill_causal_by_hand():
    """P = 8 − 0.5 = 7.5 billion (the embedding is a lookup).
    linear = 2 × 7.5e9 × 4096 × 2 = 1.2288e14.
    full attention = 4 × 32 × 4096² × 32 × 128 × 2 = 2^2·2^5·2^24·2^5·2^7·2 = 2^44;
    causal halves it: 2^43 = 8.796093022e12.
    total = 1.2288e14 + 2^43 = 1.31676093e14; share = 2^43 / total = 0.0668010.
    compute = total / (1000e12 × 0.5) = 263.352 ms; weight read = 8e9 × 1 B / 2e12 B/s
    = 4 ms; TTFT = 263.352 ms, compute-bound."""
    out = prefill(**PREFILL)
    assert out["linear_flops"] == approx(1.2288e14)
    assert out["attention_flops"] == approx(2.0**43)
    assert out["total_flops"] == approx(1.2288e14 + 2.0**43)
    assert out["attention_share"] == approx(2.0**43 / (1.2288e14 + 2.0**43))
    assert out["ttft_ms"] == approx((1.2288e14 + 2.0**43) / 5e14 * 1e3)
    assert out["memory_ms"] == approx(4.0)
    assert out["bound"] == "compute"


def test_prefill_full_mask_doubles_only_the_attention_term():
    """full: attention = 2^44 = 1.759218604e13, total = 1.2288e14 + 2^44 = 1.40472186e14,
    TTFT = 280.944 ms."""
    out = prefill(**{**PREFILL, "mask": "full"})
    assert out["attention_flops"] == approx(2.0**44)
    assert out["ttft_ms"] == approx((1.2288e14 + 2.0**44) / 5e14 * 1e3)


def test_short_prompt_is_memory_bound():
    """N = 16, batch 2: linear = 2 × 7.5e9 × 16 × 2 = 4.8e11, attention causal = 2 × 32 ×
    256 × 32 × 128 × 2 = 1.34e8; compute = 4.80134e11 / 5e14 = 0.960 ms < 4 ms weight
    read, so TTFT = (4⁴ + 0.960⁴)^¼ = 4.0033 ms, memory-bound."""
    out = prefill(**{**PREFILL, "prompt_tokens": 16})
    compute = (4.8e11 + 2 * 32 * 256 * 32 * 128 * 2) / 5e14 * 1e3
    assert out["ttft_ms"] == approx((4.0**4 + compute**4) ** 0.25)
    assert out["ttft_ms"] == approx(4.0033, abs=1e-4)
    assert out["compute_ms"] == approx(compute)
    assert out["bound"] == "memory"


def test_prefill_without_bandwidth_leaves_out_the_bound():
    kw = {k: v for k, v in PREFILL.items() if k != "bandwidth_tbs"}
    out = prefill(**kw)
    assert "bound" not in out and "memory_ms" not in out
    assert out["ttft_ms"] == approx(263.352186, rel=1e-8)


# ---------------------------------------------------------------- serving_estimate

SERVING = dict(
    params_b=10,
    active_params_b=10,
    layers=10,
    heads=16,
    kv_heads=4,
    head_dim=128,
    weight_precision="fp8",
    kv_precision="bf16",
    device_memory_gb=40,
    gpu_memory_utilization=0.9,
    bandwidth_tbs=2.0,
    peak_tflops=400,
    tp=2,
    prompt_tokens=1000,
    output_tokens=200,
    concurrency=8,
    bandwidth_efficiency=0.8,
    compute_efficiency=0.5,
    gpu_cost_per_hour=3.0,
)


def test_serving_memory_plan_by_hand():
    """weights = 10e9 × 1 B (fp8) = 10 GB, 5 GB per GPU over tp = 2.
    usable per GPU = 40 × 0.9 = 36 GB; KV pool = (36 − 5) × 2 = 62 GB.
    KV bytes/token = 2 × 10 × 4 × 128 × 2 B (bf16) = 20,480.
    capacity = ⌊62e9 / 20,480⌋ = ⌊3,027,343.75⌋ = 3,027,343 tokens.
    max_concurrency (paged: each request holds prompt + output/2 on average) =
    ⌊3,027,343 / (1000 + 200/2)⌋ = ⌊2752.13⌋ = 2752."""
    out = serving_estimate(**SERVING)
    assert out["weights_gb_per_gpu"] == approx(5.0)
    assert out["kv_pool_gb"] == approx(62.0)
    assert out["kv_bytes_per_token"] == approx(20480)
    assert out["kv_capacity_tokens"] == 3_027_343
    assert out["max_concurrency"] == 2752
    assert bool(out["fits"]) and out["fit_note"] == "fits"


def test_serving_latency_and_throughput_by_hand():
    """Mean decode context = 1000 + 200/2 = 1100 tokens.
    step bytes = 10e9 + 8 × 1100 × 20,480 = 1.0180224e10; memory = 1.0180224e10 /
    (2 × 2e12 × 0.8) = 3.18132 ms.
    step FLOPs = 8 × (2 × 10e9 + 4 × 10 × 1100 × 16 × 128) = 8 × 2.0090112e10
    = 1.60720896e11; compute = 1.60720896e11 / (2 × 400e12 × 0.5) = 0.401802 ms.
    ITL = (3.18132⁴ + 0.401802⁴)^¼ = 3.18152 ms (memory-bound: the composition adds
    0.006%); per user 1000 / 3.18152 = 314.31 tokens/s.
    prefill FLOPs = 2 × 10e9 × 1000 + 2 × 10 × 1000² × 16 × 128 = 2.004096e13, over
    4e14 FLOP/s = 50.1024 ms, composed with the 3.125 ms weight read: (50.1024⁴ +
    3.125⁴)^¼ = 50.1026 ms.
    request = 8 × 50.1026 + 200 × 3.18152 = 1037.125 ms; total = 8 × 200 / 1.037125 s
    = 1542.73 tokens/s; cost = 3 × 2 / 3600 / 1542.73 × 1e6 = 1.0803 USD per 10^6."""
    out = serving_estimate(**SERVING)
    memory = 1.0180224e10 / 3.2e12 * 1e3
    compute = 1.60720896e11 / 4e14 * 1e3
    itl = (memory**4 + compute**4) ** 0.25
    assert itl == approx(3.18152, abs=1e-5)
    assert out["memory_ms"] == approx(memory)
    assert out["compute_ms"] == approx(compute)
    assert out["itl_ms"] == approx(itl) and out["decode_bound"] == "memory"
    assert out["tokens_per_s_per_user"] == approx(1000 / itl)
    prefill_ms = ((2.004096e13 / 4e14 * 1e3) ** 4 + (10e9 / 3.2e12 * 1e3) ** 4) ** 0.25
    assert prefill_ms == approx(50.1026, abs=1e-4)
    assert out["prefill_ms"] == approx(prefill_ms)
    request_ms = 8 * prefill_ms + 200 * itl
    assert out["request_s"] == approx(request_ms / 1e3)
    assert out["tokens_per_s_total"] == approx(8 * 200 / request_ms * 1e3)
    assert out["cost_per_m_output_tokens"] == approx(6 / 3600 / (1600 / request_ms * 1e3) * 1e6)


def test_serving_says_why_it_does_not_fit():
    """bf16 weights of 70 GB on one 80 GB GPU at 0.9: 70 ≤ 72, KV pool 2 GB holds
    ⌊2e9 / 20,480⌋ = 97,656 tokens = ⌊97,656 / (1000 + 200/2)⌋ = 88 requests at their
    mean resident length; 100 do not fit. On a 40 GB GPU
    the weights (70 > 36) do not fit at all."""
    base = {**SERVING, "params_b": 35, "active_params_b": 35, "weight_precision": "bf16", "tp": 1}
    kv_full = serving_estimate(**{**base, "device_memory_gb": 80, "concurrency": 100})
    assert kv_full["max_concurrency"] == 88 and not kv_full["fits"]
    assert kv_full["fit_note"] == "KV cache too small for this concurrency"
    no_room = serving_estimate(**{**base, "device_memory_gb": 40})
    assert no_room["max_concurrency"] == 0 and no_room["fit_note"] == "weights do not fit"


def test_llama_70b_kv_bytes_per_token_reference():
    """Contract reference: Llama-3.1-70B (80 layers, 8 KV heads, head 128) in BF16 caches
    2 × 80 × 8 × 128 × 2 = 327,680 bytes per token; DeepSeek-V3's MLA cache is given
    as an override, 61 × (512 + 64) × 2 = 70,272."""
    out = serving_estimate(**{**SERVING, "layers": 80, "kv_heads": 8, "heads": 64})
    assert out["kv_bytes_per_token"] == 327_680
    mla = serving_estimate(**{**SERVING, "kv_bytes_per_token": 61 * (512 + 64) * 2})
    assert mla["kv_bytes_per_token"] == 70_272


def test_moe_active_params_lower_compute_not_weight_reads():
    """Halving the active parameters halves the 2·active FLOPs but every step still reads
    all resident weights, so the memory time is unchanged, and a memory-bound ITL with
    it but for the composition's share of the compute term: compute is 1/8 of memory
    here, so (1 + (1/8)⁴)^¼ − 1 = 0.006% at most."""
    dense = serving_estimate(**SERVING)
    moe = serving_estimate(**{**SERVING, "active_params_b": 5})
    assert moe["memory_ms"] == dense["memory_ms"]
    assert moe["itl_ms"] == approx(dense["itl_ms"], rel=1e-4)
    assert moe["compute_ms"] < dense["compute_ms"]


mem = st.floats(min_value=1, max_value=400, allow_nan=False)


@settings(max_examples=80, deadline=None)
@given(mem, mem, st.sampled_from(["bf16", "fp8", "fp4"]), st.integers(1, 8))
def test_more_memory_never_lowers_max_concurrency(a, b, precision, tp):
    lo, hi = sorted((a, b))
    kw = {**SERVING, "weight_precision": precision, "tp": tp}
    out = serving_estimate(**{**kw, "device_memory_gb": np.array([lo, hi])})
    assert out["max_concurrency"][1] >= out["max_concurrency"][0]


def test_serving_broadcast_equals_a_loop():
    conc = np.array([1, 3, 64, 5000])
    prompt = np.array([100, 2000, 8000, 30000])
    vec = serving_estimate(**{**SERVING, "concurrency": conc, "prompt_tokens": prompt})
    for i in range(4):
        one = serving_estimate(**{**SERVING, "concurrency": conc[i], "prompt_tokens": prompt[i]})
        for name, value in one.items():
            assert vec[name][i] == value or vec[name][i] == approx(value, rel=1e-12), name


def test_serving_check_names_the_field():
    with pytest.raises(CalculatorInputError) as exc:
        run_inline("serving_estimate", {**SERVING, "kv_heads": 32})
    assert "kv_heads" in exc.value.fields
    with pytest.raises(CalculatorInputError) as exc:
        run_inline("serving_estimate", {**SERVING, "weight_precision": "fp3"})
    assert "weight_precision" in exc.value.fields


# ---------------------------------------------------------------- paged_kv_capacity

PAGED = dict(
    device_memory_gb=80,
    gpu_memory_utilization=0.85,
    weights_gb=16,
    reserve_gb=4,
    kv_bytes_per_token=131072,
    block_size=32,
    mean_tokens=1000,
    max_tokens=4096,
)


def test_paged_capacity_by_hand():
    """pool = 80 × 0.85 − 16 − 4 = 48 GB; a block holds 32 × 131,072 = 4,194,304 bytes,
    so blocks = ⌊48e9 / 4,194,304⌋ = ⌊11,444.09⌋ = 11,444 and tokens = 366,208.
    A 1000-token sequence holds ⌈1000/32⌉ = 32 blocks: ⌊11,444 / 32⌋ = 357 sequences,
    wasting (1024 − 1000)/1024 = 2.34375 %. Reserving 4096 tokens each:
    ⌊48e9 / (4096 × 131,072)⌋ = ⌊89.41⌋ = 89 sequences, wasting 3096/4096 = 75.59 %."""
    out = paged_kv_capacity(**PAGED)
    assert out["kv_pool_gb"] == approx(48.0)
    assert out["blocks"] == 11_444
    assert out["tokens_capacity"] == 366_208
    assert out["blocks_per_seq"] == 32
    assert out["max_seqs_paged"] == 357
    assert out["max_seqs_reserved"] == 89
    assert out["waste_fraction_paged"] == approx(24 / 1024)
    assert out["waste_fraction_reserved"] == approx(3096 / 4096)


def test_paged_weights_larger_than_the_budget_leave_no_pool():
    out = paged_kv_capacity(**{**PAGED, "weights_gb": 70})
    assert out["kv_pool_gb"] == 0 and out["blocks"] == 0 and out["max_seqs_paged"] == 0


def test_paged_check_mean_above_max():
    with pytest.raises(CalculatorInputError) as exc:
        run_inline("paged_kv_capacity", {**PAGED, "mean_tokens": 5000})
    assert "mean_tokens" in exc.value.fields


def test_deepseek_v3_mla_cache_reference():
    """Contract reference: DeepSeek-V3 caches 61 × (512 + 64) × 2 = 70,272 bytes per token
    in BF16 (MLA: one latent and one RoPE key per layer). A 40 GB pool then holds
    ⌊40e9 / (16 × 70,272)⌋ = ⌊35,576.04⌋ = 35,576 blocks of 16 tokens."""
    mla = dict(layers=61, kv_lora_rank=512, rope_head_dim=64)
    out = serving_estimate(**{**SERVING, **mla, "kv_precision": "bf16"})
    assert out["kv_bytes_per_token"] == 70_272
    paged = paged_kv_capacity(
        device_memory_gb=50,
        gpu_memory_utilization=0.8,
        weights_gb=0,
        block_size=16,
        mean_tokens=100,
        max_tokens=100,
        **mla,
    )
    assert paged["kv_bytes_per_token"] == 70_272 and paged["blocks"] == 35_576
    fp8 = paged_kv_capacity(
        device_memory_gb=50,
        weights_gb=0,
        mean_tokens=1,
        max_tokens=1,
        kv_precision="fp8",
        layers=80,
        kv_heads=8,
        head_dim=128,
    )
    assert fp8["kv_bytes_per_token"] == 163_840  # 2 × 80 × 8 × 128 × 1 byte


def test_paged_needs_a_kv_size():
    with pytest.raises(CalculatorInputError) as exc:
        run_inline(
            "paged_kv_capacity", {k: v for k, v in PAGED.items() if k != "kv_bytes_per_token"}
        )
    assert "kv_bytes_per_token" in exc.value.fields
    with pytest.raises(CalculatorInputError) as exc:
        run_inline("serving_estimate", {**SERVING, "kv_lora_rank": 512})
    assert "rope_head_dim" in exc.value.fields


def test_model_fills_the_architecture():
    """model=llama-3.1-70b fills 80 layers, 64 heads, 8 KV heads of 128: the same result as
    typing them. For prefill, llama-3.1-8b's embedding table is vocab × hidden =
    128,256 × 4,096 = 525,336,576 parameters, so P = 8.03e9 − 525,336,576 = 7.504663e9."""
    explicit = {**SERVING, "params_b": 70.6, "active_params_b": 70.6, "layers": 80}
    explicit.update(heads=64, kv_heads=8, head_dim=128, vocab=128_256, hidden=8_192)
    by_name = {k: v for k, v in explicit.items() if k not in ("params_b", "active_params_b")}
    for k in ("layers", "heads", "kv_heads", "head_dim", "vocab", "hidden"):
        by_name.pop(k)
    a = run_inline("serving_estimate", explicit)["outputs"]
    b = run_inline("serving_estimate", {**by_name, "model": "llama-3.1-70b"})["outputs"]
    assert a == b
    out = run_inline(
        "prefill",
        {"model": "llama-3.1-8b", "prompt_tokens": 1000, "batch": 3, "peak_tflops": 500},
    )["outputs"]
    assert out["linear_params_b"] == approx((8.03e9 - 128_256 * 4096) / 1e9)
    assert out["linear_flops"] == approx(2 * (8.03e9 - 128_256 * 4096) * 1000 * 3)


def test_prefill_with_a_moe_model_counts_active_parameters():
    """DeepSeek-V3: 37B active of 671B, embedding 129,280 × 7,168; the linear FLOPs use
    the active count, 2 × (37e9 − 926,679,040) × 512 tokens."""
    out = run_inline(
        "prefill", {"model": "deepseek-v3", "prompt_tokens": 512, "peak_tflops": 1000}
    )["outputs"]
    assert out["linear_flops"] == approx(2 * (37e9 - 129_280 * 7168) * 512)
