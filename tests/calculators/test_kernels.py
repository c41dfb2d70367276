"""Kernel tests on hand-derived cases, including the brief's public reference cases.

No database: kernels are pure NumPy.
"""

import numpy as np
import pytest

from calculators.kernels import (
    KERNELS,
    attention_intensity,
    availability,
    break_even,
    decode_bound,
    diffusion_passes,
    fallback_latency,
    kv_cache,
    linear_params,
    local_fit,
    mig,
    moe_active,
    response_time,
    roofline,
    sliding_window,
    sparsity_2_4,
    weight_memory,
)

approx = pytest.approx


def linear_layer_traffic(batch, n_in=4096, n_out=1024, b=2):
    """FLOP and bytes of a linear layer at a batch, as NVIDIA's guide counts them."""
    flops = 2 * batch * n_in * n_out
    nbytes = b * (batch * n_in + n_in * n_out + batch * n_out)
    return flops, nbytes


# ---- roofline: NVIDIA GPU performance background guide, V100 FP16 (125 TFLOP/s, 900 GB/s)


def test_roofline_v100_ridge_and_linear_layer_batch_512_is_compute_bound():
    flops, nbytes = linear_layer_traffic(512)
    out = roofline(peak_tflops=125, bandwidth_tbs=0.9, flops=flops, bytes=nbytes)
    assert out["ridge_intensity"] == approx(138.9, abs=0.05)
    assert out["intensity"] == approx(315, abs=0.5)
    assert out["bound"] == "compute"
    assert out["attainable_tflops"] == approx(125)
    assert out["time_s"] == approx(flops / 125e12)


def test_roofline_linear_layer_batch_1_is_memory_bound_near_intensity_1():
    flops, nbytes = linear_layer_traffic(1)
    out = roofline(peak_tflops=125, bandwidth_tbs=0.9, flops=flops, bytes=nbytes)
    assert out["intensity"] == approx(1.0, abs=0.01)
    assert out["bound"] == "memory"
    assert out["attainable_tflops"] == approx(0.9 * out["intensity"])
    assert out["time_s"] == approx(nbytes / 0.9e12)


def test_roofline_intensity_form_broadcasts_and_keeps_shape():
    out = roofline(peak_tflops=989, bandwidth_tbs=3.35, intensity=[1, 295.2238806, 1000])
    assert out["bound"].tolist() == ["memory", "compute", "compute"]
    assert out["attainable_tflops"].tolist() == approx([3.35, 989, 989])
    assert out["intensity"].shape == (3,)


# ---- decode_bound: llm-analysis LLaMA-7B, A100 80 GB, FP16, batch 1


def test_decode_llama_7b_on_a100_80gb():
    out = decode_bound(params_b=6.575, bytes_per_param=2, bandwidth_tbs=2.039)
    assert out["weight_gb"] == approx(13.15)
    # 13.15 GB / 2.039 TB/s = 6.45 ms: the bandwidth bound. llm-analysis reports about
    # 6.7 ms because it also counts activation traffic; the bound must sit just below.
    assert out["ms_per_token"] == approx(6.45, abs=0.01)
    assert out["ms_per_token"] == approx(6.7, rel=0.05)
    assert out["tokens_per_s_per_user"] == approx(1000 / 6.449, rel=1e-3)


def test_decode_compute_ceiling_and_crossing_batch():
    # H100: 8B at BF16. memory = 16/3.35 ms, compute = 2*8*B/989 ms -> crossing at B = 295.2
    out = decode_bound(
        params_b=8,
        bytes_per_param=2,
        bandwidth_tbs=3.35,
        peak_tflops=989,
        batch_size=np.array([1, 512]),
    )
    assert out["compute_bound_batch"][0] == approx(989 / 3.35)
    # the step composes the two ceilings, (m⁴ + c⁴)^¼: at batch 1 compute is 1/295 of
    # memory and adds nothing visible; at 512 (8.283 ms against 4.776) it adds 2.7%
    assert out["ms_per_token"][0] == approx(16 / 3.35)
    step = ((2 * 8 * 512 / 989) ** 4 + (16 / 3.35) ** 4) ** 0.25
    assert step == approx(8.5031, abs=1e-4)
    assert out["ms_per_token"][1] == approx(step)
    assert out["tokens_per_s_total"][1] == approx(512 * 1000 / step)


def test_decode_kv_traffic_and_efficiency():
    out = decode_bound(
        params_b=8,
        bytes_per_param=2,
        bandwidth_tbs=3.35,
        batch_size=32,
        kv_gb_per_seq=0.5,
        bandwidth_efficiency=0.7,
    )
    assert out["bytes_per_step_gb"] == approx(16 + 32 * 0.5)
    assert out["memory_ms_per_step"] == approx(32 / (3.35 * 0.7))
    assert "compute_ms_per_step" not in out


def test_decode_never_compute_bound_when_kv_dominates():
    out = decode_bound(
        params_b=1, bytes_per_param=2, bandwidth_tbs=1, peak_tflops=1, kv_gb_per_seq=10
    )
    assert np.isinf(out["compute_bound_batch"])


# ---- mig


def test_mig_a100_1g_leaves_10_sms_idle():
    out = mig(gpu="a100-40gb", profile="1g.5gb", model_gb=4)
    assert out["instance_sms"] == 14 and out["max_instances"] == 7
    assert out["idle_sms"] == 10
    assert out["compute_fraction"] == approx(1 / 7) and out["memory_fraction"] == approx(1 / 8)
    assert bool(out["model_fits"]) and out["replicas"] == 7


def test_mig_h100_profiles_side_by_side():
    out = mig(gpu="h100-sxm", profile=["1g.10gb", "3g.40gb", "7g.80gb"], model_gb=20)
    assert out["instance_sms"].tolist() == [16, 60, 132]
    assert out["idle_sms"].tolist() == [20, 12, 0]
    assert out["memory_slices"].tolist() == [1, 4, 8]
    assert out["model_fits"].tolist() == [False, True, True]
    assert out["replicas"].tolist() == [0, 2, 1]
    assert out["instance_sms"].dtype == np.int64  # counting integers stay integers


def test_mig_usable_memory_decides_the_fit():
    # 9.75 GiB usable = 10.47 GB: a 10.4 GB replica fits, 10.6 GB does not.
    out = mig(gpu="h100-sxm", profile="1g.10gb", model_gb=[10.4, 10.6])
    assert out["model_fits"].tolist() == [True, False]


def test_mig_unknown_sms_are_nan_not_invented():
    out = mig(gpu="b200", profile="1g.23gb", model_gb=20)
    assert np.isnan(out["instance_sms"]) and np.isnan(out["usable_memory_gib"])
    assert out["replicas"] == 7


# ---- fallback_latency: the brief's eager-versus-fused case


def test_fallback_fewer_operators_slower():
    out = fallback_latency(
        gpu_kernels=[100, 90],
        gpu_kernel_us=20,
        cpu_nodes=[0, 1],
        cpu_node_us=50,
        transfers=[0, 2],
        transfer_mb=16,
    )
    assert out["total_ms"][0] == approx(2.50)
    assert out["total_ms"][1] == approx(3.60, abs=0.005)
    assert out["copy_ms"][1] == approx(2 * (16e6 / 25e9 * 1e3 + 0.01))
    assert out["operators"].tolist() == [100, 91]
    assert out["operators"].dtype == np.int64
    shares = out["gpu_share"] + out["cpu_share"] + out["copy_share"]
    assert shares.tolist() == approx([1, 1])


# ---- the other twelve


def test_weight_memory():
    out = weight_memory(params_b=70, bytes_per_param=0.5, scale_overhead=0.0625)
    assert out["weights_gb"] == approx(35 * 1.0625)
    assert out["recommended_vram_gb"] == approx(35 * 1.0625 * 1.5)


def test_kv_cache_llama_2_7b_and_llama_3_8b():
    out = kv_cache(
        layers=32, kv_heads=[32, 8], head_dim=128, seq_len=[4096, 8192], bytes_per_elem=2
    )
    assert out["gb_per_seq"].tolist() == approx([2.147, 1.074], abs=5e-4)
    assert out["bytes_per_token"].tolist() == [524288, 131072]


def test_kv_cache_gqa_divides_by_head_ratio():
    mha = kv_cache(layers=32, kv_heads=32, head_dim=128, seq_len=8192)["total_gb"]
    gqa = kv_cache(layers=32, kv_heads=8, head_dim=128, seq_len=8192)["total_gb"]
    assert mha / gqa == approx(4)


def test_response_time():
    out = response_time(ttft_ms=200, itl_ms=20, output_tokens=[1, 101])
    assert out["tps_per_user"].tolist() == approx([50, 50])
    assert out["decode_s"].tolist() == approx([0, 2.0])
    assert out["total_s"].tolist() == approx([0.2, 2.2])


def test_availability_three_nines():
    out = availability(availability_pct=99.9)
    assert out["downtime_hours_per_year"] == approx(8.766)
    assert out["downtime_min_per_month"] == approx(43.83)
    assert out["nines"] == approx(3)


def test_break_even_cost_reference():
    out = break_even(
        price_per_m_tokens=1.0, gpu_cost_per_hour=2, tokens_per_s=1000, utilization=[1.0, 0.5]
    )
    assert out["cost_per_m_at_full_use"].tolist() == approx([0.556, 0.556], abs=5e-4)
    assert out["cost_per_m_at_utilization"].tolist() == approx([0.5556, 1.1111], abs=1e-4)
    assert out["break_even_utilization"][0] == approx(0.5556, abs=1e-4)
    assert out["tokens_per_gpu_hour"][0] == 3.6e6


def test_attention_intensity_formulas():
    n, d, b = 1024, 64, 2
    out = attention_intensity(
        seq_len=n, head_dim=d, bytes_per_elem=b, peak_tflops=989, bandwidth_tbs=3.35
    )
    assert out["flops"] == 4 * n * n * d + 3 * n * n
    assert out["bytes"] == 4 * b * n * n + 4 * b * n * d
    assert out["flash_intensity"] == approx(out["flops"] / (4 * b * n * d))
    assert out["bound"] == "memory" and out["flash_bound"] == "compute"


def test_sliding_window_pairs():
    """The default full mask counts N² and N·w (N=3, w=4: the window covers all 3 keys,
    9 and 9; N=10: 100 and 40, a 2.5x saving); the causal mask counts N(N+1)/2 and
    w(w+1)/2 + (N−w)·w (N=10, w=4: 55 and 1+2+3+4+4·6 = 34)."""
    out = sliding_window(seq_len=[3, 10], window=4)
    assert out["full_pairs"].tolist() == [9, 100]
    assert out["window_pairs"].tolist() == [9, 40]
    assert out["saving"].tolist() == approx([1.0, 2.5])
    assert out["saving_fraction"].tolist() == approx([0.0, 0.6])
    causal = sliding_window(seq_len=[3, 10], window=4, mask="causal")
    assert causal["full_pairs"].tolist() == [6, 55]
    assert causal["window_pairs"].tolist() == [6, 34]
    assert causal["saving"].tolist() == approx([1.0, 55 / 34])
    assert causal["saving_fraction"].tolist() == approx([0, 1 - 34 / 55])
    assert out["full_pairs"].dtype == np.int64


def test_linear_params():
    out = linear_params(n_in=4096, n_out=[1024, 1024], bias=[True, False])
    assert out["weights"].tolist() == [4194304, 4194304]
    assert out["params"].tolist() == [4195328, 4194304]
    assert out["params"].dtype == np.int64


def test_moe_active_both_forms():
    direct = moe_active(total_params_b=46.7, active_params_b=12.9)
    assert direct["active_fraction"] == approx(12.9 / 46.7)
    assert direct["batched_resident_gb"] == approx(93.4)
    layout = moe_active(
        experts=8, experts_per_token=2, expert_params_b=5.6, shared_params_b=1.6, bytes_per_param=1
    )
    assert layout["active_params_b"] == approx(12.8)
    assert layout["total_params_b"] == approx(46.4)
    assert layout["active_gb"] == approx(12.8)


def test_sparsity_2_4_reference():
    out = sparsity_2_4(gemm_share=0.6, kernel_speedup=1.6, bytes_per_param=2)
    assert out["end_to_end_speedup"] == approx(1.29, abs=0.005)
    assert out["compressed_weight_ratio"] == approx(0.5625)


def test_local_fit():
    out = local_fit(
        params_b=70, bytes_per_param=[0.5, 0.25], device_memory_gb=32, device_bandwidth_gbs=1792
    )
    assert out["weights_gb"].tolist() == [35, 17.5]
    assert out["fits"].tolist() == [False, True]
    assert out["ms_per_token"][1] == approx(17.5 / 1792 * 1000)


def test_diffusion_passes():
    out = diffusion_passes(steps=[30, 30], guidance=[True, False], pass_ms=50)
    assert out["forward_passes"].tolist() == [60, 30]
    assert out["forward_passes"].dtype == np.int64
    assert out["total_s"].tolist() == approx([3.0, 1.5])


def test_every_kernel_is_registered_and_pure():
    import ast
    import pathlib

    from calculators.specs import SPECS

    assert set(KERNELS) == set(SPECS)
    for path in pathlib.Path("calculators/kernels").glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            assert not any(n.split(".")[0] == "django" for n in names), path
            # Nothing above the kernel package either (presets, specs, the catalogue).
            assert not any(
                n.startswith("calculators") and not n.startswith("calculators.kernels")
                for n in names
            ), path
