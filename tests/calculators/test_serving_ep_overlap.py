"""serving_estimate's serving-stack terms (issue 32, serving-dev): the KV cache precision
that follows the checkpoint (kv_precision auto), paged admission at the mean resident
length, DeepEP's low-latency all-to-all, two-batch overlap and prefill under attention
data parallelism. Every figure is worked out by hand in the comments."""

from __future__ import annotations

import pytest

from calculators.kernels import serving_estimate
from tests.calculators.moe_model import MOE  # 100B total, 28B active, 10 experts, top-2

DENSE = dict(
    params_b=8, layers=32, heads=32, kv_heads=8, head_dim=128, device_memory_gb=80,
    bandwidth_tbs=3.35, peak_tflops=989, prompt_tokens=1000, output_tokens=1000,
    concurrency=16,
)  # fmt: skip


@pytest.mark.parametrize(
    ("weights", "kv", "kv_bytes"),
    [
        # 2 × 32 layers × 8 KV heads × 128 × bytes: 65,536 per byte of element
        ("bf16", "bf16", 131_072),
        ("fp8", "fp8", 65_536),
        ("fp4", "fp8", 65_536),  # NVFP4 checkpoints ship an FP8 KV cache, not FP4
        ("int4", "bf16", 131_072),  # weight-only AWQ/GPTQ keeps the BF16 activations' cache
    ],
)
def test_kv_precision_auto_follows_the_checkpoint(weights: str, kv: str, kv_bytes: int) -> None:
    out = serving_estimate(**DENSE, weight_precision=weights)  # kv_precision left at auto
    assert str(out["kv_precision_used"]) == kv
    assert float(out["kv_bytes_per_token"]) == kv_bytes
    given = serving_estimate(**DENSE, weight_precision=weights, kv_precision="bf16")
    assert float(given["kv_bytes_per_token"]) == 131_072  # a given precision is kept


def test_kv_auto_under_mla_follows_the_attention_precision() -> None:
    # MLA: 10 layers × (512 + 64) × 2 B (BF16 attention, FlashMLA's cache) = 11,520 B,
    # although the weights are FP8; FP8 attention gives 5,760.
    mla = {**MOE, "weight_precision": "fp8", "kv_precision": "auto", "kv_lora_rank": 512,
           "rope_head_dim": 64}  # fmt: skip
    assert float(serving_estimate(**mla)["kv_bytes_per_token"]) == 11_520
    fp8 = serving_estimate(**mla, attention_precision="fp8")
    assert float(fp8["kv_bytes_per_token"]) == 5_760


def test_paged_admission_counts_the_mean_resident_length() -> None:
    # Llama-3-8B-like at FP8 on one 80 GB GPU: weights 8 GB, pool 80 × 0.9 − 8 = 64 GB,
    # 65,536 B a token (FP8 KV): ⌊64e9 / 65,536⌋ = 976,562 tokens. A request of 1,000 +
    # 1,000 holds 1,000 + 500 on average: ⌊976,562 / 1,500⌋ = 651 (not ⌊/2,000⌋ = 488).
    out = serving_estimate(**DENSE, weight_precision="fp8")
    assert int(out["kv_capacity_tokens"]) == 976_562
    assert int(out["max_concurrency"]) == 651


def test_deepep_low_latency_all_to_all_by_hand() -> None:
    # ep = tp = 4 on one node of 8 (off-node share 0, on-node 3/4 over NVLink at the
    # default 450 GB/s × 0.82). Each GPU holds 8 / 4 = 2 tokens; each goes to top-2 experts
    # as 4,096 BF16 values (the weights are BF16) and comes back BF16: 2 × 2 × 4,096 ×
    # (2 + 2) B = 65,536 B a layer. Per layer: two 5 µs latencies + 65,536 × 0.75 /
    # 369e9 s = 10 µs + 0.1332 µs; over 10 layers 0.101332 ms.
    out = serving_estimate(**MOE, ep=4, overlap="none")
    per_layer_s = 2 * 5e-6 + 65_536 * 0.75 / (450e9 * 0.82)
    assert float(out["a2a_ms"]) == pytest.approx(10 * per_layer_s * 1e3)
    plain = serving_estimate(**MOE, overlap="none")
    added = float(out["itl_ms"]) - float(plain["itl_ms"])
    # ep = 4 also moves the weight layout only if dp_attention; here the same layout (tp 4)
    assert added == pytest.approx(10 * per_layer_s * 1e3)


def test_deepep_across_nodes_goes_over_the_nic_with_fp8_dispatch() -> None:
    # ep = tp = 16 over nodes of 8: half of each GPU's bytes leave the node through its
    # 400 Gb/s NIC (50 GB/s × 0.82 = 41 GB/s), 7/16 stay on NVLink (slower share: the NIC).
    # FP8 weights: dispatch at 1 + 4/128 = 1.03125 B an element, combine 2 B.
    # 8 / 16 = 0.5 token a GPU × 2 experts × 4,096 × 3.03125 B = 12,416 B; × 0.5 / 41e9 s
    # = 0.151415 µs, plus 10 µs; 10 layers: 0.10151415 ms.
    wide = {**MOE, "tp": 16, "weight_precision": "fp8"}
    out = serving_estimate(**wide, ep=16, overlap="none")
    per_layer_s = 2 * 5e-6 + 12_416 * 0.5 / (50e9 * 0.82)
    assert float(out["a2a_ms"]) == pytest.approx(10 * per_layer_s * 1e3)
    # the bulk NCCL all-to-all pays ep − 1 = 15 latency steps per collective instead of one
    bulk = serving_estimate(**wide, ep=16, a2a_backend="nccl")
    assert float(bulk["a2a_ms"]) > 2 * 10 * 15 * 5e-6 * 1e3


def test_two_batch_overlap_takes_the_larger_of_step_and_all_to_all() -> None:
    # A slow network so the all-to-all dominates: 1 Gb/s NIC (0.125 GB/s × 0.82), ep = tp
    # = 16 over nodes of 8, BF16 (2 + 2 B): 0.5 × 2 × 4,096 × 4 B = 16,384 B × 0.5 /
    # 102.5e6 B/s = 79.92 µs + 10 µs a layer: 0.89922 ms over 10 layers.
    kw = {**MOE, "tp": 16, "ep": 16, "nic_gbps": 1.0}
    none = serving_estimate(**kw, overlap="none")
    tbo = serving_estimate(**kw, overlap="two_batch")
    a2a = 10 * (2 * 5e-6 + 16_384 * 0.5 / (1e9 / 8 * 0.82)) * 1e3
    assert float(none["a2a_ms"]) == pytest.approx(a2a)
    # none: composed step + all-to-all. The step: weights 200 GB / 16 per GPU read at 16 ×
    # 1 TB/s = 12.5 ms, KV 8 × 1,050 × 40,960 B / 16e12 = 0.0215 ms; compute 8 × (56e9 +
    # 10 × 1,050 × 4,096) / (16 × 100e12 × 0.5) = 0.56054 ms: (m⁴ + c⁴)^¼ ≈ m.
    m = 12.5 + 8 * 1050 * 40960 / 16e12 * 1e3
    c = 8 * (56e9 + 10 * 1050 * 4096) / (16 * 100e12 * 0.5) * 1e3
    assert float(none["itl_ms"]) == pytest.approx((m**4 + c**4) ** 0.25 + a2a)
    # two_batch: each micro-batch reads the weights, m' = m + 12.5 ms, and the step is
    # max((m'⁴ + c⁴)^¼, all-to-all) = 25.02 ms against 0.90 ms of all-to-all.
    m2 = m + 12.5
    assert float(tbo["memory_ms"]) == pytest.approx(m2)
    assert float(tbo["itl_ms"]) == pytest.approx(max((m2**4 + c**4) ** 0.25, a2a))
    # and with the network slow enough to dominate (0.01 Gb/s: 100 × the transfer time)
    slow = serving_estimate(**{**kw, "nic_gbps": 0.01}, overlap="two_batch")
    a2a_slow = 10 * (2 * 5e-6 + 16_384 * 0.5 / (0.01e9 / 8 * 0.82)) * 1e3
    assert float(slow["itl_ms"]) == pytest.approx(a2a_slow)  # 799.3 ms > 25 ms of step


def test_overlap_is_moot_without_expert_parallelism() -> None:
    a = serving_estimate(**MOE, overlap="none")
    b = serving_estimate(**MOE, overlap="two_batch")
    assert float(a["itl_ms"]) == float(b["itl_ms"]) and float(b["a2a_ms"]) == 0.0


def test_dp_attention_prefills_one_prompt_per_rank_by_hand() -> None:
    # dp_attention at ep = 1: dense 20 GB on each GPU + experts 180 / 4 = 65 GB a GPU.
    # One prompt on one GPU: 2 × 28e9 × 1,000 + 2 × 10 × 1,000² × 8 × 128 = 5.602048e13
    # FLOPs over 100e12 × 0.5 = 1,120.41 ms, composed with the rank's 65 GB read at 1 TB/s
    # = 65 ms: (1120.41⁴ + 65⁴)^¼ = 1,120.41 ms (+0.0003%). Four ranks prefill at once:
    # a replica of 4 GPUs takes 4 × 1,000 tokens per 1.12041 s, 892.53 tokens/s a GPU.
    out = serving_estimate(**MOE, dp_attention=True)
    compute = 5.602048e13 / (100e12 * 0.5) * 1e3
    prefill = (compute**4 + 65.0**4) ** 0.25
    assert float(out["prefill_ms"]) == pytest.approx(prefill)
    assert float(out["prefill_tokens_per_s_per_gpu"]) == pytest.approx(4 * 1000 / prefill * 1e3 / 4)
    # the round's prefill work is spread over the 4 ranks: 8 × prefill / 4
    request = 8 * prefill / 4 + 100 * float(out["itl_ms"])
    assert float(out["request_s"]) == pytest.approx(request / 1e3)
    # plain TP splits one prompt over the 4 GPUs: a quarter of the time
    tp = serving_estimate(**MOE)
    tp_prefill = ((compute / 4) ** 4 + (50.0) ** 4) ** 0.25  # 50 GB a GPU under TP
    assert float(tp["prefill_ms"]) == pytest.approx(tp_prefill)
    pool = serving_estimate(**MOE, dp_attention=True, pool="prefill")
    assert float(pool["tokens_per_s_total"]) == pytest.approx(4 * 1000 / prefill * 1e3)


def test_blackwell_ultra_presets_carry_fp4_and_interconnect() -> None:
    from calculators.presets import GPUS

    # HGX B300: 105 PFLOPS dense FP4 over 8 GPUs = 13,125 TFLOP/s; GB300 NVL72: 1,080
    # PFLOPS dense over 72 = 15,000. Both: NVLink 5 (900 GB/s a direction), ConnectX-8.
    b300, gb300 = GPUS["b300"], GPUS["gb300"]
    assert b300.peaks["fp4"] == pytest.approx(105_000 / 8)
    assert gb300.peaks["fp4"] == pytest.approx(1_080_000 / 72)
    assert (b300.nvlink_gbs, b300.nvl_domain, b300.nic_gbps) == (900, 8, 800)
    assert (gb300.nvlink_gbs, gb300.nvl_domain, gb300.nic_gbps) == (900, 72, 800)


def test_prefill_all_to_all_crosses_the_network_once_per_remote_node() -> None:
    # DeepEP's normal (prefill) kernels forward over NVLink inside the destination node.
    # tp = ep = 16 over nodes of 8 (N = 2 nodes), top-2: a token's 2 experts touch on
    # average (N − 1)(1 − (1 − 1/N)^k) = 1 × (1 − 0.25) = 0.75 remote nodes. A prompt of
    # 1,000 tokens split over the 16 GPUs: 62.5 tokens each × 4,096 × (2 + 2 B, BF16 both
    # ways) × 0.75 = 768,000 B over the NIC at 41 GB/s = 18.732 µs (the NVLink share,
    # 62.5 × 2 × 4,096 × 4 × 7/16 / 369e9 = 2.428 µs, runs beside it), + 2 × 5 µs;
    # 10 layers: 0.28732 ms added to prefill_ms (overlap none, the default).
    wide = {**MOE, "tp": 16}
    with_ep = serving_estimate(**wide, ep=16)
    plain = serving_estimate(**wide)
    per_layer_s = 2 * 5e-6 + 62.5 * 4096 * 4 * 0.75 / (50e9 * 0.82)
    added = float(with_ep["prefill_ms"]) - float(plain["prefill_ms"])
    assert added == pytest.approx(10 * per_layer_s * 1e3)
    # decode's low-latency kernels send one copy per expert: 0.5 × 2 copies = 1 per token
    decode_added = float(with_ep["itl_ms"]) - float(plain["itl_ms"])
    per_layer_decode = 2 * 5e-6 + 0.5 * 2 * 4096 * 4 * 0.5 / (50e9 * 0.82)
    assert decode_added == pytest.approx(10 * per_layer_decode * 1e3)
