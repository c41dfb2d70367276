"""The first sixteen calculators after the second wave, model presets, precision-aware
GPU presets and pasted config.json files.

Kernel figures are derived by hand in each docstring with non-trivial inputs (batch > 1,
bytes per parameter ≠ 1, efficiencies < 1), so that a swapped or dropped factor fails.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pytest import approx

from calculators import presets
from calculators.compute import run_inline
from calculators.errors import CalculatorInputError
from calculators.kernels import (
    attention_intensity,
    collective_time,
    decode_bound,
    diffusion_passes,
    kv_cache,
    mig,
    speculative_decoding,
    weight_memory,
)
from calculators.model_catalog import MODELS, ConfigError, read_hf_config
from calculators.validation import validate

# Every link at its line rate, one ring: the figures below are worked by hand on it.
AT_LINE_RATE = dict(protocol_efficiency=1.0, net_efficiency=1.0, algorithm="ring")

# ---------------------------------------------------------------- public reference figures


def test_llama_3_1_70b_kv_cache_is_327680_bytes_per_token():
    """80 layers × 8 KV heads × 128 × 2 (K and V) × 2 bytes = 327,680 bytes per token."""
    out = run_inline("kv_cache", {"model": "llama-3.1-70b", "seq_len": 1})["outputs"]
    assert out["bytes_per_token"] == 327_680
    assert MODELS["llama-3.1-70b"].kv_bytes_per_token() == 327_680


def test_deepseek_v3_mla_cache_is_70272_bytes_per_token():
    """MLA caches one 512-wide latent and one 64-wide RoPE key per layer:
    61 × (512 + 64) × 2 = 70,272 bytes per token in BF16."""
    out = run_inline("kv_cache", {"model": "deepseek-v3", "seq_len": 1})["outputs"]
    assert out["bytes_per_token"] == 70_272
    assert kv_cache(layers=61, kv_lora_rank=512, rope_head_dim=64, seq_len=1)[
        "bytes_per_token"
    ] == approx(70_272)


# ---------------------------------------------------------------- kv_cache


def test_gemma_3_local_layers_keep_only_their_window():
    """Gemma 3 27B: 62 layers, 16 KV heads × 128, so 2 × 16 × 128 × 2 = 8,192 bytes per
    layer-token and 62 × 8,192 = 507,904 bytes per token. At 32,768 tokens the 10 global
    layers keep all of them and the 52 local layers 1,024: (10 × 32,768 + 52 × 1,024) ×
    8,192 = 3.1206 GB per sequence, × 3 sequences = 9.3617 GB (not 3 × 16.64 GB)."""
    out = run_inline("kv_cache", {"model": "gemma-3-27b", "seq_len": 32768, "batch_size": 3})
    o = out["outputs"]
    assert o["bytes_per_token"] == 507_904
    assert o["gb_per_seq"] == approx((10 * 32768 + 52 * 1024) * 8192 / 1e9)
    assert o["total_gb"] == approx(3 * 3.120562176)


def test_explicit_inputs_override_the_model():
    """Typing kv_heads=64 over Llama 3.1 70B's 8 (the query-head mistake) gives
    2 × 80 × 64 × 128 × 2 = 2,621,440 bytes per token, 8x the truth."""
    out = run_inline("kv_cache", {"model": "llama-3.1-70b", "kv_heads": 64, "seq_len": 1})
    assert out["outputs"]["bytes_per_token"] == 2_621_440
    assert out["inputs"]["layers"] == 80  # the rest still comes from the model


def test_two_models_side_by_side_in_one_run():
    """Qwen3-235B-A22B: 94 layers × 4 KV heads × 128 × 2 × 2 = 192,512 bytes per token,
    beside Llama 3.1 70B's 327,680."""
    out = run_inline("kv_cache", {"model": ["llama-3.1-70b", "qwen3-235b-a22b"], "seq_len": 1000})
    assert out["outputs"]["bytes_per_token"] == [327_680, 192_512]


def test_models_of_different_attention_cannot_share_a_run():
    with pytest.raises(CalculatorInputError) as exc:
        validate("kv_cache", {"model": ["llama-3.1-70b", "deepseek-v3"], "seq_len": 1})
    assert "kv_lora_rank" in exc.value.fields["model"][0]


# ---------------------------------------------------------------- decode_bound


def test_decode_derives_the_kv_read_and_attention_flops():
    """params 10 B at 2 bytes = 20 GB; KV per token 2 × 10 layers × 4 KV heads × 64 × 1
    byte (FP8) = 5,120 B, × 1,000 tokens = 0.00512 GB per sequence; batch 4 reads
    20 + 4 × 0.00512 = 20.02048 GB at 2 TB/s × 0.8 = 12.5128 ms. Attention FLOPs per
    token: 4 × 64 × 8 heads × 10 layers × 1,000 = 20.48 MFLOP; compute 4 × (2 × 10e9 +
    20.48e6) / (100e12 × 0.5) = 1.6016 ms. Compute catches up at
    B = (20 / 1.6) / (20.02048 / 50 − 0.00512 / 1.6) = 12.5 / 0.3972096 = 31.47."""
    out = decode_bound(
        params_b=10,
        bytes_per_param=2,
        bandwidth_tbs=2,
        batch_size=4,
        context_tokens=1000,
        kv_precision="fp8",
        layers=10,
        heads=8,
        kv_heads=4,
        head_dim=64,
        peak_tflops=100,
        bandwidth_efficiency=0.8,
        compute_efficiency=0.5,
    )
    assert out["kv_bytes_per_token"] == approx(5120 * 10 / 10)  # all 10 layers
    assert out["kv_read_gb_per_seq"] == approx(0.00512)
    assert out["bytes_per_step_gb"] == approx(20.02048)
    assert out["memory_ms_per_step"] == approx(12.5128)
    assert out["attention_flops_per_token"] == approx(20.48e6)
    assert out["compute_ms_per_step"] == approx(1.6016384)
    # (12.5128⁴ + 1.6016384⁴)^¼ = 12.51364: memory-bound, the composition adds 0.007%
    assert out["ms_per_token"] == approx((12.5128**4 + 1.6016384**4) ** 0.25)
    assert out["ms_per_token"] == approx(12.51364, abs=1e-5)
    assert out["tokens_per_s_total"] == approx(4 * 1000 / 12.51364, rel=1e-6)
    assert out["compute_bound_batch"] == approx(12.5 / 0.3972096)
    assert out["bound"] == "memory"


def test_decode_moe_reads_the_experts_a_batch_touches():
    """E = 8 experts, k = 2, batch 4 under uniform routing: 8 × (1 − 0.75⁴) = 5.46875
    experts per layer. Shared = 12 − 2 × 5 = 2 B params; weights read = (2 + 5.46875 × 5)
    × 2 bytes = 58.6875 GB, not one token's 24 GB. With 0.1 GB of KV per sequence the step
    reads 59.0875 GB at 4 TB/s × 0.5 = 29.54375 ms."""
    out = decode_bound(
        params_b=12,
        bytes_per_param=2,
        bandwidth_tbs=4,
        batch_size=4,
        kv_gb_per_seq=0.1,
        experts=8,
        experts_per_token=2,
        expert_params_b=5,
        bandwidth_efficiency=0.5,
    )
    assert out["experts_touched"] == approx(5.46875)
    assert out["weight_gb"] == approx(58.6875)
    assert out["memory_ms_per_step"] == approx(29.54375)


def test_decode_moe_compute_bound_batch_solves_the_nonlinear_crossing():
    """At the returned batch, compute time equals memory time (the expert read saturates,
    so there is no closed form; the kernel bisects)."""
    kwargs = dict(
        params_b=37,
        bytes_per_param=1,
        bandwidth_tbs=4.8,
        kv_gb_per_seq=0.0,
        experts=256,
        experts_per_token=8,
        expert_params_b=2.55,
        peak_tflops=1979,
        compute_efficiency=0.6,
    )
    b = float(decode_bound(**kwargs)["compute_bound_batch"])
    at = decode_bound(batch_size=b, **kwargs)
    assert at["compute_ms_per_step"] == approx(float(at["memory_ms_per_step"]), rel=1e-6)


def test_decode_says_never_when_kv_outgrows_compute():
    """Llama 3.1 8B at 2,048 tokens on an H100: each sequence reads 131,072 × 2,048 =
    0.268 GB of KV (0.080 ms at 3.35 TB/s) but costs only (2 × 8.03e9 + 1.07e9) / 989e12
    = 0.0173 ms of compute, so compute never catches up."""
    result = run_inline(
        "decode_bound",
        {"model": "llama-3.1-8b", "bytes_per_param": 2, "batch_size": 16, "context_tokens": 2048},
        "h100-sxm",
    )
    assert result["outputs"]["compute_bound_batch"] is None  # inf in JSON
    assert result["outputs"]["kv_read_gb_per_seq"] == approx(131072 * 2048 / 1e9)
    assert any("never catches up" in line for line in result["establishes"])
    assert any("never" in line for line in result["steps"][0]["lines"])


def test_decode_without_architecture_says_it_counts_weights_only():
    result = run_inline("decode_bound", {"params_b": 8, "bytes_per_param": 2}, "h100-sxm")
    assert result["outputs"]["kv_read_gb_per_seq"] == 0
    assert any("weights only" in line for line in result["establishes"])


def test_decode_half_architecture_names_the_missing_field():
    with pytest.raises(CalculatorInputError) as exc:
        validate(
            "decode_bound", {"params_b": 8, "bytes_per_param": 2, "bandwidth_tbs": 3, "layers": 32}
        )
    assert {"kv_heads", "head_dim"} <= set(exc.value.fields)


# ---------------------------------------------------------------- weight_memory


def test_weight_memory_breaks_down_embedding_layers_lm_head_and_scales():
    """Llama 3.1 8B at 4 bits with asymmetric int4 (16-bit scale + 4-bit zero point per
    128 weights): embedding = lm_head = 128,256 × 4,096 = 0.525336576 B params at 2 bytes
    = 1.050673152 GB each; layers 8.03 − 1.050673152 = 6.979326848 B params × 0.5 =
    3.489663424 GB; scales 6.979326848 × 20 / 8 / 128 = 0.136315 GB; total 5.7273 GB and
    × 1.25 headroom = 7.1592 GB. Tied, the layers hold 7.504663424 B params."""
    out = weight_memory(
        params_b=8.03,
        bytes_per_param=0.5,
        headroom=0.25,
        vocab=128256,
        hidden=4096,
        group_size=128,
        zero_point_bits=4,
    )
    assert out["embedding_gb"] == approx(1.050673152)
    assert out["lm_head_gb"] == approx(1.050673152)
    assert out["layers_gb"] == approx(3.489663424)
    assert out["scales_gb"] == approx(6.979326848 * 20 / 8 / 128)
    total = 2 * 1.050673152 + 3.489663424 + 6.979326848 * 20 / 8 / 128
    assert out["weights_gb"] == approx(total)
    assert out["recommended_vram_gb"] == approx(total * 1.25)
    tied = weight_memory(
        params_b=8.03, bytes_per_param=0.5, vocab=128256, hidden=4096, tied_embeddings=True
    )
    assert tied["lm_head_gb"] == 0 and tied["layer_params_b"] == approx(7.504663424)


def test_weight_memory_without_a_split_is_the_old_formula():
    """70 B at 0.5 bytes with 3 % overhead: 70 × 0.5 × 1.03 = 36.05 GB (content relies on it)."""
    out = weight_memory(params_b=70, bytes_per_param=0.5, scale_overhead=0.03)
    assert out["weights_gb"] == approx(36.05)


def test_weight_memory_model_fills_vocab_and_hidden():
    out = run_inline("weight_memory", {"model": "gemma-3-27b", "bytes_per_param": 1})
    assert out["inputs"]["tied_embeddings"] is True
    assert out["outputs"]["lm_head_gb"] == 0
    assert out["outputs"]["embedding_gb"] == approx(262208 * 5376 * 2 / 1e9)


# ---------------------------------------------------------------- optional inputs


def test_attention_intensity_without_hardware_gives_counts_only():
    out = attention_intensity(seq_len=1024, head_dim=64, bytes_per_elem=1)
    assert "bound" not in out and "ridge_intensity" not in out
    assert out["flash_bytes"] == approx(4 * 1 * 1024 * 64)
    result = run_inline("attention_intensity", {"seq_len": 1024, "head_dim": 64})
    assert "bound" not in result["outputs"] and result["chart"]
    with pytest.raises(CalculatorInputError) as exc:
        validate("attention_intensity", {"seq_len": 1024, "head_dim": 64, "peak_tflops": 989})
    assert "bandwidth_tbs" in exc.value.fields


def test_diffusion_without_pass_time_gives_passes():
    out = diffusion_passes(steps=[25, 40], guidance=[True, False])
    assert out["forward_passes"].tolist() == [50, 40] and "total_s" not in out


def test_mig_without_model_gives_the_profile_and_compares_gb_with_gb():
    """H100 7g.80gb: nvidia-smi reports 79.25 GiB = 85.094 GB usable. An 84 GB replica
    fits (84 ≤ 85.09) and an 86 GB one does not; without model_gb there is no fit."""
    bare = mig(gpu="h100-sxm", profile="7g.80gb")
    assert "model_fits" not in bare
    assert bare["usable_memory_gb"] == approx(79.25 * 2**30 / 1e9)
    out = mig(gpu="h100-sxm", profile="7g.80gb", model_gb=[84, 86])
    assert out["model_fits"].tolist() == [True, False]
    result = run_inline("mig", {"gpu": "h100-sxm", "profile": "3g.40gb"})
    assert "replicas" not in result["outputs"]


# ---------------------------------------------------------------- precision-aware presets


def test_precision_selects_the_dense_peak():
    """H100 SXM: dense BF16 989, FP8 1,979 (the sheet's 1,979 / 3,958 are with sparsity);
    B200: FP4 9,000 dense (18 PFLOPS sparse per GPU)."""
    assert validate("roofline", {"intensity": 100}, "h100-sxm")["peak_tflops"] == 989
    fp8 = validate("roofline", {"intensity": 100, "precision": "fp8"}, "h100-sxm")
    assert fp8["peak_tflops"] == 1979
    both = validate("roofline", {"intensity": 100, "precision": ["bf16", "fp8"]}, "h200")
    assert both["peak_tflops"] == [989, 1979]
    assert validate("roofline", {"intensity": 1, "precision": "fp4"}, "b200")["peak_tflops"] == 9000
    assert presets.GPUS["h100-sxm"].sparse_headline and not presets.GPUS["mi300x"].sparse_headline


def test_a_precision_the_sheet_lacks_is_named():
    with pytest.raises(CalculatorInputError) as exc:
        validate("roofline", {"intensity": 100, "precision": "fp8"}, "a100-80gb")
    assert "a100-80gb has no dense fp8" in exc.value.fields["precision"][0]


def test_every_preset_names_a_source_and_only_known_precisions():
    for gpu in presets.GPUS.values():
        assert "https://" in gpu.source, gpu.slug
        assert set(gpu.peaks) <= set(presets.PRECISIONS)
        assert all(v > 0 for v in gpu.peaks.values())
    for slug in (
        "a100-pcie-40gb",
        "a100-pcie-80gb",
        "h100-nvl",
        "h20",
        "gh200",
        "gh200-144gb",
        "b300",
        "gb200",
        "gb300",
        "rtx-4090",
        "mi325x",
        "mi355x",
        "tpu-v5e",
        "tpu-v5p",
        "tpu-v6e",
        "tpu-v7",
    ):
        assert slug in presets.GPUS


# ---------------------------------------------------------------- config.json


LLAMA_8B_CONFIG = {
    "architectures": ["LlamaForCausalLM"],
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
    "max_position_embeddings": 131072,
    "tie_word_embeddings": False,
}


def test_a_pasted_config_fills_the_same_fields_as_the_catalogue():
    """From shapes: 32 × (2 × 4096² + 2 × 4096 × 8 × 128 + 3 × 4096 × 14336) + 2 × 128,256
    × 4096 = 8.03 B parameters, as the model card says."""
    fields = read_hf_config(json.dumps(LLAMA_8B_CONFIG))
    assert fields["params_b"] == approx(8.03, abs=0.005)
    assert fields["attention"] == "gqa"
    from_config = run_inline("kv_cache", {"config": json.dumps(LLAMA_8B_CONFIG), "seq_len": 8192})
    from_model = run_inline("kv_cache", {"model": "llama-3.1-8b", "seq_len": 8192})
    assert from_config["outputs"] == from_model["outputs"]


def test_a_deepseek_config_reads_mla_and_experts():
    config = {
        "hidden_size": 7168,
        "intermediate_size": 18432,
        "moe_intermediate_size": 2048,
        "num_attention_heads": 128,
        "num_hidden_layers": 61,
        "num_key_value_heads": 128,
        "n_routed_experts": 256,
        "n_shared_experts": 1,
        "num_experts_per_tok": 8,
        "first_k_dense_replace": 3,
        "kv_lora_rank": 512,
        "q_lora_rank": 1536,
        "qk_rope_head_dim": 64,
        "qk_nope_head_dim": 128,
        "v_head_dim": 128,
        "vocab_size": 129280,
    }
    fields = read_hf_config(config)
    assert fields["attention"] == "mla" and fields["kv_lora_rank"] == 512
    assert fields["params_b"] == approx(671, rel=0.01)
    assert fields["active_params_b"] == approx(37, rel=0.03)


def test_an_unreadable_config_names_what_it_cannot_read():
    with pytest.raises(ConfigError) as exc:
        read_hf_config("{not json")
    assert "not valid JSON" in exc.value.problems[0]
    broken = {k: v for k, v in LLAMA_8B_CONFIG.items() if k != "num_hidden_layers"}
    broken["num_attention_heads"] = "32"
    with pytest.raises(CalculatorInputError) as api_exc:
        validate("kv_cache", {"config": broken, "seq_len": 1})
    reasons = " ".join(api_exc.value.fields["config"])
    assert "num_hidden_layers" in reasons and "num_attention_heads" in reasons
    with pytest.raises(CalculatorInputError) as both:
        validate("kv_cache", {"config": LLAMA_8B_CONFIG, "model": "qwen3-8b", "seq_len": 1})
    assert "not both" in both.value.fields["config"][0]


def test_a_calculator_without_architecture_refuses_a_model():
    with pytest.raises(CalculatorInputError) as exc:
        validate("availability", {"availability_pct": 99.9, "model": "qwen3-8b"})
    assert "model" in exc.value.fields


def test_moe_catalogue_entries_add_up():
    """shared + k × expert is the card's active count; shared + E × expert comes back to
    within 3 % of the card's total."""
    for m in MODELS.values():
        if m.experts:
            assert m.shared_params_b + m.experts_per_token * m.expert_params_b == approx(
                m.active_params_b
            )
            assert m.shared_params_b + m.experts * m.expert_params_b == approx(
                m.params_b, rel=0.03
            ), m.slug


# ---------------------------------------------------------------- properties


@settings(max_examples=60, deadline=None)
@given(
    st.integers(min_value=1, max_value=16),
    st.floats(min_value=0, max_value=1),
    st.floats(min_value=0, max_value=1),
)
def test_speculative_speedup_at_zero_acceptance(gamma, c, overhead):
    """With α = 0 every step yields exactly one token, so the speed-up is 1 / step cost:
    1 with free drafts and no overhead, and never above 1."""
    out = speculative_decoding(
        acceptance_rate=0.0, draft_tokens=gamma, draft_cost_ratio=c, verify_overhead=overhead
    )
    assert out["expected_tokens_per_step"] == approx(1.0)
    assert out["speedup"] == approx(1.0 / (gamma * c + 1 + overhead))
    free = speculative_decoding(acceptance_rate=0.0, draft_tokens=gamma, draft_cost_ratio=0.0)
    assert free["speedup"] == approx(1.0)


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(["all_reduce", "all_gather", "reduce_scatter", "broadcast"]),
    st.floats(min_value=1, max_value=1e5),
    st.integers(min_value=1, max_value=8),
    st.integers(min_value=0, max_value=8),
    st.integers(min_value=2, max_value=64),
    st.integers(min_value=0, max_value=64),
)
def test_more_gpus_never_lower_bus_bandwidth(op, message_mb, n, more, nodes, more_nodes):
    """busbw = algbw × factor normalises away the ring's growing factor, so with no
    per-step latency adding GPUs never lowers it: neither inside one node (8 GPUs) nor
    across nodes once the collective spans two or more. (Stepping from one node to two
    does lower it, from NVLink to the network rate: that is the point of the number.)

    Ring collectives only: all-to-all sends a growing share of each buffer off the node as
    nodes are added, so its busbw falls towards the per-GPU network share (tested below)."""
    kw = dict(op=op, message_mb=message_mb, gpus_per_node=8, latency_us=0)
    few = collective_time(**AT_LINE_RATE, gpus=n, **kw)
    many = collective_time(**AT_LINE_RATE, gpus=min(n + more, 8), **kw)
    assert many["busbw_gbs"] >= few["busbw_gbs"] * (1 - 1e-9)
    few = collective_time(**AT_LINE_RATE, gpus=8 * nodes, **kw)
    many = collective_time(
        **AT_LINE_RATE,
        gpus=8 * (nodes + more_nodes),
        **kw,
    )
    assert many["busbw_gbs"] >= few["busbw_gbs"] * (1 - 1e-9)


def test_all_to_all_bus_bandwidth_falls_towards_the_network_share():
    """8 NICs × 400 Gb/s = 400 GB/s per node over 8 GPUs is 50 GB/s each; at 2 nodes half
    of each buffer leaves the node, 8 × 8/16 × S / 400 GB/s, so busbw = (15/16) × 400 / 4
    = 93.75 GB/s, and it falls towards 50 as nodes are added."""
    out = collective_time(
        **AT_LINE_RATE,
        op="all_to_all",
        message_mb=100,
        gpus=[16, 32, 64, 512],
        gpus_per_node=8,
        latency_us=0,
    )
    busbw = out["busbw_gbs"]
    assert busbw[0] == approx(93.75)
    assert np.all(np.diff(busbw) < 0) and np.all(busbw > 50)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=512), min_size=1, max_size=8))
def test_moe_decode_broadcast_equals_a_loop(batches):
    kwargs = dict(
        params_b=37,
        bytes_per_param=1,
        bandwidth_tbs=4.8,
        context_tokens=4096,
        layers=61,
        heads=128,
        head_dim=128,
        kv_lora_rank=512,
        rope_head_dim=64,
        experts=256,
        experts_per_token=8,
        expert_params_b=2.55,
        peak_tflops=1979,
    )
    vec = decode_bound(batch_size=np.array(batches), **kwargs)
    for i, b in enumerate(batches):
        one = decode_bound(batch_size=b, **kwargs)
        for name, value in one.items():
            if np.asarray(value).dtype.kind == "f":
                assert vec[name][i] == approx(float(value), rel=1e-9), name
            else:
                assert vec[name][i] == value, name


# ---------------------------------------------------------------- the page form


@pytest.mark.django_db
def test_the_page_takes_a_pasted_config(client, published, django_capture_on_commit_callbacks):
    from calculators.models import CalculationRun

    page = client.get("/calculators/kv_cache/").content.decode()
    assert 'name="config"' in page and "<textarea" in page
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/calculators/kv_cache/",
            {"config": json.dumps(LLAMA_8B_CONFIG), "seq_len": "8192", "action": "run"},
        )
    assert response.status_code == 302, response.content.decode()[:2000]
    run = CalculationRun.objects.get()
    assert run.inputs["layers"] == 32 and run.inputs["kv_heads"] == 8
    bad = client.post(
        "/calculators/kv_cache/",
        {"config": '{"hidden_size": 4096}', "seq_len": "1", "action": "run"},
    )
    assert bad.status_code == 400
    assert "num_hidden_layers" in bad.content.decode()


@pytest.mark.django_db
def test_the_page_fills_the_peak_at_the_chosen_precision(
    client, published, django_capture_on_commit_callbacks
):
    """The script wrote the BF16 peak (989) into peak_tflops when the preset was picked;
    choosing fp8 afterwards must run at 1,979, not at the stale 989."""
    from calculators.models import CalculationRun

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/calculators/roofline/",
            {
                "preset": "h100-sxm",
                "peak_tflops": "989",
                "bandwidth_tbs": "3.35",
                "precision": "fp8",
                "intensity": "100",
                "action": "run",
            },
        )
    assert response.status_code == 302
    assert CalculationRun.objects.get().inputs["peak_tflops"] == 1979


def test_a_missing_precision_is_one_error_not_two():
    with pytest.raises(CalculatorInputError) as exc:
        validate("roofline", {"intensity": 1, "precision": "fp4"}, "h100-sxm")
    assert set(exc.value.fields) == {"precision"}


def test_decode_local_layers_mla_and_moe_compute_by_hand():
    """Local layers: 4 layers, 3 of them local with a 100-token window, 2 KV heads × 8 at
    2 bytes = 64 B per layer-token; at 1,000 tokens (1 × 1,000 + 3 × 100) = 1,300
    layer-tokens, 83,200 B = 8.32e-5 GB per sequence, and 4 × 8 × 4 heads × 1,300 =
    166,400 attention FLOP per token. MLA: 2 layers × (16 + 4) × 2 bytes (BF16) = 80 B per
    token, × 500 = 4e-5 GB. MoE compute: shared 3 − 2 × 0.5 = 2 B, active 3 B, so batch 2
    costs 2 × 2 × 3 / 10 TFLOP/s = 1.2 ms, while 4 × (1 − 0.5²) = 3 experts are read:
    (2 + 3 × 0.5) × 2 bytes = 7 GB."""
    local = decode_bound(
        params_b=1,
        bytes_per_param=2,
        bandwidth_tbs=1,
        context_tokens=1000,
        layers=4,
        heads=4,
        kv_heads=2,
        head_dim=8,
        local_layers=3,
        local_window=100,
    )
    assert local["kv_read_gb_per_seq"] == approx(8.32e-5)
    assert local["attention_flops_per_token"] == approx(166_400)
    mla = decode_bound(
        params_b=1,
        bytes_per_param=2,
        bandwidth_tbs=1,
        context_tokens=500,
        kv_precision="bf16",
        layers=2,
        kv_lora_rank=16,
        rope_head_dim=4,
    )
    assert mla["kv_bytes_per_token"] == approx(80)
    assert mla["kv_read_gb_per_seq"] == approx(4e-5)
    moe = decode_bound(
        params_b=3,
        bytes_per_param=2,
        bandwidth_tbs=1,
        batch_size=2,
        experts=4,
        experts_per_token=2,
        expert_params_b=0.5,
        peak_tflops=10,
    )
    assert moe["compute_ms_per_step"] == approx(1.2)
    assert moe["weight_gb"] == approx(7.0)


def test_decode_moe_crossing_counts_the_kv_read():
    kwargs = dict(
        params_b=37,
        bytes_per_param=2,
        bandwidth_tbs=4.8,
        kv_gb_per_seq=0.005,
        experts=256,
        experts_per_token=8,
        expert_params_b=2.55,
        peak_tflops=1979,
        compute_efficiency=0.6,
    )
    b = float(decode_bound(**kwargs)["compute_bound_batch"])
    at = decode_bound(batch_size=b, **kwargs)
    assert at["compute_ms_per_step"] == approx(float(at["memory_ms_per_step"]), rel=1e-6)
    assert b > float(decode_bound(**{**kwargs, "kv_gb_per_seq": 0.0})["compute_bound_batch"])


def test_the_hbm3e_gh200_is_the_144_gb_part_mlperf_measured():
    # NVIDIA's MLPerf v4.1 system description: 144 GB HBM3e; the GH200 page: 4.9 TB/s.
    hbm3e, hbm3 = presets.GPUS["gh200-144gb"], presets.GPUS["gh200"]
    assert (hbm3e.memory_gb, hbm3e.bandwidth_tbs) == (144, 4.9)
    assert (hbm3.memory_gb, hbm3.bandwidth_tbs) == (96, 4.0)
    assert hbm3e.peaks == hbm3.peaks and hbm3e.sms == hbm3.sms == 132
    assert "inference_results_v4.1" in hbm3e.memory_source
    assert not hbm3e.mig  # no MIG profile table for this part
