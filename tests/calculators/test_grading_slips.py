"""One test per named slip of issue 29: the grader recognises each from a number a
candidate making it would give, computed here by hand from the formula (not the grader).

Decode at batch 1 is bandwidth bound: tokens/s = bandwidth / bytes read per token, and
bytes per token is the weights (params x bytes per param) plus the KV read.
"""

from __future__ import annotations

import pytest

from calculators import grading as g

DECODE = {
    "target": {
        "calculator": "decode_bound",
        "output": "tokens_per_s_per_user",
        "unit": "tokens/s",
        "prompt": "How many tokens/s does a {params_b}B dense model decode at batch 1 "
        "with {bytes_per_param} bytes per parameter on {bandwidth_tbs} TB/s?",
        "inputs": {
            "batch_size": 1,
            "context_tokens": 1,
            "kv_gb_per_seq": 0,
            "bandwidth_efficiency": 1,
        },
    },
    "variables": {"params_b": [8, 70], "bytes_per_param": [1, 2], "bandwidth_tbs": [3.35, 8]},
    "mistakes": ["bytes-per-param", "tokens-per-s-vs-ms-per-token"],
}
VARIANT = {"params_b": 70, "bytes_per_param": 2, "bandwidth_tbs": 3.35}


def decode_spec(mistakes):
    return g.parse_spec({**DECODE, "mistakes": mistakes})


def right_tokens_per_s(spec) -> float:
    return g.expected(spec, VARIANT)


def test_decode_spec_matches_the_bandwidth_formula():
    spec = decode_spec(["bytes-per-param"])
    by_hand = 3.35e12 / (70e9 * 2)  # 23.9 tokens/s
    assert right_tokens_per_s(spec) == pytest.approx(by_hand, rel=0.01)


@pytest.mark.parametrize("scale", [0.5, 2, 0.25, 4])
def test_bytes_per_parameter_2x_or_4x_slip_is_named(scale):
    spec = decode_spec(["bytes-per-param"])
    # bytes per parameter scaled by `scale` reads `scale` times the bytes, so the rate
    # divides by it (139.6 for 69.79 tokens/s is the 2x case of the issue)
    wrong = 3.35e12 / (70e9 * 2 * scale)
    result = g.grade(spec, VARIANT, wrong, "tokens/s")
    assert not result.correct and result.mistake == "bytes-per-param"


def test_the_issue_s_139_6_for_69_79_tokens_per_s_is_named():
    spec = decode_spec(["bytes-per-param"])
    variant = {"params_b": 24, "bytes_per_param": 2, "bandwidth_tbs": 3.35}
    right = g.expected(spec, variant)
    assert right == pytest.approx(69.79, rel=0.01)
    result = g.grade(spec, variant, 139.6, "tokens/s")
    assert result.mistake == "bytes-per-param"


def test_bits_for_bytes_is_named():
    spec = decode_spec(["bits-for-bytes"])
    wrong = 3.35e12 / (70e9 * 16)  # 16 bits counted as bytes
    assert g.grade(spec, VARIANT, wrong, "tokens/s").mistake == "bits-for-bytes"


def test_tokens_per_s_for_ms_per_token_is_named():
    spec = decode_spec(["tokens-per-s-vs-ms-per-token"])
    ms_per_token = 1000 * 70e9 * 2 / 3.35e12  # 41.8 ms, typed as tokens/s
    result = g.grade(spec, VARIANT, ms_per_token, "tokens/s")
    assert result.mistake == "tokens-per-s-vs-ms-per-token"


def test_ms_per_token_answered_with_tokens_per_s_is_named():
    spec = g.parse_spec(
        {
            **DECODE,
            "target": {**DECODE["target"], "output": "ms_per_token", "unit": "ms"},
            "mistakes": ["tokens-per-s-vs-ms-per-token"],
        }
    )
    tokens_per_s = 3.35e12 / (70e9 * 2)  # 23.9, typed as the ms
    result = g.grade(spec, VARIANT, tokens_per_s, "ms")
    assert result.mistake == "tokens-per-s-vs-ms-per-token"


KV = {
    "target": {
        "calculator": "kv_cache",
        "output": "total_gb",
        "unit": "GB",
        "prompt": "How much KV cache does {model} need for {batch_size} sequences of "
        "{seq_len} tokens?",
    },
    "variables": {
        "model": ["llama-3.1-8b", "llama-3.1-70b"],
        "seq_len": [8192, 4096],
        "batch_size": [16, 8],
    },
}
KV_VARIANT = {"model": "llama-3.1-8b", "seq_len": 8192, "batch_size": 16}
# Llama 3.1 8B: 32 layers, 8 KV heads, head dim 128, BF16 (2 bytes)
KV_GB = 2 * 32 * 8 * 128 * 2 * 8192 * 16 / 1e9


def kv_spec(mistakes):
    return g.parse_spec({**KV, "mistakes": mistakes})


def test_gb_for_gib_is_named():
    spec = kv_spec(["gb-vs-gib"])
    assert g.expected(spec, KV_VARIANT) == pytest.approx(KV_GB, rel=1e-6)
    # the GiB figure typed as GB (10^3 vs 2^10)
    assert g.grade(spec, KV_VARIANT, KV_GB * 1e9 / 2**30, "GB").mistake == "gb-vs-gib"


def test_a_missing_batch_factor_is_named():
    spec = kv_spec(["missing-tp-or-batch"])
    assert g.grade(spec, KV_VARIANT, KV_GB / 16, "GB").mistake == "missing-tp-or-batch"


def test_per_gpu_vs_per_node_is_named():
    spec = kv_spec(["per-gpu-vs-node"])
    # the whole node's cache (8 GPUs each holding this) given for one GPU, and back
    assert g.grade(spec, KV_VARIANT, KV_GB * 8, "GB").mistake == "per-gpu-vs-node"
    assert g.grade(spec, KV_VARIANT, KV_GB / 8, "GB").mistake == "per-gpu-vs-node"


SERVE = {
    "target": {
        "calculator": "serving_estimate",
        "output": "weights_gb_per_gpu",
        "unit": "GB",
        "prompt": "How many GB of weights does each GPU hold for {model} at TP {tp}?",
        "preset": "h100-sxm",
        "inputs": {
            "weight_precision": "bf16",
            "prompt_tokens": 1000,
            "output_tokens": 200,
            "concurrency": 1,
        },
    },
    "variables": {"model": ["llama-3.1-70b", "llama-3.1-8b"], "tp": [2, 4, 8]},
}


def test_a_missing_tp_factor_is_named():
    spec = g.parse_spec({**SERVE, "mistakes": ["missing-tp-or-batch"]})
    variant = {"model": "llama-3.1-70b", "tp": 4}
    right = g.expected(spec, variant)
    whole = g.expected(spec, {**variant, "tp": 1})  # weights not split across TP
    assert whole == pytest.approx(right * 4, rel=0.05)
    assert g.grade(spec, variant, whole, "GB").mistake == "missing-tp-or-batch"


def test_a_right_answer_is_never_named_as_a_slip():
    spec = decode_spec(["bytes-per-param", "tokens-per-s-vs-ms-per-token"])
    result = g.grade(spec, VARIANT, 3.35e12 / (70e9 * 2), "tokens/s")
    assert result.correct and result.mistake is None


@pytest.mark.parametrize(
    ("answer", "expect"),
    [(2.0, "high by a factor of about 2"), (0.001, "prefix"), (1.1, "Close")],
)
def test_factor_hint_says_which_way_and_how_far(answer, expect):
    assert expect in g.factor_hint(answer, 1.0)


@pytest.mark.parametrize(
    ("answer", "step", "what"),
    [
        # 16 sequences left out (no slip listed for it here): the total's step names batch
        (KV_GB / 16, "step 3, total_gb", "left out batch_size"),
        # layers counted twice: the per-token step
        (KV_GB * 32, "step 1, bytes_per_token", "counted layers twice"),
        (KV_GB / 8192, "step 2, gb_per_seq", "left out seq_len"),
    ],
)
def test_the_hint_names_the_first_step_whose_factor_differs(answer, step, what):
    spec = kv_spec(["kv-counted-once"])  # none of these answers is a listed slip
    assert g.grade(spec, KV_VARIANT, answer, "GB").mistake is None
    hint = g.step_hint(spec, KV_VARIANT, answer)
    assert step in hint and what in hint
    assert g.number(KV_GB) not in hint  # never the right number


def test_the_hint_falls_back_to_direction_and_factor_when_no_step_explains_it():
    spec = kv_spec(["kv-counted-once"])
    assert g.step_hint(spec, KV_VARIANT, KV_GB * 3.3) == g.factor_hint(KV_GB * 3.3, KV_GB)
