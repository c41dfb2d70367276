"""Kernels of the second wave against public reference figures and hand derivations.

Inputs are deliberately non-trivial (n > 2, several nodes, efficiencies < 1) so that a
dropped or swapped factor changes the answer.
"""

import math

import numpy as np
from pytest import approx

from calculators.kernels import collective_time, queueing, speculative_decoding, training_budget

# Every link at its line rate, one ring: the figures below are worked by hand on it.
AT_LINE_RATE = dict(protocol_efficiency=1.0, net_efficiency=1.0, algorithm="ring")


def test_all_reduce_bus_bandwidth_follows_nccl_tests_definition():
    """nccl-tests PERFORMANCE.md: busbw = algbw × 2(n-1)/n for all-reduce. Inside one node
    of 8 GPUs at 450 GB/s with no latency, time = 1.75 × 14 GB / 450 GB/s = 54.44 ms and
    busbw is the link rate itself."""
    out = collective_time(
        **AT_LINE_RATE,
        op="all_reduce",
        message_mb=14000,
        gpus=8,
        intra_gbs=450,
        latency_us=0,
    )
    assert out["factor"] == approx(1.75)
    assert out["time_ms"] == approx(1.75 * 14 / 450 * 1e3)
    assert out["busbw_gbs"] == approx(450)
    assert out["algbw_gbs"] == approx(450 / 1.75)
    assert out["bottleneck"] == "intra"


def test_rail_optimised_nodes_keep_the_inter_node_gap_small():
    """8 nodes of 8 GPUs, 8 × 400 Gb/s NICs per node: the node's network share is
    8 × 50 = 400 GB/s, so 14 GB takes 2 × 63/64 × 14 / 400 s = 68.9 ms plus 126 × 5 µs
    = 69.5 ms: about 1.28x the 54.5 ms inside one node, not 10x. With one NIC per node
    it is 8x slower again."""
    rail = collective_time(
        **AT_LINE_RATE,
        op="all_reduce",
        message_mb=14000,
        gpus=64,
    )
    one_node = collective_time(
        **AT_LINE_RATE,
        op="all_reduce",
        message_mb=14000,
        gpus=8,
    )
    one_nic = collective_time(
        **AT_LINE_RATE,
        op="all_reduce",
        message_mb=14000,
        gpus=64,
        nics_per_node=1,
    )
    assert rail["time_ms"] == approx(2 * 63 / 64 * 14 / 400 * 1e3 + 126 * 5e-3)
    assert rail["time_ms"] / one_node["time_ms"] == approx(1.2756, rel=1e-3)
    assert rail["bottleneck"] == "inter" and rail["nodes"] == 8
    assert one_nic["time_ms"] == approx(2 * 63 / 64 * 14 / 50 * 1e3 + 126 * 5e-3)


def test_gather_scatter_and_all_to_all_factors():
    """(n-1)/n for all-gather, reduce-scatter and all-to-all, 1 for broadcast; all-to-all
    over 2 nodes of 4 GPUs sends 4 × 4/8 of each buffer off each node."""
    ops = np.array(["all_gather", "reduce_scatter", "all_to_all", "broadcast"])
    out = collective_time(
        **AT_LINE_RATE,
        op=ops,
        message_mb=1000,
        gpus=8,
        gpus_per_node=4,
        latency_us=0,
    )
    assert out["factor"].tolist() == approx([7 / 8, 7 / 8, 7 / 8, 1.0])
    a2a = collective_time(
        **AT_LINE_RATE,
        op="all_to_all",
        message_mb=1000,
        gpus=8,
        gpus_per_node=4,
        nics_per_node=4,
        latency_us=0,
    )
    # off-node: 4 GPUs × 4/8 × 1 GB over 4 × 50 GB/s = 10 ms; on-node 3/8 GB at 450 GB/s.
    assert a2a["time_ms"] == approx(10.0)


def test_more_nics_never_slow_a_collective():
    out = collective_time(
        **AT_LINE_RATE,
        op="all_reduce",
        message_mb=512,
        gpus=32,
        nics_per_node=[1, 2, 4, 8],
    )
    assert np.all(np.diff(out["time_ms"]) <= 0)


def test_speculative_decoding_matches_leviathan():
    """Leviathan et al. (2023): α = 0.8, γ = 4 yields (1 - 0.8^5)/0.2 = 3.3616 tokens per
    target step; with c = 0.05 a step costs 4 × 0.05 + 1 = 1.2, so the speed-up is 2.8013."""
    out = speculative_decoding(acceptance_rate=0.8, draft_tokens=4, draft_cost_ratio=0.05)
    assert out["expected_tokens_per_step"] == approx(3.3616)
    assert out["step_cost"] == approx(1.2)
    assert out["speedup"] == approx(3.3616 / 1.2)


def test_speculation_is_free_of_gain_at_zero_acceptance_and_best_gamma_is_searched():
    """At α = 0 each step yields exactly one token, so the speed-up is 1 / (γc + 1) < 1.
    At α = 1 every draft is accepted: γ + 1 tokens."""
    out = speculative_decoding(
        acceptance_rate=[0.0, 1.0], draft_tokens=3, draft_cost_ratio=0.1, verify_overhead=0.1
    )
    assert out["expected_tokens_per_step"].tolist() == approx([1.0, 4.0])
    assert out["speedup"][0] == approx(1 / 1.4)
    best = speculative_decoding(acceptance_rate=0.6, draft_tokens=1, draft_cost_ratio=0.2)
    gammas = np.arange(1, 17)
    brute = speculative_decoding(acceptance_rate=0.6, draft_tokens=gammas, draft_cost_ratio=0.2)
    assert best["best_draft_tokens"] == gammas[np.argmax(brute["speedup"])]


def test_erlang_c_against_published_tables():
    """M/M/c with a = 5 erlangs on 10 servers: Erlang C = 0.0361; a = 9: 0.6687. Mean wait
    = C·s/(c(1-ρ)): 0.6687 × 1 / (10 × 0.1) = 0.6687 s."""
    out = queueing(arrival_rate=[5.0, 9.0], service_s=1.0, servers=10)
    assert out["wait_probability"].tolist() == approx([0.0361, 0.6687], abs=1e-4)
    assert out["mean_wait_s"][1] == approx(out["wait_probability"][1] / 1.0)
    assert out["utilization"].tolist() == approx([0.5, 0.9])


def test_single_server_queue_and_overload():
    """M/M/1: P(wait) = ρ and mean wait = ρ·s/(1-ρ); with λ = 3/s and s = 0.25 s,
    ρ = 0.75 and the mean wait is 0.75 s. p99 wait = ln(100 × 0.75) / (4 - 3) = 4.317 s."""
    out = queueing(arrival_rate=[3.0, 5.0], service_s=0.25, servers=1)
    assert out["wait_probability"][0] == approx(0.75)
    assert out["mean_wait_s"][0] == approx(0.75)
    assert out["p99_wait_s"][0] == approx(math.log(75))
    assert math.isinf(out["mean_wait_s"][1])


def test_training_budget_six_n_d_and_zero_stages():
    """70B on 15T tokens: 6 × 70e9 × 15e12 = 6.3e24 FLOP. On 2,048 GPUs at 989 TFLOP/s and
    40% MFU: 6.3e24 / (2048 × 989e12 × 0.4) s = 90.0 days. State per parameter on 64 dp
    ranks: stage 0 16 bytes, stage 1 2 + 2 + 12/64, stage 2 2 + 14/64, stage 3 16/64."""
    out = training_budget(
        params_b=70,
        tokens_b=15000,
        gpus=2048,
        peak_tflops=989,
        mfu=0.4,
        zero_stage=[0, 1, 2, 3],
        dp=64,
        gpu_cost_per_hour=2.5,
    )
    assert out["train_flops"][0] == approx(6.3e24)
    seconds = 6.3e24 / (2048 * 989e12 * 0.4)
    assert out["days"][0] == approx(seconds / 86400)
    assert out["cost"][0] == approx(2048 * seconds / 3600 * 2.5)
    assert out["state_bytes_per_param"].tolist() == approx([16, 4 + 12 / 64, 2 + 14 / 64, 16 / 64])
    assert out["state_gb_per_gpu"][3] == approx(70 * 16 / 64)


def test_decode_bound_sweeps_with_a_scalar_kv_equal_a_loop():
    """Regression: arrays of bytes_per_param and peak with a scalar batch and KV read used
    to drop the KV bytes (and crash at large batch) through in-place buffers."""
    from calculators.kernels import decode_bound

    bpp, peak = np.array([0.52, 1.0]), np.array([1978.0, 3958.0])
    swept = decode_bound(
        params_b=70,
        bytes_per_param=bpp,
        peak_tflops=peak,
        batch_size=256,
        kv_gb_per_seq=0.1,
        bandwidth_tbs=8,
        bandwidth_efficiency=0.8,
        compute_efficiency=0.6,
    )
    for i in range(2):
        one = decode_bound(
            params_b=70,
            bytes_per_param=bpp[i],
            peak_tflops=peak[i],
            batch_size=256,
            kv_gb_per_seq=0.1,
            bandwidth_tbs=8,
            bandwidth_efficiency=0.8,
            compute_efficiency=0.6,
        )
        for name, value in one.items():
            assert swept[name][i] == approx(value), name
    # By hand for column A: (36.4 + 256 × 0.1) GB / (8 × 0.8) TB/s = 9.6875 ms.
    assert swept["memory_ms_per_step"][0] == approx((36.4 + 25.6) / 6.4)
    assert swept["compute_ms_per_step"][0] == approx(2 * 70 * 256 / (1978 * 0.6))


def test_roofline_sweeps_over_the_peak():
    """Regression: sweeping peak_tflops crashed (an in-place minimum into a 0-d array).
    A workload of intensity 100 on 3.35 TB/s attains min(335, peak) TFLOP/s."""
    from calculators.kernels import roofline

    peaks = np.array([100.0, 335.0, 989.0])
    out = roofline(peak_tflops=peaks, bandwidth_tbs=3.35, intensity=100.0)
    assert out["attainable_tflops"].tolist() == approx([100.0, 335.0, 335.0])
    assert out["bound"].tolist() == ["compute", "compute", "memory"]
