"""Every category of bad input is refused with the field and the reason named."""

import math

import pytest

from calculators.errors import CalculatorInputError
from calculators.validation import MAX_POINTS, parse_text_inputs, validate

DECODE = {"params_b": 8, "bytes_per_param": 2, "bandwidth_tbs": 3.35}


def errors_of(slug, raw, preset=None):
    with pytest.raises(CalculatorInputError) as info:
        validate(slug, raw, preset)
    return info.value.fields


def test_clean_inputs_fill_defaults_and_presets_and_canonical_types():
    clean = validate(
        "decode_bound", {"params_b": 8, "bytes_per_param": 2, "batch_size": 4.0}, "h100-sxm"
    )
    assert clean == {
        "params_b": 8.0,
        "bytes_per_param": 2.0,
        "bandwidth_tbs": 3.35,
        "batch_size": 4,
        "context_tokens": 4096,
        "kv_precision": "bf16",
        "rope_head_dim": 0,
        "local_layers": 0,
        "peak_tflops": 989.0,
        "precision": "bf16",
        "bandwidth_efficiency": 1.0,
        "compute_efficiency": 1.0,
        "step_p": 4.0,
    }
    assert isinstance(clean["batch_size"], int)


def test_explicit_inputs_override_the_preset():
    assert (
        validate("roofline", {"bandwidth_tbs": 2.0, "intensity": 10}, "h100-sxm")["bandwidth_tbs"]
        == 2.0
    )


def test_local_fit_preset_converts_units():
    clean = validate("local_fit", {"params_b": 8, "bytes_per_param": 1}, "rtx-5090")
    assert clean["device_bandwidth_gbs"] == pytest.approx(1792)
    assert clean["device_memory_gb"] == 32
    # An "80GB" H100 has 81,559 MiB as nvidia-smi reports it: 81559 × 2^20 = 85.52e9 bytes.
    clean = validate("local_fit", {"params_b": 8, "bytes_per_param": 1}, "h100-sxm")
    assert clean["device_memory_gb"] == pytest.approx(81559 * 2**20 / 1e9)


def test_unknown_calculator():
    assert "calculator" in errors_of("nope", {})


def test_unknown_fields_named():
    fields = errors_of("decode_bound", {**DECODE, "bandwith_tbs": 3})
    assert list(fields) == ["bandwith_tbs"] and "unknown input" in fields["bandwith_tbs"][0]


@pytest.mark.parametrize(
    "value, reason",
    [
        ("8", "not the string"),
        (True, "not a boolean"),
        (None, "required"),
        ([1, "x"], "item 2"),
        ({"a": 1}, "an object"),
        ([[1, 2]], "a list"),
    ],
)
def test_wrong_types(value, reason):
    fields = errors_of("decode_bound", {**DECODE, "params_b": value})
    assert reason in " ".join(fields["params_b"])


@pytest.mark.parametrize(
    "value, reason",
    [
        (math.nan, "NaN"),
        (math.inf, "infinity"),
        (-math.inf, "infinity"),
        ([1, math.nan], "NaN"),
    ],
)
def test_nan_and_infinity(value, reason):
    assert (
        reason in errors_of("decode_bound", {**DECODE, "bandwidth_tbs": value})["bandwidth_tbs"][0]
    )


def test_negatives_where_meaningless():
    fields = errors_of("kv_cache", {"layers": 32, "kv_heads": 8, "head_dim": 128, "seq_len": -1})
    assert "negative" in fields["seq_len"][0]
    assert (
        "positive" in errors_of("decode_bound", {**DECODE, "bandwidth_tbs": -3})["bandwidth_tbs"][0]
    )


def test_out_of_range():
    assert (
        "at most 1"
        in errors_of("decode_bound", {**DECODE, "bandwidth_efficiency": 1.5})[
            "bandwidth_efficiency"
        ][0]
    )
    assert "at least 1" in errors_of("decode_bound", {**DECODE, "batch_size": 0})["batch_size"][0]


def test_non_integer_where_integer():
    assert (
        "whole number" in errors_of("decode_bound", {**DECODE, "batch_size": 2.5})["batch_size"][0]
    )


def test_sweep_over_a_million_points():
    fields = errors_of("decode_bound", {**DECODE, "batch_size": [1] * (MAX_POINTS + 1)})
    assert "at most 1,000,000" in fields["batch_size"][0]


def test_a_million_points_is_allowed():
    clean = validate("decode_bound", {**DECODE, "batch_size": list(range(1, MAX_POINTS + 1))})
    assert len(clean["batch_size"]) == MAX_POINTS


def test_arrays_that_do_not_broadcast_name_both_fields():
    fields = errors_of("decode_bound", {**DECODE, "params_b": [1, 2], "batch_size": [1, 2, 3]})
    assert set(fields) == {"params_b", "batch_size"}
    assert "do not broadcast" in fields["params_b"][0]


def test_empty_list():
    assert "empty" in errors_of("decode_bound", {**DECODE, "batch_size": []})["batch_size"][0]


def test_unknown_preset_and_inapplicable_preset():
    assert "unknown preset" in errors_of("decode_bound", DECODE, "h100")["preset"][0]
    assert "no hardware preset" in errors_of("kv_cache", {}, "h100-sxm")["preset"][0]
    assert (
        "no MIG profiles"
        in errors_of("mig", {"profile": "1g.10gb", "model_gb": 5}, "l4")["preset"][0]
    )


def test_missing_required_inputs_all_named():
    assert set(errors_of("decode_bound", {})) == {"params_b", "bytes_per_param", "bandwidth_tbs"}


def test_choices():
    fields = errors_of("mig", {"gpu": "v100", "profile": "1g.10gb", "model_gb": 5})
    assert "not one of" in fields["gpu"][0]
    fields = errors_of("mig", {"gpu": "h100-sxm", "profile": "1g.5gb", "model_gb": 5})
    assert "not a MIG profile of h100-sxm" in fields["profile"][0]
    assert (
        "true or false" in errors_of("linear_params", {"n_in": 1, "n_out": 1, "bias": 1})["bias"][0]
    )


def test_alternative_inputs():
    assert "intensity" in errors_of("roofline", {"peak_tflops": 1, "bandwidth_tbs": 1})
    assert "bytes" in errors_of("roofline", {"peak_tflops": 1, "bandwidth_tbs": 1, "flops": 10})
    assert "intensity" in errors_of(
        "roofline", {"peak_tflops": 1, "bandwidth_tbs": 1, "intensity": 1, "flops": 1, "bytes": 1}
    )
    assert "expert_params_b" in errors_of("moe_active", {"experts": 8, "experts_per_token": 2})
    assert (
        "cannot exceed"
        in errors_of("moe_active", {"total_params_b": 1, "active_params_b": 2})["active_params_b"][
            0
        ]
    )


def test_inputs_must_be_an_object():
    assert "inputs" in errors_of("decode_bound", [1, 2])


def test_parse_text_inputs():
    raw = parse_text_inputs(
        "linear_params", {"n_in": "4096", "n_out": "1024,2048", "bias": "false"}
    )
    assert raw == {"n_in": 4096, "n_out": [1024, 2048], "bias": False}
    with pytest.raises(CalculatorInputError) as info:
        parse_text_inputs(
            "decode_bound", {"params_b": "eight", "batch_size": "1,,2", "bandwidth_tbs": "nan"}
        )
    assert set(info.value.fields) == {"params_b", "batch_size", "bandwidth_tbs"}
