"""Issue 32, collectives and training: NCCL-style algorithm choice, per-link efficiency,
all-to-all latency per peer, the labels of the worked steps, and the pipeline bubble
against Megatron-LM's formula. Every expected number is worked out by hand in a comment."""

from __future__ import annotations

import math

import pytest

from calculators.compute import run_inline
from calculators.kernels import collective_time, training_budget
from calculators.specs import SPECS


def _lines(result: dict) -> list[str]:
    return [line for block in result["steps"] for line in block["lines"]]


def test_auto_picks_the_tree_for_a_1984_gpu_all_reduce_not_3966_ring_steps() -> None:
    # 1,984 GPUs = 248 nodes of 8, 1 GB, 5 µs a step, 450 GB/s NVLink, 8 × 400 Gb/s NICs.
    # factor = 2 · 1983/1984 = 1.998992; NVLink 450 · 0.82 = 369; network 400 · 0.93 = 372.
    # ring: max(1.998992/369, 1.998992/372) s = 5.41732 ms + 2·1983 = 3966 steps · 5 µs
    #       = 19.83 ms → 25.24732 ms.
    # tree: bandwidth × 0.92: 1.998992 / 339.48 = 5.88837 ms (NVLink the slower stage)
    #       + 2·((8 − 1) + ⌈log2 248⌉ = 8) = 30 steps · 5 µs = 0.15 ms → 6.03837 ms.
    kw = dict(op="all_reduce", message_mb=1000, gpus=1984, latency_us=5)
    out = collective_time(**kw, nvls=False)
    factor = 2 * 1983 / 1984
    ring_ms = factor / 369 * 1e3 + 3966 * 5e-3
    tree_ms = factor / (369 * 0.92) * 1e3 + 30 * 5e-3
    assert float(out["ring_ms"]) == pytest.approx(ring_ms)
    assert float(out["tree_ms"]) == pytest.approx(tree_ms)
    assert out["algorithm_used"].item() == "tree"
    assert float(out["time_ms"]) == pytest.approx(tree_ms)
    assert math.isnan(float(out["nvls_ms"]))  # not offered without NVLS
    # With NVLS (NVLS-tree across nodes): max(1 GB / (450 · 0.61 = 274.5), 1.998992 / 372)
    # = max(3.64299, 5.37363) ms + (2 + 2·8 = 18) · 5 µs = 5.46363 ms: the least of three.
    nvls = collective_time(**kw)
    nvls_ms = factor / 372 * 1e3 + 18 * 5e-3
    assert float(nvls["nvls_ms"]) == pytest.approx(nvls_ms)
    assert nvls["algorithm_used"].item() == "nvls"
    assert float(nvls["time_ms"]) == pytest.approx(nvls_ms)
    # Asking for ring still gets the ring (NCCL_ALGO=RING).
    forced = collective_time(**kw, algorithm="ring")
    assert float(forced["time_ms"]) == pytest.approx(ring_ms)


def test_auto_inside_one_node_keeps_the_ring_over_the_tree() -> None:
    # 8 GPUs, one node: tree = a chain, 2·(8 − 1) = 14 steps like the ring but at 0.92 of
    # its bandwidth, so the ring wins: 1.75 · 0.1 GB / 369 GB/s + 14 · 5 µs = 0.54566 ms.
    out = collective_time(op="all_reduce", message_mb=100, gpus=8, nvls=False)
    assert out["algorithm_used"].item() == "ring"
    assert float(out["time_ms"]) == pytest.approx(1.75 * 0.1 / 369 * 1e3 + 0.07)


def test_each_stage_runs_at_its_own_efficiency() -> None:
    # 2 nodes of 8 A100s: NVLink 300 GB/s, 8 × 200 Gb/s NICs = 200 GB/s a node, 8 GB, no
    # latency. NVLink stage 300 · 0.82 = 246 GB/s, network 200 · 0.93 = 186 GB/s: the
    # network is slower, time = factor · S / 186, so busbw = 186 GB/s exactly.
    kw = dict(
        op="all_reduce", message_mb=8000, gpus=16, intra_gbs=300, nic_gbps=200,
        latency_us=0, algorithm="ring",
    )  # fmt: skip
    out = collective_time(**kw)
    assert float(out["busbw_gbs"]) == pytest.approx(186)
    assert out["bottleneck"].item() == "inter"
    assert float(out["inter_gbs"]) == pytest.approx(186)
    assert float(out["net_efficiency"]) == 0.93 and float(out["link_efficiency"]) == 0.82
    # The network at half its line rate: 100 GB/s.
    assert float(collective_time(**kw, net_efficiency=0.5)["busbw_gbs"]) == pytest.approx(100)
    # NVLink at half: 150 GB/s < 186, so NVLink becomes the slower stage.
    slow = collective_time(**kw, protocol_efficiency=0.5)
    assert float(slow["busbw_gbs"]) == pytest.approx(150)
    assert slow["bottleneck"].item() == "intra"
    # One node: no network stage, no network efficiency.
    assert math.isnan(float(collective_time(**{**kw, "gpus": 8})["net_efficiency"]))


def test_all_to_all_pays_one_latency_per_peer_whatever_the_algorithm() -> None:
    # 64 GPUs, a 1-byte buffer: bandwidth time ~0, each rank sends to 63 peers at 5 µs
    # each: 0.315 ms, not one step (0.005 ms) nor a tree's log2 64 = 6 steps (0.03 ms).
    for algorithm in ("auto", "ring", "tree", "nvls"):
        out = collective_time(op="all_to_all", message_mb=1e-6, gpus=64, algorithm=algorithm)
        assert float(out["time_ms"]) == pytest.approx(63 * 5e-3, rel=1e-3), algorithm
        assert out["algorithm_used"].item() == "all_to_all"


def test_the_network_step_names_its_figure_effective_not_line_rate() -> None:
    # 8 × 400 Gb/s = 400 GB/s line rate; × 0.93 = 372 GB/s effective.
    result = run_inline("collective_time", {"op": "all_reduce", "message_mb": 1000, "gpus": 16})
    lines = _lines(result)
    network = next(line for line in lines if line.startswith("network per node"))
    assert "400 GB/s line rate × 0.93 = 372 GB/s effective" in network
    assert not any("figures below are line rates" in line for line in lines)
    assert any(line.startswith("auto: ring") and "→ nvls" in line for line in lines)
    labels = {o.name: o.label for o in SPECS["collective_time"].outputs}
    assert "effective" in labels["inter_gbs"]


def test_pipeline_bubble_follows_megatron() -> None:
    # Megatron-LM (Narayanan et al. 2021, §2.2): 1F1B bubble = (p − 1)/m of the ideal
    # time; interleaved with v chunks, (p − 1)/(v·m). p = 8, m = 32: 7/32 = 0.21875;
    # v = 2: 7/64 = 0.109375. Idle share of the run 0.109375 / 1.109375 = 0.098592.
    base = dict(params_b=175, tokens_b=300, gpus=1024, peak_tflops=312, mfu=0.4, pp=8)
    plain = training_budget(**base, microbatches=32)
    inter = training_budget(**base, microbatches=32, virtual_stages=2)
    assert float(plain["bubble_overhead"]) == pytest.approx(7 / 32)
    assert float(inter["bubble_overhead"]) == pytest.approx(7 / 64)
    assert float(inter["pipeline_bubble"]) == pytest.approx(0.109375 / 1.109375)
    # ideal days: 6 · 175e9 · 300e9 = 3.15e23 FLOP / (1024 · 312e12 · 0.4) = 2.4650e6 s
    # = 28.530 days; × (1 + 7/64) = 31.650 days.
    ideal = 3.15e23 / (1024 * 312e12 * 0.4) / 86400
    assert float(inter["days"]) == pytest.approx(ideal * (1 + 7 / 64))
    assert float(plain["days"]) == pytest.approx(ideal * (1 + 7 / 32))
    # What is shown as mfu_used is the rate while computing; the run's MFU is lower.
    assert float(inter["mfu_used"]) == 0.4
    assert float(inter["mfu_run"]) == pytest.approx(0.4 / (1 + 7 / 64))
    # No pipeline, no bubble: the two MFUs agree.
    flat = training_budget(**{**base, "pp": 1})
    assert float(flat["mfu_run"]) == 0.4 and float(flat["bubble_overhead"]) == 0.0


def test_a_sweep_over_algorithms_and_ops_equals_one_call_per_point() -> None:
    # The vectorised choice (one code per cell) must give what each point gives alone.
    ops = ["all_reduce", "all_reduce", "all_reduce", "all_reduce", "all_to_all", "all_gather"]
    algos = ["auto", "ring", "tree", "nvls", "auto", "tree"]
    swept = collective_time(op=ops, message_mb=300, gpus=64, algorithm=algos)
    for i, (op, algorithm) in enumerate(zip(ops, algos, strict=True)):
        alone = collective_time(op=op, message_mb=300, gpus=64, algorithm=algorithm)
        for key in ("time_ms", "busbw_gbs", "link_efficiency"):
            assert float(swept[key][i]) == pytest.approx(float(alone[key])), (i, key)
        assert swept["algorithm_used"][i] == alone["algorithm_used"].item()
        assert swept["bottleneck"][i] == alone["bottleneck"].item()


@pytest.mark.parametrize(
    ("preset", "nvls"),
    [("h100-sxm", True), ("b200", True), ("a100-80gb", False), ("h100-pcie", False)],
)
def test_a_preset_says_whether_its_nvswitch_offers_nvls(preset, nvls) -> None:
    # A100's NVSwitch and NVLink bridges have no NVLink SHARP: auto must not pick NVLS there.
    # 8 GPUs, 1 GiB: NVLS's 2 steps beat the ring's 14 wherever it is offered.
    result = run_inline("collective_time", {"message_mb": 1024, "gpus": 8}, preset=preset)
    used = result["outputs"]["algorithm_used"]
    assert (used == ["nvls"] or used == "nvls") is nvls
    assert any("nvls not offered" in line for line in _lines(result)) is not nvls


def test_one_gpu_per_node_never_gets_nvls() -> None:
    # HSDP's cross-node groups: 64 nodes, one GPU of the job on each. NCCL sets NVLS up only
    # with two or more of the job's GPUs on a node, so auto chooses between ring and tree.
    result = run_inline(
        "collective_time",
        {"message_mb": 1024, "gpus": 64, "gpus_per_node": 1},
        preset="h100-sxm",
    )
    assert result["outputs"]["algorithm_used"] in ("ring", "tree", ["ring"], ["tree"])
    assert any("NCCL needs two GPUs of the job on a node" in line for line in _lines(result))
    assert result["outputs"]["nvls_ms"] in (None, [None])  # not a candidate (nan, shown empty)
