"""Two-input grids (heat maps) and two-preset comparisons, through validation and compute."""

import json
from io import StringIO

import pytest
from django.core.management import call_command

from calculators.charts import render_chart
from calculators.compute import run_inline
from calculators.errors import CalculatorInputError
from calculators.heatmap import render_heatmap

KV = {"layers": 80, "kv_heads": 8, "head_dim": 128}


def test_kv_cache_grid_is_batch_rows_by_context_columns():
    """Llama-3.1-70B in BF16: 327,680 bytes per token, so batch 8 × 4096 tokens is
    8 × 4096 × 327,680 = 10.737 GB and batch 64 × 1024 is 21.475 GB."""
    result = run_inline(
        "kv_cache",
        {
            **KV,
            "batch_size": [1, 8, 64],
            "seq_len": [1024, 4096],
            "grid": ["batch_size", "seq_len"],
        },
    )
    assert result["shape"] == [3, 2]
    total = result["outputs"]["total_gb"]
    assert total[1][1] == pytest.approx(8 * 4096 * 327_680 / 1e9)
    assert total[2][0] == pytest.approx(64 * 1024 * 327_680 / 1e9)
    chart = result["chart"]
    assert chart["type"] == "heatmap" and chart["y"] == [1, 8, 64] and chart["x"] == [1024, 4096]
    svg = render_chart(chart, uid="g")
    assert svg.count("<rect") >= 6 and "10.7" in svg and "batch_size" in svg


def test_serving_grid_marks_cells_that_do_not_fit():
    inputs = {
        "params_b": 70.6,
        "layers": 80,
        "heads": 64,
        "kv_heads": 8,
        "head_dim": 128,
        "prompt_tokens": [1000, 8000],
        "output_tokens": 500,
        "concurrency": [1, 512],
        "weight_precision": "fp8",
        "tp": 2,
        "grid": ["concurrency", "prompt_tokens"],
    }
    result = run_inline("serving_estimate", inputs, "h100-sxm")
    fits = result["outputs"]["fits"]
    assert fits[0] == [True, True] and fits[1] == [False, False]
    chart = result["chart"]
    assert chart["mask"] == [[False, False], [True, True]]
    assert "does not fit" in render_chart(chart, uid="s") and "✗" in render_chart(chart, uid="s")


def test_decode_bound_grid_through_the_cli():
    out = StringIO()
    call_command(
        "calc",
        "decode_bound",
        "params_b=8",
        "bytes_per_param=2",
        "batch_size=1,16,64",
        "kv_gb_per_seq=0.1,0.5",
        "grid=batch_size,kv_gb_per_seq",
        "--preset",
        "h100-sxm",
        "--json",
        stdout=out,
    )
    data = json.loads(out.getvalue())
    assert len(data["tokens_per_s_total"]) == 3 and len(data["tokens_per_s_total"][0]) == 2


@pytest.mark.parametrize(
    "grid, extra, field, reason",
    [
        (["batch_size"], {}, "grid", "two inputs"),
        (["batch_size", "nope"], {}, "grid", "'nope' is not a numeric input"),
        (["batch_size", "batch_size"], {}, "grid", "two different"),
        (["batch_size", "seq_len"], {"seq_len": 4096}, "seq_len", "needs a list"),
        (["batch_size", "seq_len"], {"layers": [32, 80]}, "layers", "one value"),
    ],
)
def test_grid_errors_name_the_field(grid, extra, field, reason):
    inputs = {**KV, "batch_size": [1, 8], "seq_len": [1024, 2048, 4096], **extra, "grid": grid}
    with pytest.raises(CalculatorInputError) as exc:
        run_inline("kv_cache", inputs)
    assert any(reason in r for r in exc.value.fields[field]), exc.value.fields


def test_grid_on_a_calculator_without_one():
    with pytest.raises(CalculatorInputError) as exc:
        run_inline("availability", {"availability_pct": [99, 99.9], "grid": ["a", "b"]})
    assert "takes no grid" in exc.value.fields["grid"][0]


def test_compare_two_presets_in_one_run():
    """decode_bound at 8B BF16: 16 GB per step over 3.35 TB/s = 4.776 ms on H100 SXM and
    over 4.8 TB/s = 3.333 ms on H200."""
    result = run_inline("decode_bound", {"params_b": 8, "bytes_per_param": 2}, "h100-sxm,h200")
    assert result["inputs"]["bandwidth_tbs"] == [3.35, 4.8]
    assert result["outputs"]["ms_per_token"] == pytest.approx([16 / 3.35, 16 / 4.8])
    assert len(result["table"]["columns"]) == 2


@pytest.mark.parametrize("preset", ["h100-sxm,h100-sxm", "h100-sxm,h200,b200", "h100-sxm,nope"])
def test_compare_errors(preset):
    with pytest.raises(CalculatorInputError) as exc:
        run_inline("decode_bound", {"params_b": 8, "bytes_per_param": 2}, preset)
    assert "preset" in exc.value.fields


def test_large_heatmap_is_sampled_and_says_so():
    n = 100
    chart = {
        "type": "heatmap",
        "title": "t",
        "x_label": "x",
        "y_label": "y",
        "x": list(range(n)),
        "y": list(range(n)),
        "z": [[float(i * j + 1) for j in range(n)] for i in range(n)],
    }
    svg = render_heatmap(chart, "h")
    assert svg.count("<rect") < 40 * 40 + 20 and "one column in 3" in svg


def test_heatmap_axis_labels_are_exact():
    """16,384 tokens reads 16.4k, not 1.64k; 4,096 stays 4,096."""
    chart = {
        "type": "heatmap",
        "title": "t",
        "x_label": "seq_len",
        "y_label": "batch",
        "x": [4096, 16384, 2_500_000],
        "y": [1, 8],
        "z": [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],
    }
    svg = render_heatmap(chart, "h")
    assert ">4,096<" in svg and ">16.4k<" in svg and ">2.5M<" in svg and "1.64k" not in svg


@pytest.mark.django_db
def test_grid_through_the_api_and_the_run_page(
    client, published, django_capture_on_commit_callbacks
):
    from calculators.execution import execute_run

    body = {
        "inputs": {
            "model": "llama-3.1-8b",
            "prompt_tokens": [1000, 4000, 16000],
            "output_tokens": 256,
            "concurrency": [1, 64],
            "grid": ["concurrency", "prompt_tokens"],
        },
        "preset": "h100-sxm",
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/api/v1/calculators/serving_estimate/runs/", json.dumps(body),
            content_type="application/json",
        )  # fmt: skip
    assert response.status_code == 202, response.content
    run_id = response.json()["id"]
    assert execute_run(run_id=run_id) == "done"
    run = client.get(f"/api/v1/calculators/runs/{run_id}/").json()
    assert run["result"]["shape"] == [2, 3]
    assert len(run["result"]["outputs"]["tokens_per_s_total"][1]) == 3
    page = client.get(f"/calculators/serving_estimate/runs/{run_id}/").content.decode()
    assert "calc-heatmap" in page and 'value="concurrency" selected' in page
