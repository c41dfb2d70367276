"""compute(): JSON results with steps, texts, table and chart for every calculator."""

import json

import pytest

from calculators.charts import render_chart
from calculators.compute import run_inline
from calculators.specs import SPECS


@pytest.mark.parametrize("slug", list(SPECS))
def test_every_example_computes_to_strict_json(slug):
    result = run_inline(slug, SPECS[slug].example)
    json.dumps(result, allow_nan=False)
    assert result["steps"] and all(s["lines"] for s in result["steps"])
    assert result["establishes"] and result["needs_measurement"]
    assert result["chart"]["type"] in {"roofline", "line", "bars", "mig", "serving"}
    assert render_chart(result["chart"], uid="t").startswith("<svg")
    declared = {o.name for o in SPECS[slug].outputs}
    assert set(result["outputs"]) <= declared


def test_outputs_keep_the_broadcast_shape_and_integers():
    result = run_inline(
        "kv_cache", {"layers": 32, "kv_heads": 8, "head_dim": 128, "seq_len": [1024, 2048, 4096]}
    )
    assert result["shape"] == [3]
    assert len(result["outputs"]["total_gb"]) == 3
    assert len(result["steps"]) == 3  # up to three columns get their own steps
    result = run_inline("sliding_window", {"seq_len": 10, "window": 4, "mask": "causal"})
    assert result["outputs"]["window_pairs"] == 34 and isinstance(
        result["outputs"]["window_pairs"], int
    )


def test_steps_substitute_numbers_with_units():
    result = run_inline("decode_bound", {"params_b": 6.575, "bytes_per_param": 2}, "a100-80gb")
    text = "\n".join(result["steps"][0]["lines"])
    assert "13.15 GB" in text and "2.039 TB/s" in text and "6.449 ms" in text


def test_generated_texts_name_the_factor():
    result = run_inline("roofline", {"intensity": 62}, "h100-sxm")
    assert any("memory-bound by a factor of 4.8" in t for t in result["establishes"])
    assert any("spec-sheet" in t for t in result["needs_measurement"])


def test_fallback_comparison_says_fewer_operators_slower():
    result = run_inline("fallback_latency", SPECS["fallback_latency"].example)
    assert result["establishes"][0].startswith("The graph with 9 fewer operators is 1.1 ms slower")
    assert result["chart"]["type"] == "bars" and result["chart"]["stacked"]


def test_infinite_values_become_null():
    result = run_inline(
        "decode_bound",
        {
            "params_b": 1,
            "bytes_per_param": 2,
            "bandwidth_tbs": 1,
            "peak_tflops": 1,
            "kv_gb_per_seq": 10,
        },
    )
    assert result["outputs"]["compute_bound_batch"] is None
    assert any("never catches up" in t for t in result["establishes"])


def test_large_sweep_describes_first_point_and_truncates_table():
    result = run_inline(
        "decode_bound",
        {
            "params_b": 8,
            "bytes_per_param": 2,
            "bandwidth_tbs": 3.35,
            "batch_size": list(range(1, 1001)),
        },
    )
    assert len(result["outputs"]["tokens_per_s_total"]) == 1000
    assert result["steps"][0]["title"].startswith("First of 1,000 points")
    assert result["table"]["truncated"]


def test_mig_chart_data():
    chart = run_inline("mig", {"profile": "1g.10gb", "model_gb": 5}, "h100-sxm")["chart"]
    col = chart["columns"][0]
    assert col["instances"] == 7 and col["compute_slices"] == 1 and col["idle_sms"] == 20


@pytest.mark.parametrize(
    "op,binary",
    [
        ("all_reduce", "all_reduce_perf"),
        ("all_gather", "all_gather_perf"),
        ("reduce_scatter", "reduce_scatter_perf"),
        ("all_to_all", "alltoall_perf"),
        ("broadcast", "broadcast_perf"),
    ],
)
def test_the_collective_box_names_the_nccl_test_of_its_own_operation(op, binary):
    """An all-to-all box told readers to measure with all_reduce_perf (review, Dec 2026)."""
    result = run_inline("collective_time", {"op": op, "message_mb": 100, "gpus": 16})
    advice = " ".join(result["needs_measurement"])
    assert f"({binary} " in advice
    assert all(
        f"({other} " not in advice
        for other in {
            "all_reduce_perf",
            "all_gather_perf",
            "reduce_scatter_perf",
            "alltoall_perf",
            "broadcast_perf",
        }
        - {binary}
    )


def test_the_collective_summary_names_an_algorithm_only_where_there_is_a_choice():
    a2a = run_inline("collective_time", {"op": "all_to_all", "message_mb": 64, "gpus": 16})
    assert a2a["establishes"][0].startswith("A 64 MB all_to_all over 16 GPUs takes about")
    assert "with all_to_all" not in a2a["establishes"][0]
    ar = run_inline("collective_time", {"op": "all_reduce", "message_mb": 64, "gpus": 16})
    used = ar["outputs"]["algorithm_used"]
    assert f"with {used}," in ar["establishes"][0]
