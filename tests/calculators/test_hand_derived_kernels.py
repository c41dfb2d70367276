"""paged_kv_capacity, speculative_decoding, queueing and training_budget: two more
cases each, worked by hand in the docstring from the formula in the kernel's module
docstring (issue 17: at least three hand derivations per new calculator).

Inputs are non-trivial (several servers, draft cost and overhead > 0, MFU < 1, dp other
than the GPU count, a reserve and a utilisation < 1) and most cases are swept as arrays,
so a dropped factor, a swapped operand or a lost broadcast axis changes a figure.
No database.
"""

import math

import numpy as np
from pytest import approx

from calculators.kernels import (
    paged_kv_capacity,
    queueing,
    speculative_decoding,
    training_budget,
)

# ---------------------------------------------------------------- paged_kv_capacity


def test_paged_mla_fp8_pool_after_utilisation_weights_and_reserve():
    """An MLA model (61 layers, latent 512 + RoPE key 64) with its cache in FP8 (1 byte):
    61 × (512 + 64) × 1 = 35,136 bytes per token.
    pool = 141 GB × 0.9 − 100 − 6.9 = 20 GB. A 64-token block is 64 × 35,136 =
    2,248,704 bytes: ⌊20e9 / 2,248,704⌋ = ⌊8,894.01⌋ = 8,894 blocks = 569,216 tokens.
    A 3,000-token sequence holds ⌈3000/64⌉ = 47 blocks (3,008 tokens): ⌊8,894/47⌋ = 189
    sequences, wasting 8/3008. Reserving 8,192 tokens each: ⌊20e9 / (8192 × 35,136)⌋ =
    ⌊69.48⌋ = 69 sequences, wasting (8192 − 3000)/8192 = 5192/8192."""
    out = paged_kv_capacity(
        device_memory_gb=141,
        gpu_memory_utilization=0.9,
        weights_gb=100,
        reserve_gb=6.9,
        block_size=64,
        mean_tokens=3000,
        max_tokens=8192,
        layers=61,
        kv_lora_rank=512,
        rope_head_dim=64,
        kv_precision="fp8",
    )
    assert out["kv_bytes_per_token"] == 35_136
    assert out["kv_pool_gb"] == approx(20.0)
    assert out["blocks"] == 8_894
    assert out["tokens_capacity"] == 569_216
    assert out["blocks_per_seq"] == 47
    assert out["max_seqs_paged"] == 189
    assert out["max_seqs_reserved"] == 69
    assert out["waste_fraction_paged"] == approx(8 / 3008)
    assert out["waste_fraction_reserved"] == approx(5192 / 8192)


def test_paged_smaller_blocks_waste_less_and_hold_more_sequences():
    """Same 48 GB pool (80 × 0.85 − 16 − 4) and 131,072 bytes per token, block size 16
    against 32. Blocks: ⌊48e9 / (16 × 131,072)⌋ = ⌊22,888.18⌋ = 22,888 and
    ⌊48e9 / (32 × 131,072)⌋ = 11,444, both 366,208 tokens. A 1,000-token sequence holds
    ⌈1000/16⌉ = 63 blocks (1,008 tokens) or ⌈1000/32⌉ = 32 (1,024): ⌊22,888/63⌋ = 363
    against ⌊11,444/32⌋ = 357 sequences, wasting 8/1008 against 24/1024. Reserving
    4,096 tokens does not depend on the block: ⌊48e9 / (4096 × 131,072)⌋ = 89."""
    out = paged_kv_capacity(
        device_memory_gb=80,
        gpu_memory_utilization=0.85,
        weights_gb=16,
        reserve_gb=4,
        kv_bytes_per_token=131072,
        block_size=[16, 32],
        mean_tokens=1000,
        max_tokens=4096,
    )
    assert out["kv_pool_gb"].tolist() == approx([48.0, 48.0])
    assert out["blocks"].tolist() == [22_888, 11_444]
    assert out["tokens_capacity"].tolist() == [366_208, 366_208]
    assert out["blocks_per_seq"].tolist() == [63, 32]
    assert out["max_seqs_paged"].tolist() == [363, 357]
    assert out["max_seqs_reserved"].tolist() == [89, 89]
    assert out["waste_fraction_paged"].tolist() == approx([8 / 1008, 24 / 1024])


# ---------------------------------------------------------------- speculative_decoding


def test_speculative_speedup_and_best_draft_by_hand():
    """Two cases in one sweep, each with a draft cost and a verification overhead.

    α = 0.6, γ = 3, c = 0.1, overhead 0.05: tokens = (1 − 0.6⁴)/0.4 = 0.8704/0.4 =
    2.176; cost = 3 × 0.1 + 1 + 0.05 = 1.35; speed-up 2.176/1.35 = 1.61185. Over γ:
    γ=1 1.6/1.15 = 1.3913, γ=2 1.96/1.25 = 1.568, γ=3 1.6119, γ=4 2.3056/1.45 = 1.5901,
    and it falls from there, so the best γ is 3.

    α = 0.5, γ = 2, c = 0.25, overhead 0.2: tokens = (1 − 0.125)/0.5 = 1.75; cost =
    0.5 + 1 + 0.2 = 1.7; speed-up 1.02941. γ=1 gives 1.5/1.45 = 1.03448 and γ=3
    1.875/1.95 = 0.9615, so the best γ is 1, not the one asked about."""
    out = speculative_decoding(
        acceptance_rate=[0.6, 0.5],
        draft_tokens=[3, 2],
        draft_cost_ratio=[0.1, 0.25],
        verify_overhead=[0.05, 0.2],
    )
    assert out["expected_tokens_per_step"].tolist() == approx([2.176, 1.75])
    assert out["step_cost"].tolist() == approx([1.35, 1.7])
    assert out["speedup"].tolist() == approx([2.176 / 1.35, 1.75 / 1.7])
    assert out["best_draft_tokens"].tolist() == [3, 1]
    assert out["best_speedup"].tolist() == approx([2.176 / 1.35, 1.5 / 1.45])


def test_speculation_with_every_draft_accepted_yields_gamma_plus_one():
    """α = 1: (1 − α^(γ+1))/(1 − α) is 0/0, the limit is γ + 1 tokens. γ = 5, c = 0.04,
    overhead 0.1: 6 tokens for 5 × 0.04 + 1 + 0.1 = 1.3, a speed-up of 4.6154. With
    every draft accepted the speed-up grows with γ as long as (γ+1)/(0.04γ + 1.1)
    grows, which it does up to the cap of 16: 17/1.74 = 9.7701."""
    out = speculative_decoding(
        acceptance_rate=1.0, draft_tokens=5, draft_cost_ratio=0.04, verify_overhead=0.1
    )
    assert out["expected_tokens_per_step"] == approx(6.0)
    assert out["step_cost"] == approx(1.3)
    assert out["speedup"] == approx(6 / 1.3)
    assert out["best_draft_tokens"] == 16
    assert out["best_speedup"] == approx(17 / 1.74)


# ---------------------------------------------------------------- queueing


def test_two_server_queue_by_hand():
    """M/M/2 with λ = 3/s and s = 0.5 s: a = 1.5 erlangs, ρ = 0.75. Erlang B:
    B(1) = 1.5/2.5 = 0.6, B(2) = 1.5 × 0.6/(2 + 0.9) = 0.9/2.9. Erlang C =
    B/(1 − ρ(1 − B)) = (0.9/2.9)/(1 − 0.75 × 2/2.9) = 0.9/1.4 = 9/14 (the closed form
    for two servers, 2ρ²/(1 + ρ) = 1.125/1.75, agrees). The backlog drains at
    c/s − λ = 4 − 3 = 1/s: mean wait 9/14 s, mean response 9/14 + 0.5 s, and
    p99 wait ln(100 × 9/14)/1 = ln(64.2857) = 4.1633 s."""
    out = queueing(arrival_rate=3.0, service_s=0.5, servers=2)
    assert out["offered_load"] == approx(1.5)
    assert out["utilization"] == approx(0.75)
    assert out["wait_probability"] == approx(9 / 14)
    assert out["mean_wait_s"] == approx(9 / 14)
    assert out["mean_response_s"] == approx(9 / 14 + 0.5)
    assert out["p99_wait_s"] == approx(math.log(900 / 14))


def test_three_servers_p99_just_above_and_below_one_percent():
    """c = 3, s = 0.5 s, so the backlog drains at 6/s − λ.

    λ = 1: a = 0.5, ρ = 1/6. B(1) = 0.5/1.5 = 1/3, B(2) = (1/6)/(2 + 1/6) = 1/13,
    B(3) = (1/26)/(3 + 1/26) = 1/79. C = (1/79)/(1 − (1/6)(78/79)) = (1/79)/(66/79) =
    1/66 = 1.52 % > 1 %. Drain 5/s: mean wait (1/66)/5 = 1/330 s, response 0.5 + 1/330,
    p99 = ln(100/66)/5 = 0.083103 s.

    λ = 0.5: a = 0.25, ρ = 1/12. B(1) = 0.2, B(2) = 0.05/2.05 = 1/41, B(3) =
    (0.25/41)/(3 + 0.25/41) = 1/493. C = (1/493)/(1 − (1/12)(492/493)) =
    (1/493)/(452/493) = 1/452 = 0.22 % ≤ 1 %, so the p99 wait is zero; drain 5.5/s,
    mean wait (1/452)/5.5 s."""
    out = queueing(arrival_rate=[1.0, 0.5], service_s=0.5, servers=3)
    assert out["offered_load"].tolist() == approx([0.5, 0.25])
    assert out["utilization"].tolist() == approx([1 / 6, 1 / 12])
    assert out["wait_probability"].tolist() == approx([1 / 66, 1 / 452])
    assert out["mean_wait_s"].tolist() == approx([1 / 330, 1 / 452 / 5.5])
    assert out["mean_response_s"].tolist() == approx([0.5 + 1 / 330, 0.5 + 1 / 452 / 5.5])
    assert out["p99_wait_s"].tolist() == approx([math.log(100 / 66) / 5, 0.0])


# ---------------------------------------------------------------- training_budget


def test_training_zero_two_on_fewer_dp_ranks_than_gpus_with_a_price():
    """8B on 1T tokens: 6 × 8e9 × 1e12 = 4.8e22 FLOP. 256 GPUs at 989 TFLOP/s and 35 %
    MFU deliver 256 × 989e12 × 0.35 = 8.86144e16 FLOP/s: 541,672.6 s = 6.2694 days,
    256 × 541,672.6 / 3600 = 38,518.9 GPU-hours, × $3 = $115,556.8. ZeRO-2 over 32 dp
    ranks (tp × pp = 8): weights 2 bytes whole, gradients and optimizer (2 + 12)/32,
    2.4375 bytes per parameter, 8 × 2.4375 = 19.5 GB per GPU."""
    out = training_budget(
        params_b=8,
        tokens_b=1000,
        gpus=256,
        peak_tflops=989,
        mfu=0.35,
        gpu_cost_per_hour=3.0,
        zero_stage=2,
        dp=32,
    )
    seconds = 4.8e22 / (256 * 989e12 * 0.35)
    assert out["train_flops"] == approx(4.8e22)
    assert out["days"] == approx(seconds / 86400)
    assert out["gpu_hours"] == approx(256 * seconds / 3600)
    assert out["cost"] == approx(256 * seconds / 3600 * 3.0)
    assert out["state_bytes_per_param"] == approx(2.4375)
    assert out["state_gb_per_gpu"] == approx(19.5)


def test_training_more_gpus_shorten_the_run_not_its_gpu_hours():
    """13B on 300B tokens: 6 × 13e9 × 3e11 = 2.34e22 FLOP; at 312 TFLOP/s and 50 % MFU
    one GPU needs 2.34e22 / 1.56e14 = 1.5e8 s, 41,666.7 GPU-hours however many share it:
    16 GPUs take 1.5e8/16/86,400 = 108.51 days, 64 GPUs 27.13. dp defaults to the GPU
    count: ZeRO-1 on 16 shards only the optimizer, 2 + 2 + 12/16 = 4.75 bytes (61.75 GB
    for 13B); ZeRO-3 on 64 shards all 16 bytes, 0.25 bytes (3.25 GB). No price, no cost."""
    out = training_budget(
        params_b=13, tokens_b=300, gpus=[16, 64], peak_tflops=312, mfu=0.5, zero_stage=[1, 3]
    )
    assert out["train_flops"].tolist() == approx([2.34e22, 2.34e22])
    assert out["gpu_hours"].tolist() == approx([1.5e8 / 3600] * 2)
    assert out["days"].tolist() == approx([1.5e8 / 16 / 86400, 1.5e8 / 64 / 86400])
    assert out["state_bytes_per_param"].tolist() == approx([4.75, 0.25])
    assert out["state_gb_per_gpu"].tolist() == approx([61.75, 3.25])
    assert "cost" not in out
    assert np.shape(out["days"]) == (2,)
