"""Graded practice, the pure part: seeds, units, every named mistake, the author check.

Each mistaken answer is built here by hand from the variant's numbers (the formula with
the slip in it), not by asking the grader, so a grader that named the wrong mistake, or
whose right answer drifted from the formula, fails these tests.
"""

from __future__ import annotations

import math

import pytest

from calculators import grading as g
from calculators.model_catalog import MODELS

KV = {
    "target": {
        "calculator": "kv_cache",
        "output": "total_gb",
        "unit": "GB",
        "prompt": "How much KV cache does {model} need for {batch_size} sequences of "
        "{seq_len} tokens at {bytes_per_elem} bytes per element?",
    },
    "variables": {
        "model": ["llama-3.1-8b", "llama-3.1-70b"],
        "seq_len": [4096, 8192, 32768],
        "batch_size": {"min": 1, "max": 64},
        "bytes_per_elem": [1, 2],
    },
    "tolerance": 0.02,
    "mistakes": [
        "bits-for-bytes",
        "kv-counted-once",
        "missing-layers",
        "gb-vs-gib",
        "bf16-for-fp8",
    ],
    "follow_ups": [
        {"prompt": "Now at 128k context?", "set": {"seq_len": 131072}},
        {"prompt": "Now with an FP8 KV cache?", "set": {"bytes_per_elem": 1}},
    ],
}

TRAIN = {
    "target": {
        "calculator": "training_budget",
        "output": "days",
        "unit": "days",
        "prompt": "How many days does training a {params_b}B model on {tokens_b}B tokens "
        "take on {gpus} GPUs at {peak_tflops} dense TFLOP/s and {mfu} MFU?",
        "inputs": {"peak_tflops": 989, "mfu": 0.4},
    },
    "variables": {"params_b": [7, 13, 70], "tokens_b": [1000, 2000], "gpus": [256, 512, 1024]},
    "tolerance": 0.02,
    "mistakes": ["per-gpu-vs-total", "sparse-peak", "seconds-vs-ms"],
}

RESPONSE = {
    "target": {
        "calculator": "response_time",
        "output": "total_s",
        "unit": "s",
        "prompt": "TTFT is {ttft_ms} ms and ITL {itl_ms} ms: how long until the last of "
        "{output_tokens} tokens arrives?",
    },
    "variables": {
        "ttft_ms": [150, 300, 600],
        "itl_ms": [20, 30, 45],
        "output_tokens": {"min": 100, "max": 800, "step": 50},
    },
    "mistakes": ["seconds-vs-ms"],
}


def kv_bytes(variant: dict) -> tuple[float, dict]:
    m = MODELS[variant["model"]]
    parts = {
        "layers": m.layers,
        "kv_heads": m.kv_heads,
        "head_dim": m.head_dim,
        "b": variant["bytes_per_elem"],
        "tokens": variant["seq_len"] * variant["batch_size"],
    }
    total = 2 * parts["layers"] * parts["kv_heads"] * parts["head_dim"] * parts["b"]
    return total * parts["tokens"], parts


def test_the_same_learner_question_and_attempt_draw_the_same_numbers():
    spec = g.parse_spec(KV)
    first = g.draw(spec, g.seed_for("user:7", "q1", 3))
    assert g.draw(spec, g.seed_for("user:7", "q1", 3)) == first
    # a different attempt, learner or question draws afresh (over a few, some differ)
    others = [
        g.draw(spec, g.seed_for("user:7", "q1", 4)),
        g.draw(spec, g.seed_for("user:8", "q1", 3)),
        g.draw(spec, g.seed_for("user:7", "q2", 3)),
    ]
    assert any(o != first for o in others)
    seeds = {g.seed_for("user:7", "q1", n) for n in range(1, 200)}
    assert len(seeds) == 199
    assert len({str(g.draw(spec, s)) for s in seeds}) > 50


def test_variants_stay_inside_the_author_s_sets_and_ranges():
    spec = g.parse_spec(RESPONSE)
    for seed in range(300):
        v = g.draw(spec, seed)
        assert v["ttft_ms"] in (150, 300, 600)
        assert 100 <= v["output_tokens"] <= 800 and v["output_tokens"] % 50 == 0
        assert isinstance(v["output_tokens"], int)


def test_the_prompt_shows_the_variant_s_numbers():
    spec = g.parse_spec(KV)
    v = {"model": "llama-3.1-70b", "seq_len": 32768, "batch_size": 12, "bytes_per_elem": 2}
    assert g.prompt_for(spec, v) == (
        "How much KV cache does Llama 3.1 70B need for 12 sequences of 32,768 tokens at "
        "2 bytes per element?"
    )
    assert g.prompt_for(spec, v, 1) == "Now at 128k context?"
    assert g.with_follow_up(spec, v, 1)["seq_len"] == 131072


def test_the_right_answer_is_the_formula_and_is_accepted_in_any_unit():
    spec = g.parse_spec(KV)
    v = {"model": "llama-3.1-8b", "seq_len": 8192, "batch_size": 5, "bytes_per_elem": 2}
    total, _ = kv_bytes(v)
    assert g.expected(spec, v) == pytest.approx(total / 1e9)
    for value, unit in [
        (total / 1e9, "GB"),
        (total / 2**30, "GiB"),
        (total / 1e6, "MB"),
        (total / 2**20, "MiB"),
        (total, "bytes"),
        (total / 1e12, "TB"),
        (total / 1e9 * 1.015, "GB"),  # inside 2%
    ]:
        assert g.grade(spec, v, value, unit).correct, (value, unit)
    assert not g.grade(spec, v, total / 1e9 * 1.03, "GB").correct  # outside 2%


def test_times_convert_between_seconds_and_milliseconds():
    spec = g.parse_spec(RESPONSE)
    v = {"ttft_ms": 300, "itl_ms": 30, "output_tokens": 400}
    seconds = (300 + 399 * 30) / 1000
    assert g.grade(spec, v, seconds, "s").correct
    assert g.grade(spec, v, seconds * 1000, "ms").correct
    assert g.grade(spec, v, seconds / 60, "min").correct


@pytest.mark.parametrize("bytes_per_elem", [1, 2])
def test_each_kv_mistake_built_by_hand_is_named(bytes_per_elem):
    spec = g.parse_spec(KV)
    v = {"model": "llama-3.1-70b", "seq_len": 8192, "batch_size": 16, "bytes_per_elem": 2}
    v["bytes_per_elem"] = bytes_per_elem
    total, p = kv_bytes(v)
    per_layer_once = p["layers"] * p["kv_heads"] * p["head_dim"] * p["b"] * p["tokens"]
    built = {
        "bits-for-bytes": (total * 8 / 1e9, "GB"),  # 16 "bytes" for BF16
        "kv-counted-once": (per_layer_once / 1e9, "GB"),
        "missing-layers": (total / p["layers"] / 1e9, "GB"),
        "gb-vs-gib": (total / 2**30, "GB"),  # a GiB figure labelled GB
    }
    if bytes_per_elem == 1:
        built["bf16-for-fp8"] = (total * 2 / 1e9, "GB")
    for mistake, (value, unit) in built.items():
        result = g.grade(spec, v, value, unit)
        assert not result.correct
        assert result.mistake == mistake, (mistake, result)
        assert result.mistake_label == g.MISTAKES[mistake].label
    # a mistaken answer given in another unit is still named
    assert g.grade(spec, v, per_layer_once / 2**30, "GiB").mistake == "kv-counted-once"


def test_bf16_for_fp8_only_applies_to_fp8_variants():
    spec = g.parse_spec(KV)
    v = {"model": "llama-3.1-8b", "seq_len": 4096, "batch_size": 8, "bytes_per_elem": 2}
    total, _ = kv_bytes(v)
    # twice the BF16 answer is not "BF16 for FP8" on a BF16 variant
    assert g.grade(spec, v, total * 2 / 1e9, "GB").mistake != "bf16-for-fp8"


def test_per_gpu_vs_total_sparse_peak_and_units_are_named_on_a_training_run():
    spec = g.parse_spec(TRAIN)
    v = {"params_b": 70, "tokens_b": 2000, "gpus": 512}
    seconds = 6 * 70e9 * 2000e9 / (512 * 989e12 * 0.4)
    days = seconds / 86400
    assert g.expected(spec, v) == pytest.approx(days)
    assert g.grade(spec, v, days, "days").correct
    assert g.grade(spec, v, seconds, "s").correct
    assert g.grade(spec, v, days * 512, "days").mistake == "per-gpu-vs-total"  # GPU-days
    assert g.grade(spec, v, days / 512, "days").mistake == "per-gpu-vs-total"
    assert g.grade(spec, v, days / 2, "days").mistake == "sparse-peak"  # 1,979 TFLOP/s
    assert g.grade(spec, v, days * 1000, "days").mistake == "seconds-vs-ms"


def test_seconds_vs_ms_is_named_on_a_response_time():
    spec = g.parse_spec(RESPONSE)
    v = {"ttft_ms": 150, "itl_ms": 20, "output_tokens": 200}
    ms = 150 + 199 * 20
    assert g.grade(spec, v, ms, "s").mistake == "seconds-vs-ms"  # milliseconds typed as s
    assert g.grade(spec, v, ms / 1e6, "s").mistake == "seconds-vs-ms"


def test_a_wrong_answer_matching_no_mistake_names_none_and_says_which_way():
    spec = g.parse_spec(KV)
    v = {"model": "llama-3.1-8b", "seq_len": 4096, "batch_size": 8, "bytes_per_elem": 2}
    right = g.expected(spec, v)
    high = g.grade(spec, v, right * 3.3, "GB")
    assert (high.correct, high.mistake, high.direction) == (False, None, "high")
    assert g.grade(spec, v, right / 3.3, "GB").direction == "low"


def test_an_answer_in_a_unit_of_another_kind_is_refused():
    spec = g.parse_spec(KV)
    v = g.draw(spec, 1)
    with pytest.raises(ValueError, match="cannot be converted"):
        g.grade(spec, v, 1, "ms")
    assert g.units_like("GB")[:2] == ["bytes", "B"] and "GiB" in g.units_like("GB")
    assert g.units_like("USD") == ["USD"]


def test_mistake_names_stay_distinct_across_many_variants():
    spec = g.parse_spec(KV)
    for seed in range(50):
        v = g.draw(spec, seed)
        inputs = g.clean_inputs(spec, v)
        for name, candidates in g.mistaken_values(spec, inputs).items():
            for value in candidates:
                assert g.grade(spec, v, value, "GB").mistake == name


def test_the_author_check_passes_a_sound_spec():
    report = g.author_check(g.parse_spec(KV), seeds=200)
    assert report["ok"], report["problems"]
    assert report["seeds"] == 200


def test_the_author_check_flags_a_tolerance_that_accepts_a_mistake():
    loose = {**KV, "tolerance": 0.1}  # GB vs GiB is 7.4%: inside 10%
    report = g.author_check(g.parse_spec(loose), seeds=20)
    assert not report["ok"]
    kinds = {p["kind"] for p in report["problems"]}
    assert "tolerance-accepts-mistake" in kinds
    assert any("gb-vs-gib" in p["detail"] for p in report["problems"])


def test_the_author_check_flags_mistakes_that_give_the_same_number():
    # at TP 2, "per GPU vs total" (x2) and "BF16 for FP8" (x1.94: the embedding and lm_head
    # stay BF16 either way) give numbers 3% apart, the same within a 5% tolerance
    spec = g.parse_spec(
        {
            "target": {
                "calculator": "serving_estimate",
                "output": "weights_gb_per_gpu",
                "unit": "GB",
                "prompt": "How many GB of weights does each GPU hold for {model} at TP {tp}?",
                "preset": "h200",
                "inputs": {
                    "weight_precision": "fp8",
                    "tp": 2,
                    "prompt_tokens": 1000,
                    "output_tokens": 200,
                    "concurrency": 8,
                },
            },
            "variables": {"model": ["llama-3.1-70b", "qwen2.5-72b"]},
            "tolerance": 0.05,
            "mistakes": ["per-gpu-vs-total", "bf16-for-fp8"],
        }
    )
    report = g.author_check(spec, seeds=10)
    assert "indistinguishable" in {p["kind"] for p in report["problems"]}


def test_the_author_check_flags_variants_the_calculator_rejects():
    spec = g.parse_spec({**KV, "variables": {**KV["variables"], "seq_len": [4096, -5]}})
    report = g.author_check(spec, seeds=40)
    assert "invalid" in {p["kind"] for p in report["problems"]}


def test_the_author_check_flags_a_mistake_that_never_applies():
    spec = g.parse_spec({**RESPONSE, "mistakes": ["gb-vs-gib"]})
    report = g.author_check(spec, seeds=5)
    assert [p["kind"] for p in report["problems"]] == ["never-applies"]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"tolerance": 0}, "tolerance"),
        ({"tolerance": 0.5}, "tolerance"),
        ({"mistakes": ["forgot-coffee"]}, "mistakes"),
        ({"variables": {"nope": [1, 2]}}, "variables.nope"),
        ({"variables": {"seq_len": [4096]}}, "variables.seq_len"),
        ({"variables": {"batch_size": {"min": 9, "max": 2}}}, "variables.batch_size"),
        ({"variables": {}}, "variables"),
        ({"follow_ups": [{"prompt": "x", "set": {"seq_len": 1, "batch_size": 2}}]}, "follow_ups.1"),
        ({"surprise": 1}, "surprise"),
        ({"target": {**KV["target"], "output": "nope"}}, "target.output"),
        ({"target": {**KV["target"], "unit": "ms"}}, "target.unit"),
        ({"target": {**KV["target"], "prompt": "{nothing} here at all, really"}}, "target.prompt"),
        ({"variables": {**KV["variables"], "seq_len": [-5, 4096]}}, "target.inputs.seq_len"),
    ],
)
def test_a_bad_spec_names_the_key_and_the_reason(change, field):
    with pytest.raises(g.PracticeSpecError) as caught:
        g.parse_spec({**KV, **change})
    assert field in caught.value.fields, caught.value.fields
    assert all(caught.value.fields[field])


def test_an_unknown_calculator_is_named():
    with pytest.raises(g.PracticeSpecError) as caught:
        g.parse_spec({**KV, "target": {**KV["target"], "calculator": "astrology"}})
    assert "target.calculator" in caught.value.fields


def test_no_spec_is_none():
    assert g.parse_spec({}) is None


def test_non_finite_answers_are_never_right():
    spec = g.parse_spec(KV)
    v = g.draw(spec, 3)
    assert not g.grade(spec, v, math.inf, "GB").correct
    assert not g.grade(spec, v, math.nan, "GB").correct


DECODE = {
    "target": {
        "calculator": "decode_bound",
        "output": "tokens_per_s_total",
        "unit": "tokens/s",
        "prompt": "A {params_b}B model in BF16 decodes {batch_size} sequences on 3.35 TB/s, "
        "each reading 0.5 GB of KV cache a step: how many tokens per second in all?",
        "inputs": {"bytes_per_param": 2, "bandwidth_tbs": 3.35, "kv_gb_per_seq": 0.5},
    },
    "variables": {"params_b": [8, 70], "batch_size": [16, 64, 128]},
    "mistakes": ["bits-for-bytes"],
}

ROOFLINE = {
    "target": {
        "calculator": "roofline",
        "output": "attainable_tflops",
        "unit": "TFLOP/s",
        "prompt": "A kernel at {intensity} FLOP/byte runs on {peak_tflops} TFLOP/s and "
        "{bandwidth_tbs} TB/s: what can it attain?",
    },
    "variables": {
        "peak_tflops": [989, 1979],
        "bandwidth_tbs": [3.35, 4.8],
        "intensity": [20, 60, 1000],
    },
    "mistakes": ["sparse-peak"],
}


def test_token_rates_are_accepted_in_tokens_and_thousands_of_tokens_per_second():
    spec = g.parse_spec(DECODE)
    v = {"params_b": 70, "batch_size": 64}
    ms_per_step = (70 * 2 + 64 * 0.5) / 3.35  # GB / (TB/s) = ms
    total = 64 * 1000 / ms_per_step
    assert g.expected(spec, v) == pytest.approx(total)
    assert g.grade(spec, v, total, "tokens/s").correct
    assert g.grade(spec, v, total / 1000, "k tokens/s").correct
    # off by a thousand in either direction is wrong, and not the seconds/ms slip
    for value, unit in [(total, "k tokens/s"), (total / 1000, "tokens/s")]:
        result = g.grade(spec, v, value, unit)
        assert not result.correct and result.mistake is None, (value, unit, result)
    # a named mistake answered in the other unit is still named
    bits_ms = (70 * 16 + 64 * 0.5) / 3.35
    assert g.grade(spec, v, 64 / bits_ms, "k tokens/s").mistake == "bits-for-bytes"
    assert g.units_like("tokens/s") == ["tokens/s", "k tokens/s"]


@pytest.mark.parametrize(
    ("v", "tflops"),
    [
        ({"peak_tflops": 989, "bandwidth_tbs": 3.35, "intensity": 60}, 60 * 3.35),  # memory
        ({"peak_tflops": 1979, "bandwidth_tbs": 4.8, "intensity": 1000}, 1979),  # compute
    ],
)
def test_compute_rates_are_accepted_in_giga_tera_and_peta_flop_per_second(v, tflops):
    spec = g.parse_spec(ROOFLINE)
    assert g.expected(spec, v) == pytest.approx(tflops)
    for value, unit in [
        (tflops, "TFLOP/s"),
        (tflops / 1e3, "PFLOP/s"),
        (tflops * 1e3, "GFLOP/s"),
        (tflops * 1e12, "FLOP/s"),
    ]:
        assert g.grade(spec, v, value, unit).correct, (value, unit)
    for value, unit in [(tflops, "PFLOP/s"), (tflops, "GFLOP/s"), (tflops * 1e3, "TFLOP/s")]:
        assert not g.grade(spec, v, value, unit).correct, (value, unit)
    with pytest.raises(ValueError, match="cannot be converted"):
        g.grade(spec, v, tflops, "TB/s")


def test_the_sparse_peak_is_named_on_a_compute_bound_roofline_in_pflop_per_second():
    spec = g.parse_spec(ROOFLINE)
    v = {"peak_tflops": 989, "bandwidth_tbs": 3.35, "intensity": 1000}
    assert g.grade(spec, v, 2 * 989 / 1e3, "PFLOP/s").mistake == "sparse-peak"


@pytest.mark.parametrize(
    ("spec", "bad", "fine"),
    [
        pytest.param(  # intensity 0 attains nothing: a target of 0
            ROOFLINE,
            {"intensity": [60, 0]},
            {"intensity": [60, 1000]},
            id="zero",
        ),
        pytest.param(  # a KV read that outgrows the compute never turns compute-bound: inf
            {
                "target": {
                    "calculator": "decode_bound",
                    "output": "compute_bound_batch",
                    "prompt": "At what batch does decoding a {params_b}B model turn "
                    "compute-bound, with {kv_gb_per_seq} GB of KV cache read per sequence?",
                    "inputs": {"bytes_per_param": 2, "bandwidth_tbs": 3.35, "peak_tflops": 989},
                },
                "variables": {"params_b": [8, 70], "kv_gb_per_seq": [0.0001, 0.001]},
            },
            {"kv_gb_per_seq": [0.0001, 0.5]},
            {"kv_gb_per_seq": [0.0001, 0.001]},
            id="infinite",
        ),
        pytest.param(  # training FLOP asked in FLOP, not EFLOP: above 1e18
            {
                "target": {
                    "calculator": "training_budget",
                    "output": "train_flops",
                    "unit": "FLOP",
                    "prompt": "How many FLOP does training a {params_b}B model on "
                    "{tokens_b}B tokens take?",
                    "inputs": {"peak_tflops": 989, "mfu": 0.4, "gpus": 8},
                },
                "variables": {"params_b": [0.001, 0.01], "tokens_b": [1, 10]},
            },
            {"params_b": [0.001, 70]},
            {"params_b": [0.001, 0.01]},
            id="above-1e18",
        ),
    ],
)
def test_the_author_check_flags_targets_that_are_absurd_on_some_seeds(spec, bad, fine):
    def check(variables):
        parsed = g.parse_spec({**spec, "variables": {**spec["variables"], **variables}})
        return g.author_check(parsed, seeds=40)

    sound = check(fine)
    assert "absurd" not in sound["counts"], sound["problems"]
    report = check(bad)
    assert not report["ok"]
    absurd = [p for p in report["problems"] if p["kind"] == "absurd"]
    assert absurd and 0 < report["counts"]["absurd"] < 40  # some seeds, not all
    (name, values) = next(iter(bad.items()))
    assert all(f"{name}={values[1]}" in p["detail"] for p in absurd), absurd
