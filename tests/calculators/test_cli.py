"""python manage.py calc <slug> name=value ... [--preset NAME] [--json]"""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command


def calc(*args):
    out = StringIO()
    call_command("calc", *args, stdout=out)
    return out.getvalue()


def test_prints_outputs_and_worked_steps():
    text = calc("decode_bound", "params_b=8", "bytes_per_param=2", "--preset", "h100-sxm")
    assert "tokens_per_s_per_user" in text and "209.4 tokens/s" in text
    assert "Worked steps" in text and "16 GB / (3.35 TB/s × 1) = 4.776 ms" in text
    assert "What this establishes" in text and "What still needs measurement" in text


def test_json_outputs_with_array_inputs():
    data = json.loads(
        calc(
            "kv_cache", "layers=32", "kv_heads=32,8", "head_dim=128", "seq_len=4096,8192", "--json"
        )
    )
    assert data["total_gb"] == pytest.approx([2.147483648, 1.073741824])
    assert data["bytes_per_token"] == [524288.0, 131072.0]


def test_integers_stay_integers_in_json():
    data = json.loads(calc("linear_params", "n_in=4096", "n_out=1024", "bias=false", "--json"))
    assert data == {"weights": 4194304, "biases": 0, "params": 4194304}


@pytest.mark.parametrize(
    "args, needle",
    [
        (["nope"], "calculator: unknown calculator"),
        (["decode_bound", "params_b=8"], "bytes_per_param: required"),
        (
            ["decode_bound", "params_b=x", "bytes_per_param=2", "bandwidth_tbs=1"],
            "params_b: must be a number",
        ),
        (
            ["decode_bound", "params_b=nan", "bytes_per_param=2", "bandwidth_tbs=1"],
            "params_b: must be a number, not NaN",
        ),
        (
            ["decode_bound", "params_b=inf", "bytes_per_param=2", "bandwidth_tbs=1"],
            "params_b: must be finite",
        ),
        (
            ["decode_bound", "params_b=-8", "bytes_per_param=2", "bandwidth_tbs=1"],
            "params_b: must be positive",
        ),
        (
            [
                "decode_bound",
                "params_b=8",
                "bytes_per_param=2",
                "bandwidth_tbs=1",
                "batch_size=1.5",
            ],
            "batch_size: must be a whole number",
        ),
        (
            [
                "decode_bound",
                "params_b=8",
                "bytes_per_param=2",
                "bandwidth_tbs=1",
                "bandwidth_efficiency=3",
            ],
            "bandwidth_efficiency: must be at most 1",
        ),
        (
            ["decode_bound", "params_b=8", "bytes_per_param=2", "bandwidth_tbs=1", "speed=3"],
            "speed: unknown input",
        ),
        (
            ["decode_bound", "params_b=1,2", "bytes_per_param=1,2,3", "bandwidth_tbs=1"],
            "do not broadcast",
        ),
        (
            ["decode_bound", "params_b=8", "bytes_per_param=2", "--preset", "h100"],
            "preset: unknown preset",
        ),
        (
            ["mig", "profile=1g.5gb", "model_gb=5", "--preset", "h100-sxm"],
            "profile: '1g.5gb' is not a MIG profile",
        ),
        (["linear_params", "n_in=1", "n_out=1", "bias=maybe"], "bias: must be true or false"),
        (["decode_bound", "params_b"], "expected name=value"),
    ],
)
def test_bad_input_is_a_command_error_naming_the_field(args, needle):
    with pytest.raises(CommandError) as info:
        calc(*args)
    assert needle in str(info.value)


def test_sweep_over_a_million_points_refused():
    values = ",".join(["1"] * 1_000_001)
    with pytest.raises(CommandError, match="at most 1,000,000"):
        calc(
            "decode_bound",
            "params_b=8",
            "bytes_per_param=2",
            "bandwidth_tbs=1",
            f"batch_size={values}",
        )
