"""Rules of the kernels that the figure tests left unstated, found by mutation testing
(docs/mutation.md, "Kernels"): an output no test read, a branch no input reached, a
boundary, a unit constant. Each expected figure is worked by hand in the docstring from
the formula in the kernel's module docstring; ``close`` compares to 1 part in 10^12, so
a unit written 1e9 + 1 instead of 1e9 is seen, and inputs are distinct numbers other
than 0 and 1. No database.
"""

import math

import numpy as np
import pytest

from calculators.kernels import (
    attention_intensity,
    break_even,
    collective_time,
    decode_bound,
    fallback_latency,
    kv_cache,
    local_fit,
    mig,
    moe_active,
    paged_kv_capacity,
    roofline,
    serving_estimate,
)
from calculators.kernels.mig_profiles import (
    GIB_IN_GB,
    MIG_PROFILES,
    all_mig_profile_names,
    mig_profile,
    mig_profile_names,
)

# Every link at its line rate, one ring: the figures below are worked by hand on it.
AT_LINE_RATE = dict(protocol_efficiency=1.0, net_efficiency=1.0, algorithm="ring")


def close(actual, expected):
    assert np.asarray(actual) == pytest.approx(expected, rel=1e-12)


# ---------------------------------------------------------------- attention_intensity


def test_attention_intensity_by_hand_with_the_roof():
    """N = 1024, d = 128, 2 bytes: FLOPs 4N²d + 3N² = 536,870,912 + 3,145,728 =
    540,016,640; bytes 4·2·N² + 4·2·N·d = 8,388,608 + 1,048,576 = 9,437,184, so the
    intensity is 57.22 FLOP/byte; FlashAttention reads only 4·2·N·d = 1,048,576 bytes:
    515 FLOP/byte. On 989 TFLOP/s over 3.35 TB/s the ridge is 295.2: the naive kernel is
    memory-bound, the fused one compute-bound."""
    out = attention_intensity(seq_len=1024, head_dim=128, peak_tflops=989, bandwidth_tbs=3.35)
    close(out["flops"], 540_016_640)
    close(out["bytes"], 9_437_184)
    close(out["intensity"], 540_016_640 / 9_437_184)
    close(out["flash_bytes"], 1_048_576)
    close(out["flash_intensity"], 515.0)
    close(out["ridge_intensity"], 989 / 3.35)
    assert out["bound"] == "memory" and out["flash_bound"] == "compute"


def test_attention_at_the_ridge_is_compute_bound_and_no_roof_without_both_figures():
    """At the ridge both roofs meet; the kernel calls it compute-bound. A peak of 515
    TFLOP/s over 1 TB/s puts the ridge on the fused kernel's 515 FLOP/byte, and one at
    the naive kernel's intensity on it. With only a peak there is no ridge to compare."""
    at = attention_intensity(seq_len=1024, head_dim=128, peak_tflops=515, bandwidth_tbs=1)
    assert at["flash_bound"] == "compute"
    ai = 540_016_640 / 9_437_184
    naive = attention_intensity(seq_len=1024, head_dim=128, peak_tflops=ai, bandwidth_tbs=1)
    assert naive["bound"] == "compute"
    peak_only = attention_intensity(seq_len=1024, head_dim=128, peak_tflops=989)
    assert "ridge_intensity" not in peak_only and "bound" not in peak_only


# ---------------------------------------------------------------- roofline


def test_roofline_times_from_flops_and_bytes():
    """2e12 FLOP and 4e10 bytes on 1000 TFLOP/s and 2 TB/s: intensity 50 against a
    ridge of 500, memory-bound, attainable 50 × 2 = 100 TFLOP/s; compute 2e12/1e15 =
    2 ms, memory 4e10/2e12 = 20 ms, so 20 ms."""
    out = roofline(peak_tflops=1000, bandwidth_tbs=2, flops=2e12, bytes=4e10)
    close(out["intensity"], 50.0)
    close(out["attainable_tflops"], 100.0)
    close(out["compute_s"], 0.002)
    close(out["memory_s"], 0.02)
    close(out["time_s"], 0.02)
    assert out["bound"] == "memory"


def test_roofline_takes_intensity_when_bytes_are_missing_and_says_what_it_needs():
    out = roofline(peak_tflops=1000, bandwidth_tbs=2, intensity=800, flops=2e12)
    assert "compute_s" not in out and out["bound"] == "compute"
    with pytest.raises(ValueError, match="^roofline needs intensity, or flops and bytes$"):
        roofline(peak_tflops=1000, bandwidth_tbs=2, flops=2e12)


# ---------------------------------------------------------------- collective_time


def test_all_to_all_inside_one_node_by_hand():
    """8 GPUs in one node: each sends 7/8 of a 1 GB buffer over 450 GB/s, 1.9444 ms; no
    inter-node link (nan), the intra-node link is the bottleneck."""
    out = collective_time(
        **AT_LINE_RATE,
        op="all_to_all",
        message_mb=1000,
        gpus=8,
        latency_us=0,
    )
    close(out["time_ms"], 7 / 8 * 1 / 450 * 1e3)
    assert math.isnan(out["inter_gbs"]) and out["nodes"] == 1
    assert out["bottleneck"] == "intra"
    two = collective_time(
        **AT_LINE_RATE,
        op="all_to_all",
        message_mb=1000,
        gpus=16,
        latency_us=0,
    )
    close(two["inter_gbs"], 8 * 400 / 8)  # 8 NICs × 400 Gb/s = 400 GB/s per node


def test_gather_pays_one_latency_per_ring_step():
    """All-gather over 8 GPUs in a node: 7 ring steps of 10 µs = 0.07 ms on top of
    7/8 × 0.45 GB / 450 GB/s = 0.875 ms. All-reduce takes 2 × 7 steps."""
    out = collective_time(
        **AT_LINE_RATE,
        op=["all_gather", "all_reduce"],
        message_mb=450,
        gpus=8,
        latency_us=10,
    )
    close(out["time_ms"], [0.875 + 0.07, 2 * 0.875 + 0.14])


def test_one_gpu_moves_nothing_and_reports_no_bandwidth():
    out = collective_time(
        **AT_LINE_RATE,
        op="all_reduce",
        message_mb=100,
        gpus=1,
        latency_us=0,
    )
    assert out["time_ms"] == 0 and out["algbw_gbs"] == 0


# ---------------------------------------------------------------- decode_bound


DENSE = dict(
    params_b=7,
    bytes_per_param=2,
    bandwidth_tbs=2,
    kv_gb_per_seq=0.1,
    bandwidth_efficiency=0.8,
    peak_tflops=100,
    compute_efficiency=0.5,
    context_tokens=2048,
)
MOE = dict(
    params_b=37,
    bytes_per_param=1,
    bandwidth_tbs=4.8,
    kv_gb_per_seq=0.01,
    experts=64,
    experts_per_token=6,
    expert_params_b=0.5,
    shared_params_b=5,
    peak_tflops=200,
    compute_efficiency=0.6,
    bandwidth_efficiency=0.7,
)


@pytest.mark.parametrize("case", [DENSE, MOE], ids=["dense", "moe"])
def test_the_compute_bound_batch_is_where_the_two_times_cross(case):
    """compute_bound_batch is found by bisection; at that batch the kernel's own step
    times meet (for MoE with the experts a batch of that size touches,
    E·(1 − (1 − k/E)^B)), just below it memory binds and just above compute does."""
    b = float(decode_bound(**case, batch_size=3)["compute_bound_batch"])
    assert 1 < b < 1e6
    at = decode_bound(**case, batch_size=b)
    assert float(at["compute_ms_per_step"]) == pytest.approx(
        float(at["memory_ms_per_step"]), rel=1e-6
    )
    below = decode_bound(**case, batch_size=b * 0.9)
    above = decode_bound(**case, batch_size=b * 1.1)
    assert below["bound"] == "memory" and above["bound"] == "compute"


def test_without_a_peak_decode_is_memory_bound_and_has_no_compute_figures():
    out = decode_bound(**{k: v for k, v in DENSE.items() if k != "peak_tflops"}, batch_size=3)
    assert out["bound"] == "memory" and "compute_ms_per_step" not in out
    swept = decode_bound(
        **{k: v for k, v in DENSE.items() if k != "peak_tflops"}, batch_size=[2, 3, 4]
    )
    assert swept["bound"].tolist() == ["memory"] * 3


# ---------------------------------------------------------------- serving_estimate

SHORT = dict(
    params_b=8,
    layers=32,
    heads=32,
    kv_heads=8,
    head_dim=128,
    device_memory_gb=80,
    bandwidth_tbs=3.35,
    peak_tflops=989,
    prompt_tokens=16,
    output_tokens=64,
    concurrency=4,
    tp=2,
    bandwidth_efficiency=0.8,
    compute_efficiency=0.5,
    gpu_cost_per_hour=2.5,
)


def test_a_short_prompts_prefill_is_one_read_of_the_weights():
    """8B in BF16 = 16 GB over 2 GPUs at 3.35 TB/s × 0.8: 16e9 / 5.36e12 = 2.98507 ms.
    The 16-token prompt's FLOPs, 2 × 8e9 × 16 + 2 × 32 × 16² × 32 × 128 = 2.5607e11,
    take 2.5607e11 / (2 × 989e12 × 0.5) = 0.259 ms, so the weight read binds: (2.98507⁴
    + 0.259⁴)^¼ = 2.98511 ms. Without active_params_b the model is dense (active = 8B)."""
    out = serving_estimate(**SHORT)
    flops = 2 * 8e9 * 16 + 2 * 32 * 16**2 * 32 * 128
    compute_ms = flops / (2 * 989e12 * 0.5) * 1e3
    assert compute_ms < 0.26
    close(out["prefill_ms"], ((16e9 / (2 * 3.35e12 * 0.8) * 1e3) ** 4 + compute_ms**4) ** 0.25)


def test_serving_step_times_and_cost_to_the_last_digit():
    """Decode reads 16 GB and each of 4 requests' KV at a mean context of 16 + 64/2 =
    48 tokens × 131,072 bytes (2 × 32 × 8 × 128 × 2): 16e9 + 4 × 48 × 131,072 =
    16,025,165,824 bytes over 5.36e12 B/s = 2.98977 ms. Compute: 4 × (2 × 8e9 + 4 × 32
    × 48 × 32 × 128) = 6.41006e10 FLOP over 2 × 989e12 × 0.5 = 0.064814 ms. A request
    lives 4 × prefill + 64 × ITL; $2.5 × 2 GPUs an hour over the total tokens/s, per
    million."""
    out = serving_estimate(**SHORT)
    step_bytes = 16e9 + 4 * 48 * 131_072
    memory_ms = step_bytes / (2 * 3.35e12 * 0.8) * 1e3
    compute_ms = 4 * (2 * 8e9 + 4 * 32 * 48 * 32 * 128) / (2 * 989e12 * 0.5) * 1e3
    close(out["memory_ms"], memory_ms)
    close(out["compute_ms"], compute_ms)
    assert out["decode_bound"] == "memory"
    # each phase composes its two times, (m⁴ + c⁴)^¼
    prefill_flops = 2 * 8e9 * 16 + 2 * 32 * 16**2 * 32 * 128
    prefill_ms = (
        (16e9 / (2 * 3.35e12 * 0.8) * 1e3) ** 4 + (prefill_flops / (2 * 989e12 * 0.5) * 1e3) ** 4
    ) ** 0.25
    itl_ms = (memory_ms**4 + compute_ms**4) ** 0.25
    close(out["itl_ms"], itl_ms)
    request_ms = 4 * prefill_ms + 64 * itl_ms
    total = 4 * 64 / request_ms * 1e3
    close(out["tokens_per_s_total"], total)
    close(out["cost_per_m_output_tokens"], 2.5 * 2 / 3600 / total * 1e6)


def test_a_large_batch_decode_is_compute_bound():
    """At 512 requests the step computes 512 × (1.6e10 + 4 × 32 × 48 × 32 × 128) =
    8.2e12 FLOP, 8.3 ms, against 16 GB + 512 × 48 × 131,072 bytes = 19.2 GB, 3.6 ms."""
    out = serving_estimate(**{**SHORT, "concurrency": 512})
    assert out["decode_bound"] == "compute"


def test_weights_that_exactly_fill_the_memory_fit_and_leave_no_kv():
    """36B in BF16 is 72 GB: on one 80 GB GPU at 0.9 that is all the usable memory. The
    weights fit (≤), the KV pool is 0, so no request fits: the note blames the KV cache,
    not the weights."""
    out = serving_estimate(**{**SHORT, "params_b": 36, "tp": 1})
    close(out["weights_gb_per_gpu"], 72.0)
    assert out["kv_pool_gb"] == 0 and out["max_concurrency"] == 0
    assert not out["fits"]
    assert out["fit_note"] != serving_estimate(**{**SHORT, "params_b": 37, "tp": 1})["fit_note"]


def test_exactly_max_concurrency_requests_fit():
    full = serving_estimate(**SHORT)
    n = int(full["max_concurrency"])
    at = serving_estimate(**{**SHORT, "concurrency": n})
    over = serving_estimate(**{**SHORT, "concurrency": n + 1})
    assert at["fits"] and not over["fits"]
    assert at["fit_note"] != over["fit_note"]


# ---------------------------------------------------------------- small kernels


def test_kv_cache_to_the_byte_with_local_layers():
    """32 layers × 8 KV heads × 128 × 2 (K and V) × 2 bytes = 131,072 bytes a token;
    4,096 tokens = 0.536870912 GB a sequence, × 3 = 1.610612736 GB. With 4 of the 32
    layers local over 1,024 tokens: 28 × 4,096 + 4 × 1,024 = 118,784 layer-tokens ×
    4,096 bytes = 0.486539264 GB."""
    kw = dict(layers=32, kv_heads=8, head_dim=128, seq_len=4096, batch_size=3)
    out = kv_cache(**kw)
    close(out["gb_per_seq"], 0.536870912)
    close(out["total_gb"], 1.610612736)
    local = kv_cache(**kw, local_layers=4, local_window=1024)
    close(local["gb_per_seq"], 0.486539264)


def test_kv_cache_and_moe_say_what_they_need():
    with pytest.raises(ValueError, match="^kv_cache needs kv_heads and head_dim, or kv_lora_rank$"):
        kv_cache(layers=32, seq_len=10, kv_heads=8)
    with pytest.raises(
        ValueError, match="^moe_active needs total and active params, or the expert layout$"
    ):
        moe_active(total_params_b=10)
    with pytest.raises(
        ValueError, match=r"^give kv_bytes_per_token or the architecture \(layers, \.\.\.\)$"
    ):
        paged_kv_capacity(device_memory_gb=80, weights_gb=10, mean_tokens=10, max_tokens=20)


def test_moe_active_from_the_layout_and_from_totals():
    """8 experts of 5.5B, 2 per token, no shared part: active 11B of 44B (a quarter); at
    0.5 bytes 5.5 GB read per token, 22 GB resident. A given total (47B with the
    embeddings) replaces 8 × 5.5. Totals alone: 20B of 100B at 1.5 bytes, 30 and 150 GB;
    an expert count without the rest of the layout changes nothing."""
    out = moe_active(experts=8, experts_per_token=2, expert_params_b=5.5, bytes_per_param=0.5)
    close(out["active_params_b"], 11.0)
    close(out["total_params_b"], 44.0)
    close(out["active_fraction"], 0.25)
    close(out["active_gb"], 5.5)
    close(out["batched_resident_gb"], 22.0)
    given = moe_active(experts=[8, 8], experts_per_token=2, expert_params_b=5.5, total_params_b=47)
    close(given["total_params_b"], [47.0, 47.0])
    close(given["active_fraction"], [11 / 47, 11 / 47])
    totals = moe_active(total_params_b=100, active_params_b=20, bytes_per_param=1.5, experts=8)
    close(totals["active_gb"], 30.0)
    close(totals["batched_resident_gb"], 150.0)
    with_ep = moe_active(total_params_b=100, active_params_b=20, expert_params_b=0.5)
    close(with_ep["active_fraction"], 0.2)


def test_fallback_latency_to_the_microsecond():
    """40 kernels × (12 + 5 µs launch) = 0.68 ms; 3 CPU nodes × 250 µs = 0.75 ms;
    2 copies × (8 MB / 25 GB/s + 10 µs) = 2 × 0.33 = 0.66 ms; 2.09 ms in all, 43 ops."""
    out = fallback_latency(
        gpu_kernels=40,
        gpu_kernel_us=12,
        cpu_nodes=3,
        cpu_node_us=250,
        transfers=2,
        transfer_mb=8,
    )
    close(out["gpu_ms"], 0.68)
    close(out["cpu_ms"], 0.75)
    close(out["copy_ms"], 0.66)
    close(out["total_ms"], 2.09)
    close(out["cpu_share"], 0.75 / 2.09)
    assert out["operators"] == 43


def test_break_even_to_the_cent():
    """1,500 tokens/s is 5.4e6 tokens an hour; $2.5 an hour is 2.5e6/5.4e6 = $0.46296
    per million at full use, /0.4 = $1.15741 at 40 %, and breaks even with a $0.6 API
    at 0.46296/0.6 = 77.16 % use."""
    out = break_even(
        price_per_m_tokens=0.6, gpu_cost_per_hour=2.5, tokens_per_s=1500, utilization=0.4
    )
    close(out["tokens_per_gpu_hour"], 5.4e6)
    close(out["cost_per_m_at_full_use"], 2.5e6 / 5.4e6)
    close(out["cost_per_m_at_utilization"], 2.5e6 / 5.4e6 / 0.4)
    close(out["break_even_utilization"], 2.5e6 / 5.4e6 / 0.6)


def test_weights_that_exactly_fill_usable_memory_fit_locally():
    """36B × 2 bytes = 72 GB against 80 GB × 0.9 = 72 GB: it fits (≤)."""
    assert local_fit(
        params_b=36, bytes_per_param=2, device_memory_gb=80, device_bandwidth_gbs=2000
    )["fits"]


# ---------------------------------------------------------------- mig


def test_a_model_exactly_the_size_of_a_mig_instance_fits_every_replica():
    """H100 1g.10gb: the driver shows its usable GiB; a model of exactly that many GB
    fits, one replica per instance (7); a byte more does not."""
    p = mig_profile("h100-sxm", "1g.10gb")
    usable_gb = p.usable_gib * GIB_IN_GB
    out = mig(gpu="h100-sxm", profile="1g.10gb", model_gb=[usable_gb, usable_gb + 1e-6])
    assert out["model_fits"].tolist() == [True, False]
    assert out["replicas"].tolist() == [p.max_instances, 0]


def test_mig_profile_lookups():
    assert mig_profile_names("no-such-gpu") == []
    assert mig_profile_names("h100-sxm") == [p.name for p in MIG_PROFILES["h100-sxm"]]
    names = all_mig_profile_names()
    assert len(names) == len(set(names))
    assert set(names) == {p.name for ps in MIG_PROFILES.values() for p in ps}
    with pytest.raises(KeyError, match="^\"h100-sxm has no MIG profile '9g.1gb'\"$"):
        mig_profile("h100-sxm", "9g.1gb")


def test_a_mig_profile_as_the_api_lists_it():
    p = mig_profile("h100-sxm", "1g.10gb")
    d = p.as_dict()
    assert d == {
        "name": "1g.10gb",
        "compute_slices": p.compute_slices,
        "memory_slices": p.memory_slices,
        "nominal_gb": p.nominal_gb,
        "usable_gib": p.usable_gib,
        "usable_gb": p.usable_gib * GIB_IN_GB,
        "sms": p.sms,
        "max_instances": p.max_instances,
        "unconfirmed": list(p.unconfirmed),
        "source": p.source,
    }
    assert d["compute_slices"] == 1 and d["max_instances"] == 7


BASE = dict(params_b=7, bytes_per_param=2, bandwidth_tbs=2, bandwidth_efficiency=0.8, batch_size=3)


def same_outputs(a, b):
    assert a.keys() == b.keys()
    for name in a:
        np.testing.assert_array_equal(np.asarray(a[name]), np.asarray(b[name]), err_msg=name)


def test_decode_ignores_half_an_architecture_or_half_an_moe_layout():
    """Attention FLOPs need heads, head_dim and layers together, the MoE read needs
    experts, experts_per_token and expert_params_b together: one of them alone changes
    nothing (validation asks for the rest before a run gets here)."""
    dense = decode_bound(**BASE, kv_gb_per_seq=0.1, layers=32)
    same_outputs(decode_bound(**BASE, kv_gb_per_seq=0.1, layers=32, heads=32), dense)
    same_outputs(decode_bound(**BASE, kv_gb_per_seq=0.1, layers=32, head_dim=128), dense)
    same_outputs(decode_bound(**BASE, kv_gb_per_seq=0.1, layers=32, experts=64), dense)
    same_outputs(decode_bound(**BASE, kv_gb_per_seq=0.1, layers=32, expert_params_b=0.5), dense)


def test_decode_derives_kv_without_rope_or_local_layers_by_default():
    """MLA with 61 layers and a 512-wide latent in BF16, no RoPE key: 61 × 512 × 2 =
    62,464 bytes a token, × 4,096 tokens = 0.255852544 GB a sequence. GQA with 32
    layers, 8 KV heads of 128: 2 × 32 × 8 × 128 × 2 = 131,072 bytes, 0.536870912 GB,
    every layer global unless local_layers says otherwise."""
    mla = decode_bound(**BASE, layers=61, kv_lora_rank=512)
    close(mla["kv_read_gb_per_seq"], 0.255852544)
    gqa = decode_bound(**BASE, layers=32, kv_heads=8, head_dim=128)
    close(gqa["kv_read_gb_per_seq"], 0.536870912)
    close(gqa["bytes_per_step_gb"], 14 + 3 * 0.536870912)


def test_decode_outputs_keep_the_shape_of_an_input_that_plays_no_part():
    """Without a peak, compute_efficiency changes nothing, but a sweep over it still
    gets one column per point."""
    out = decode_bound(**BASE, kv_gb_per_seq=0.1, compute_efficiency=[0.4, 0.5, 0.6])
    assert {np.shape(v) for v in out.values()} == {(3,)}


def test_decode_attention_flops_to_the_last_digit_and_local_layers_default_to_none():
    """32 layers, 32 heads of 128 over a 2,048-token context: attention is
    4 × 128 × 32 × (32 × 2,048) = 1,073,741,824 FLOP a token, so a token costs
    2 × 7 + 1.073741824 = 15.073741824 GFLOP; 3 of them on 100 TFLOP/s × 0.5 take
    15.073741824 × 3 / 50 = 0.90442450944 ms. A local window without local layers
    makes no layer local: the KV read stays 2 × 32 × 8 × 128 × 2 × 2,048 bytes."""
    kw = dict(layers=32, heads=32, head_dim=128, context_tokens=2048, kv_gb_per_seq=0.1)
    out = decode_bound(**BASE, **kw, peak_tflops=100, compute_efficiency=0.5)
    close(out["attention_flops_per_token"], 1_073_741_824)
    close(out["compute_ms_per_step"], 15.073741824 * 3 / 50)
    gqa = decode_bound(**BASE, layers=32, kv_heads=8, head_dim=128, context_tokens=2048)
    windowed = decode_bound(
        **BASE, layers=32, kv_heads=8, head_dim=128, context_tokens=2048, local_window=512
    )
    close(windowed["kv_read_gb_per_seq"], 2 * 32 * 8 * 128 * 2 * 2048 / 1e9)
    close(windowed["kv_read_gb_per_seq"], gqa["kv_read_gb_per_seq"])
