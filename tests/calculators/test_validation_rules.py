"""Rules of calculator input validation (``calculators.validation``), one per test.

Most tests use a small calculator registered for the test (``rules``), so each rule is
checked at its exact bound with its exact message; the preset rules use real specs.
Mutation testing (docs/mutation.md) found these rules unstated.
"""

import math

import pytest

from calculators import validation
from calculators.errors import CalculatorInputError
from calculators.specs import BOOLEAN, CHOICE, INTEGER, SPECS, CalculatorSpec, Input
from calculators.validation import parse_text_inputs, validate, validate_text

DECODE = {"params_b": 8, "bytes_per_param": 2, "bandwidth_tbs": 3.35}

INPUTS = (
    Input("rate", "Rate", min=0, min_exclusive=True, max=10),
    Input("floor", "Floor", min=2, min_exclusive=True, required=False),
    Input("count", "Count", kind=INTEGER, min=1, max=100, default=1),
    Input("share", "Share", min=0, required=False),
    Input("flag", "Flag", kind=BOOLEAN, default=False),
    Input("mode", "Mode", kind=CHOICE, choices=("a", "b"), default="a"),
)


def _unused(*args, **kwargs):  # pragma: no cover - never rendered here
    raise AssertionError


@pytest.fixture(autouse=True)
def rules(monkeypatch):
    spec = CalculatorSpec(
        slug="rules",
        title="Rules",
        summary="A calculator for validation tests.",
        inputs=INPUTS,
        outputs=(),
        chart_type="none",
        steps=_unused,
        texts=_unused,
        chart=_unused,
    )
    monkeypatch.setitem(SPECS, "rules", spec)
    return spec


def errors_of(raw, preset=None, slug="rules"):
    with pytest.raises(CalculatorInputError) as info:
        validate(slug, raw, preset)
    return info.value.fields


# --- bounds -----------------------------------------------------------------------------


def test_an_exclusive_minimum_rejects_its_bound():
    assert errors_of({"rate": 1, "floor": 2}) == {"floor": ["must be greater than 2"]}


def test_an_exclusive_minimum_accepts_just_above_its_bound():
    assert validate("rules", {"rate": 1, "floor": 2.001})["floor"] == 2.001


def test_an_exclusive_minimum_of_zero_asks_for_a_positive_number():
    assert errors_of({"rate": 0}) == {"rate": ["must be positive, not 0"]}
    assert errors_of({"rate": -0.5}) == {"rate": ["must be positive, not -0.5"]}


def test_an_inclusive_minimum_of_zero_accepts_zero_and_rejects_negatives():
    assert validate("rules", {"rate": 1, "share": 0})["share"] == 0.0
    assert errors_of({"rate": 1, "share": -1}) == {"share": ["must not be negative, not -1"]}


def test_an_inclusive_minimum_accepts_its_bound_and_names_it_below():
    assert validate("rules", {"rate": 1, "count": 1})["count"] == 1
    assert errors_of({"rate": 1, "count": 0}) == {"count": ["must be at least 1, not 0"]}


def test_a_maximum_accepts_its_bound_and_rejects_above():
    assert validate("rules", {"rate": 10})["rate"] == 10.0
    assert errors_of({"rate": 10.5}) == {"rate": ["must be at most 10, not 10.5"]}


# --- types ------------------------------------------------------------------------------


def test_clean_inputs_are_canonical_types_with_defaults_filled():
    clean = validate("rules", {"rate": 2, "count": 3.0})
    assert clean == {"rate": 2.0, "count": 3, "flag": False, "mode": "a"}
    assert type(clean["rate"]) is float and type(clean["count"]) is int


def test_an_integer_input_rejects_a_fraction_and_names_it():
    assert errors_of({"rate": 1, "count": 2.5}) == {"count": ["must be a whole number, not 2.5"]}


@pytest.mark.parametrize(
    "value, reason",
    [
        (True, "must be a number, not a boolean"),
        ("8", "must be a number, not the string '8'"),
        ("x" * 50, f"must be a number, not the string '{'x' * 40}'"),
        ({"a": 1}, "must be a number, not an object"),
        ([[1]], "must be a number, not a list"),
        (1j, "must be a number, not complex"),
        (math.nan, "must be a number, not NaN"),
        (math.inf, "must be finite, not infinity"),
    ],
)
def test_a_number_input_names_what_it_was_given(value, reason):
    assert errors_of({"rate": value}) == {"rate": [reason]}


def test_a_null_item_in_a_list_is_named_null():
    assert errors_of({"rate": [1, None]}) == {"rate": ["item 2: must be a number, not null"]}


def test_a_null_input_means_not_given():
    assert errors_of({"rate": None}) == {"rate": ["required"]}
    assert validate("rules", {"rate": 1, "count": None})["count"] == 1


def test_a_boolean_input_takes_only_true_or_false():
    assert validate("rules", {"rate": 1, "flag": True})["flag"] is True
    assert errors_of({"rate": 1, "flag": 1}) == {"flag": ["must be true or false, not int"]}
    assert errors_of({"rate": 1, "flag": "true"}) == {
        "flag": ["must be true or false, not the string 'true'"]
    }


def test_a_choice_input_takes_only_one_of_its_choices():
    assert validate("rules", {"rate": 1, "mode": "b"})["mode"] == "b"
    assert errors_of({"rate": 1, "mode": "c"}) == {"mode": ["'c' is not one of a, b"]}
    assert errors_of({"rate": 1, "mode": 2}) == {"mode": ["must be one of a, b, not int"]}


def test_a_list_of_booleans_or_choices_is_checked_item_by_item():
    clean = validate("rules", {"rate": 1, "flag": [True, False], "mode": ["a", "b"]})
    assert clean["flag"] == [True, False] and clean["mode"] == ["a", "b"]
    assert errors_of({"rate": 1, "mode": ["a", "z", 1]}) == {
        "mode": ["item 2: 'z' is not one of a, b", "item 3: must be one of a, b, not int"]
    }


def test_a_list_of_choices_reports_at_most_three_bad_items():
    fields = errors_of({"rate": 1, "mode": ["x"] * 6})
    assert fields["mode"] == [f"item {i}: 'x' is not one of a, b" for i in (1, 2, 3)]


def test_a_list_of_numbers_names_each_bad_item_and_stops_after_three():
    assert errors_of({"rate": [1, -1, 2]}) == {"rate": ["item 2: must be positive, not -1"]}
    assert errors_of({"rate": [-1, -2, -3, -4, -5]}) == {
        "rate": [
            "item 1: must be positive, not -1",
            "item 2: must be positive, not -2",
            "item 3: must be positive, not -3",
            "(further items not checked)",
        ]
    }


def test_a_single_item_list_is_a_list_without_item_numbers():
    assert validate("rules", {"rate": [2]})["rate"] == [2.0]
    assert errors_of({"rate": [-1]}) == {"rate": ["must be positive, not -1"]}


def test_a_tuple_is_a_list():
    assert validate("rules", {"rate": (1, 2)})["rate"] == [1.0, 2.0]


def test_an_empty_list_is_refused():
    assert errors_of({"rate": []}) == {"rate": ["must not be an empty list"]}


def test_a_sweep_may_have_at_most_max_points(monkeypatch):
    monkeypatch.setattr(validation, "MAX_POINTS", 3)
    assert validate("rules", {"rate": [1, 2, 3]})["rate"] == [1.0, 2.0, 3.0]
    assert errors_of({"rate": [1, 2, 3, 4]}) == {
        "rate": ["has 4 values; a sweep may have at most 3 points"]
    }


# --- the shape of the request -------------------------------------------------------------


def test_inputs_must_be_an_object():
    assert errors_of([1]) == {"inputs": ["must be an object of name: value pairs"]}


def test_no_inputs_is_an_empty_object():
    assert errors_of(None) == {"rate": ["required"]}


def test_an_unknown_input_is_named_with_the_known_ones():
    assert errors_of({"rate": 1, "speed": 2}) == {
        "speed": ["unknown input for rules; expected one of rate, floor, count, share, flag, mode"]
    }


def test_an_unknown_calculator_is_named_with_the_known_ones():
    fields = errors_of({}, slug="nope")
    assert list(fields) == ["calculator"]
    assert fields["calculator"][0].startswith("unknown calculator 'nope'; known: ")
    assert "rules" in fields["calculator"][0]
    assert "unknown calculator 3" in errors_of({}, slug=3)["calculator"][0]


def test_every_bad_field_is_reported_at_once():
    assert errors_of({"rate": -1, "count": 0, "mode": "z"}) == {
        "rate": ["must be positive, not -1"],
        "count": ["must be at least 1, not 0"],
        "mode": ["'z' is not one of a, b"],
    }


def test_lists_of_different_lengths_name_every_list_and_length():
    message = (
        "arrays do not broadcast (rate has 2, share has 3 values); give every list the "
        "same length or a single value"
    )
    assert errors_of({"rate": [1, 2], "share": [1, 2, 3], "count": [5]}) == {
        "rate": [message],
        "share": [message],
    }


def test_lists_of_one_length_and_single_values_broadcast():
    clean = validate("rules", {"rate": [1, 2], "share": [3, 4], "count": [5]})
    assert clean["rate"] == [1.0, 2.0] and clean["count"] == [5]


def test_the_specs_own_check_runs_only_on_otherwise_clean_inputs(rules, monkeypatch):
    calls = []

    def check(clean):
        calls.append(clean)
        return {"rate": ["too odd"]}

    monkeypatch.setitem(SPECS, "rules", _with(rules, check=check))
    assert errors_of({"rate": 1}) == {"rate": ["too odd"]}
    assert errors_of({"rate": -1}) == {"rate": ["must be positive, not -1"]}
    assert len(calls) == 1


def _with(spec, **changes):
    import dataclasses

    return dataclasses.replace(spec, **changes)


# --- presets --------------------------------------------------------------------------------


def test_a_preset_given_as_a_list_is_refused():
    fields = errors_of(DECODE, ["h100-sxm"], slug="decode_bound")
    assert fields == {"preset": ["must be a preset slug string"]}


def test_a_preset_given_as_a_number_is_refused():
    assert errors_of(DECODE, 7, slug="decode_bound") == {"preset": ["must be a preset slug string"]}


def test_an_empty_preset_is_no_preset():
    assert validate("decode_bound", DECODE, "") == validate("decode_bound", DECODE)


def test_an_unknown_preset_is_named_with_the_known_ones():
    reason = errors_of(DECODE, "h100", slug="decode_bound")["preset"][0]
    assert reason.startswith("unknown preset 'h100'; known: h100-sxm")


def test_a_calculator_without_hardware_inputs_refuses_a_preset():
    assert errors_of({"rate": 1}, "h100-sxm") == {"preset": ["rules takes no hardware preset"]}


def test_a_preset_fills_bandwidth_and_the_bf16_peak_by_default():
    clean = validate("roofline", {"intensity": 10}, "h100-sxm")
    assert clean["bandwidth_tbs"] == 3.35 and clean["peak_tflops"] == 989.0
    assert type(clean["peak_tflops"]) is float


def test_explicit_inputs_win_over_the_preset():
    clean = validate("roofline", {"intensity": 10, "peak_tflops": 5}, "h100-sxm")
    assert clean["peak_tflops"] == 5.0 and clean["bandwidth_tbs"] == 3.35


def test_a_preset_scales_its_figures_into_the_inputs_units():
    clean = validate("local_fit", {"params_b": 8, "bytes_per_param": 1}, "rtx-5090")
    assert clean["device_bandwidth_gbs"] == pytest.approx(1792)
    assert clean["device_memory_gb"] == 32


def test_a_precision_picks_the_presets_dense_peak_at_that_precision():
    assert validate("roofline", {"intensity": 10, "precision": "fp8"}, "h100-sxm")[
        "peak_tflops"
    ] == pytest.approx(1979.0)


def test_a_list_of_precisions_fills_a_list_of_peaks():
    clean = validate("roofline", {"intensity": 10, "precision": ["bf16", "fp8"]}, "h100-sxm")
    assert clean["peak_tflops"] == pytest.approx([989.0, 1979.0])


def test_a_precision_the_device_has_no_figure_for_is_named_on_precision():
    fields = errors_of({"intensity": 10, "precision": "fp4"}, "h100-sxm", slug="roofline")
    assert fields["precision"] == [
        "h100-sxm has no dense fp4 figure in its data sheet (it has: fp64, tf32, bf16, "
        "fp8, int8); choose another precision or give peak_tflops"
    ]


def test_a_precision_missing_from_a_list_is_named_once():
    fields = errors_of(
        {"intensity": 10, "precision": ["fp4", "fp4", "bf16"]}, "h100-sxm", slug="roofline"
    )
    assert len(fields["precision"]) == 1 and "no dense fp4 figure" in fields["precision"][0]


def test_a_mig_run_needs_a_preset_with_mig_profiles():
    from calculators import presets

    fields = errors_of({"profile": "1g.10gb", "model_gb": 5}, "l4", slug="mig")
    assert fields["preset"] == [
        f"l4 has no MIG profiles in our data; choose one of {', '.join(presets.MIG_PROFILES)}"
    ]


# --- models ---------------------------------------------------------------------------------


KV = {"seq_len": 1000, "batch_size": 1, "bytes_per_elem": 2}


def test_a_model_fills_its_architecture_and_explicit_inputs_win():
    clean = validate("kv_cache", {**KV, "model": "llama-3.1-8b"})
    assert (clean["layers"], clean["kv_heads"], clean["head_dim"]) == (32, 8, 128)
    assert validate("kv_cache", {**KV, "model": "llama-3.1-8b", "layers": 4})["layers"] == 4


def test_a_model_fills_an_input_from_a_renamed_catalogue_field():
    clean = validate(
        "decode_bound", {"bytes_per_param": 2, "bandwidth_tbs": 3, "model": "mixtral-8x7b"}
    )
    from calculators.model_catalog import MODELS

    assert clean["params_b"] == MODELS["mixtral-8x7b"].active_params_b


def test_a_list_of_models_fills_one_column_per_model():
    clean = validate("kv_cache", {**KV, "model": ["llama-3.1-8b", "llama-3.1-70b"]})
    assert clean["layers"] == [32, 80] and clean["kv_heads"] == [8, 8]


def test_a_model_without_local_layers_beside_one_with_them_has_none_and_a_full_window():
    clean = validate("kv_cache", {**KV, "model": ["gemma-3-27b", "llama-3.1-8b"]})
    assert clean["local_layers"] == [52, 0]
    assert clean["local_window"] == [1024, 131072]


def test_models_of_different_attention_layouts_cannot_share_a_run():
    fields = errors_of({**KV, "model": ["deepseek-v3", "llama-3.1-8b"]}, slug="kv_cache")
    assert fields["model"] == [
        "kv_lora_rank is defined for deepseek-v3 only; run models with different "
        "attention or expert layouts separately"
    ]


@pytest.mark.parametrize(
    "model, named", [("nope", "'nope'"), (["llama-3.1-8b", 3], "3"), ([], "[]")]
)
def test_an_unknown_model_is_named_with_the_known_ones(model, named):
    from calculators.model_catalog import MODELS

    fields = errors_of({**KV, "model": model}, slug="kv_cache")
    assert fields["model"][0] == f"unknown model {named}; known: {', '.join(MODELS)}"


def test_a_calculator_without_a_model_input_refuses_a_model_or_a_config():
    assert errors_of({"rate": 1, "model": "llama-3.1-8b"}) == {
        "model": ["rules takes no model architecture"]
    }
    assert errors_of({"rate": 1, "config": {"num_hidden_layers": 2}}) == {
        "config": ["rules takes no model architecture"]
    }


LAYERS_2 = {
    "num_hidden_layers": 2,
    "hidden_size": 64,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "vocab_size": 100,
}


def test_a_pasted_config_fills_the_architecture():
    clean = validate("kv_cache", {**KV}, config=LAYERS_2)
    assert (clean["layers"], clean["kv_heads"], clean["head_dim"]) == (2, 2, 16)


def test_a_config_inside_the_inputs_is_read_too_and_the_argument_wins():
    assert validate("kv_cache", {**KV, "config": LAYERS_2})["layers"] == 2
    other = {**LAYERS_2, "num_hidden_layers": 6}
    assert validate("kv_cache", {**KV, "config": LAYERS_2}, config=other)["layers"] == 6


def test_a_model_and_a_config_together_are_refused():
    fields = errors_of({**KV, "model": "llama-3.1-8b", "config": LAYERS_2}, slug="kv_cache")
    assert fields["config"] == ["give model or config, not both"]


def test_an_unreadable_config_names_its_problems_on_config():
    fields = errors_of({**KV, "config": "{not json"}, slug="kv_cache")
    assert fields["config"][0].startswith("is not valid JSON")


# --- text inputs (CLI, directive, HTML form) --------------------------------------------------


@pytest.mark.parametrize("text", ["true", "YES", "1", "on", " True "])
def test_a_boolean_text_reads_true(text):
    assert parse_text_inputs("rules", {"flag": text}) == {"flag": True}


@pytest.mark.parametrize("text", ["false", "No", "0", "OFF"])
def test_a_boolean_text_reads_false(text):
    assert parse_text_inputs("rules", {"flag": text}) == {"flag": False}


def test_any_other_boolean_text_is_refused():
    with pytest.raises(CalculatorInputError) as info:
        parse_text_inputs("rules", {"flag": "maybe"})
    assert info.value.fields == {"flag": ["must be true or false, not 'maybe'"]}


def test_a_choice_text_is_kept_as_typed():
    assert parse_text_inputs("rules", {"mode": "B", "flag": "true,off"}) == {
        "mode": "B",
        "flag": [True, False],
    }


def test_number_texts_read_as_int_or_float():
    assert parse_text_inputs("rules", {"rate": "1_000", "share": "2.5", "count": "1e3"}) == {
        "rate": 1000,
        "share": 2.5,
        "count": 1000.0,
    }
    assert type(parse_text_inputs("rules", {"rate": "7"})["rate"]) is int


def test_a_text_for_an_unknown_input_stays_text_unless_it_is_a_number():
    assert parse_text_inputs("rules", {"speed": "fast", "pace": "3"}) == {
        "speed": "fast",
        "pace": 3,
    }


@pytest.mark.parametrize(
    "text, reason",
    [
        ("eight", "must be a number, not 'eight'"),
        ("nan", "must be a number, not NaN"),
        ("-inf", "must be finite, not infinity"),
        ("1,,2", "has an empty item in its list"),
    ],
)
def test_a_bad_number_text_is_named(text, reason):
    with pytest.raises(CalculatorInputError) as info:
        parse_text_inputs("rules", {"rate": text})
    assert info.value.fields == {"rate": [reason]}


def test_nan_is_refused_even_for_an_unknown_input():
    with pytest.raises(CalculatorInputError) as info:
        parse_text_inputs("rules", {"speed": "NaN", "pace": "inf"})
    assert info.value.fields == {
        "speed": ["must be a number, not NaN"],
        "pace": ["must be finite, not infinity"],
    }


def test_a_list_text_is_split_on_commas_and_trimmed():
    assert parse_text_inputs("rules", {"rate": " 1 , 2.5 "}) == {"rate": [1, 2.5]}


def test_an_empty_text_means_use_the_default():
    assert parse_text_inputs("rules", {"rate": "  ", "count": "", "share": None}) == {}


def test_text_for_an_unknown_calculator_is_refused():
    with pytest.raises(CalculatorInputError) as info:
        parse_text_inputs("nope", {"rate": "1"})
    assert list(info.value.fields) == ["calculator"]


def test_text_validation_returns_clean_inputs():
    assert validate_text("rules", {"rate": "2", "mode": "b"}) == {
        "rate": 2.0,
        "count": 1,
        "flag": False,
        "mode": "b",
    }


def test_text_validation_reports_parse_and_range_problems_together():
    with pytest.raises(CalculatorInputError) as info:
        validate_text("rules", {"rate": "fast", "count": "0", "share": "-1"})
    assert info.value.fields == {
        "rate": ["must be a number, not 'fast'"],
        "count": ["must be at least 1, not 0"],
        "share": ["must not be negative, not -1"],
    }


def test_text_validation_reports_parse_problems_when_the_rest_is_clean():
    with pytest.raises(CalculatorInputError) as info:
        validate_text("rules", {"rate": "2", "floor": "high"})
    assert info.value.fields == {"floor": ["must be a number, not 'high'"]}


def test_text_validation_passes_the_preset_on():
    clean = validate_text("roofline", {"intensity": "10"}, "h100-sxm")
    assert clean["bandwidth_tbs"] == 3.35


def test_text_validation_of_an_unknown_calculator_names_the_calculator_only():
    with pytest.raises(CalculatorInputError) as info:
        validate_text("nope", {"rate": "x"})
    assert list(info.value.fields) == ["calculator"]
