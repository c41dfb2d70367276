"""Every factor of a kernel's formula shows in its result.

Tests at batch 1 or efficiency 1 cannot see a dropped ``× batch`` or ``× efficiency``:
here every input is a distinct number other than 0 and 1 (batch > 1, efficiencies < 1),
and each expected figure is worked by hand from the formula in the kernel's docstring,
so dropping or doubling any factor changes a figure. No database.
"""

import numpy as np
import pytest

from calculators.kernels.decode_bound import decode_bound
from calculators.kernels.kv_cache import kv_cache
from calculators.kernels.local_fit import local_fit
from calculators.kernels.prefill import prefill


def close(actual, expected):
    assert np.asarray(actual) == pytest.approx(expected, rel=1e-12)


# --- decode_bound -------------------------------------------------------------------------

DENSE = {
    "params_b": 7,
    "bytes_per_param": 2,
    "bandwidth_tbs": 2,
    "batch_size": 3,
    "kv_gb_per_seq": 0.1,
    "bandwidth_efficiency": 0.8,
    "peak_tflops": 100,
    "compute_efficiency": 0.5,
}


def test_decode_memory_time_counts_the_kv_read_of_every_sequence_at_effective_bandwidth():
    out = decode_bound(**DENSE)
    close(out["weight_gb"], 7 * 2)
    close(out["bytes_per_step_gb"], 14 + 3 * 0.1)
    close(out["memory_ms_per_step"], 14.3 / (2 * 0.8))


def test_decode_compute_time_is_two_flop_per_parameter_per_sequence_at_effective_peak():
    out = decode_bound(**DENSE)
    close(out["compute_ms_per_step"], 2 * 7 * 3 / (100 * 0.5))
    assert str(out["bound"]) == "memory"
    # the step composes the two, (m⁴ + c⁴)^¼
    close(out["ms_per_token"], ((14.3 / 1.6) ** 4 + 0.84**4) ** 0.25)


def test_decode_throughput_multiplies_the_per_user_rate_by_the_batch():
    out = decode_bound(**DENSE)
    step = ((14.3 / 1.6) ** 4 + 0.84**4) ** 0.25
    close(out["tokens_per_s_per_user"], 1000 / step)
    close(out["tokens_per_s_total"], 3 * 1000 / step)


def test_decode_turns_compute_bound_when_the_batch_outgrows_the_crossing():
    out = decode_bound(**{**DENSE, "batch_size": 64})
    close(out["compute_ms_per_step"], 2 * 7 * 64 / 50)
    memory = (14 + 64 * 0.1) / 1.6
    close(out["ms_per_token"], ((2 * 7 * 64 / 50) ** 4 + memory**4) ** 0.25)
    assert str(out["bound"]) == "compute"


def test_decode_crossing_batch_is_weight_time_over_the_per_sequence_slope():
    """c·B = (W + B·kv)/bw' solved for B: (W/bw') / (c − kv/bw')."""
    per_seq = 2 * 7 / (100 * 0.5)
    slope = per_seq - 0.1 / (2 * 0.8)
    close(decode_bound(**DENSE)["compute_bound_batch"], (14 / 1.6) / slope)


def test_decode_reads_the_kv_cache_of_every_layer_and_window():
    """width = 2·kv_heads·head_dim·bytes; layer-tokens = global·context + local·window."""
    out = decode_bound(
        params_b=7,
        bytes_per_param=2,
        bandwidth_tbs=2,
        batch_size=3,
        context_tokens=100,
        kv_precision="fp8",
        layers=5,
        heads=6,
        kv_heads=2,
        head_dim=8,
        local_layers=2,
        local_window=10,
        peak_tflops=100,
        compute_efficiency=0.5,
        bandwidth_efficiency=0.8,
    )
    width = 2 * 2 * 8 * 1
    layer_tokens = 3 * 100 + 2 * 10
    close(out["kv_bytes_per_token"], 5 * width)
    close(out["kv_read_gb_per_seq"], width * layer_tokens / 1e9)
    attention = 4 * 8 * 6 * layer_tokens
    close(out["attention_flops_per_token"], attention)
    close(out["compute_ms_per_step"], 3 * (2 * 7 + attention / 1e9) / 50)


def test_decode_of_an_moe_reads_the_experts_the_batch_touches():
    """touched = E·(1 − (1 − k/E)^B); weights read = shared + touched·expert."""
    out = decode_bound(
        params_b=30,
        bytes_per_param=2,
        bandwidth_tbs=2,
        batch_size=3,
        experts=8,
        experts_per_token=2,
        expert_params_b=1.5,
        shared_params_b=3,
        peak_tflops=100,
        compute_efficiency=0.5,
        bandwidth_efficiency=0.8,
    )
    touched = 8 * (1 - (1 - 2 / 8) ** 3)
    close(out["experts_touched"], touched)
    close(out["weight_gb"], (3 + touched * 1.5) * 2)
    close(out["compute_ms_per_step"], 3 * 2 * (3 + 2 * 1.5) / 50)


def test_decode_of_an_moe_without_shared_params_takes_them_from_the_total():
    out = decode_bound(
        params_b=30,
        bytes_per_param=2,
        bandwidth_tbs=2,
        batch_size=3,
        experts=8,
        experts_per_token=2,
        expert_params_b=1.5,
    )
    touched = 8 * (1 - (1 - 2 / 8) ** 3)
    close(out["weight_gb"], ((30 - 2 * 1.5) + touched * 1.5) * 2)


# --- prefill --------------------------------------------------------------------------------

PREFILL = {
    "params_b": 2,
    "embedding_params_b": 0.5,
    "layers": 3,
    "heads": 4,
    "head_dim": 8,
    "prompt_tokens": 100,
    "peak_tflops": 10,
    "batch": 3,
    "compute_efficiency": 0.5,
}


def test_prefill_linear_flops_are_two_per_non_embedding_parameter_per_token_per_sequence():
    out = prefill(**PREFILL)
    close(out["linear_params_b"], 1.5)
    close(out["linear_flops"], 2 * 1.5e9 * 100 * 3)


def test_prefill_attention_is_quadratic_in_the_prompt_and_halved_by_a_causal_mask():
    full = 4 * 3 * 100**2 * 4 * 8 * 3
    close(prefill(**PREFILL, mask="full")["attention_flops"], full)
    close(prefill(**PREFILL)["attention_flops"], full / 2)


def test_prefill_time_is_the_flops_at_the_effective_peak():
    out = prefill(**PREFILL)
    total = 2 * 1.5e9 * 100 * 3 + 4 * 3 * 100**2 * 4 * 8 * 3 / 2
    close(out["total_flops"], total)
    close(out["attention_share"], (4 * 3 * 100**2 * 4 * 8 * 3 / 2) / total)
    close(out["compute_ms"], total / (10e12 * 0.5) * 1e3)
    close(out["ttft_ms"], total / (10e12 * 0.5) * 1e3)


def test_prefill_embedding_table_from_vocab_and_hidden():
    out = prefill(**{**PREFILL, "embedding_params_b": None}, vocab=50_000, hidden=4_000)
    close(out["linear_params_b"], 2 - 50_000 * 4_000 / 1e9)


def test_prefill_reads_every_weight_once_whatever_the_batch():
    out = prefill(**{**PREFILL, "prompt_tokens": 2}, bandwidth_tbs=0.5, bytes_per_param=1.5)
    close(out["memory_ms"], 2e9 * 1.5 / 0.5e12 * 1e3)
    assert str(out["bound"]) == "memory"
    close(out["ttft_ms"], (6.0**4 + float(out["compute_ms"]) ** 4) ** 0.25)


# --- kv_cache and local_fit -----------------------------------------------------------------


def test_kv_cache_total_is_per_sequence_times_the_batch():
    out = kv_cache(
        layers=5,
        kv_heads=2,
        head_dim=8,
        seq_len=100,
        batch_size=3,
        bytes_per_elem=1.5,
        local_layers=2,
        local_window=10,
    )
    width = 2 * 2 * 8 * 1.5
    close(out["bytes_per_token"], 5 * width)
    close(out["gb_per_seq"], width * (3 * 100 + 2 * 10) / 1e9)
    close(out["total_gb"], 3 * width * (3 * 100 + 2 * 10) / 1e9)


def test_kv_cache_of_mla_caches_the_latent_and_the_rope_key():
    out = kv_cache(layers=5, kv_lora_rank=16, rope_head_dim=4, seq_len=100, bytes_per_elem=1.5)
    close(out["bytes_per_token"], 5 * (16 + 4) * 1.5)


def test_local_fit_usable_memory_is_the_usable_fraction_of_the_device():
    out = local_fit(
        params_b=7,
        bytes_per_param=1.5,
        device_memory_gb=12,
        device_bandwidth_gbs=400,
        usable_fraction=0.8,
    )
    close(out["weights_gb"], 10.5)
    close(out["usable_gb"], 9.6)
    assert not bool(out["fits"])
    close(out["ms_per_token"], 10.5 / 400 * 1000)
    close(out["tokens_per_s"], 1000 / (10.5 / 400 * 1000))
