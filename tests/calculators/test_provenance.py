"""What a calculator box shows: the inputs the author gave, the filled values that changed
the result (marked by where they came from), a precision only where it chose the peak, and
which ceiling binds at what efficiency. No database."""

from __future__ import annotations

import re
from html import unescape

import pytest

from calculators.compute import run_inline
from calculators.directive import expand_calc_directives
from calculators.provenance import (
    DEFAULT,
    GIVEN,
    MODEL,
    PEAK_MATCH,
    PRESET,
    box_problems,
    input_sources,
    moves_result,
    shown_inputs,
)
from calculators.specs import SPECS
from calculators.templatetags.calculator_tags import assumptions
from calculators.validation import validate


def shown(slug: str, raw: dict, preset: str | None = None) -> dict[str, tuple[str, object]]:
    clean = validate(slug, raw, preset)
    rows = shown_inputs(slug, clean, input_sources(slug, raw, preset, clean), preset)
    return {name: (s.source, s.value) for name, s in rows.items()}


def input_rows(html: str) -> dict[str, str]:
    """name -> 'marker | value' of a rendered block's inputs table."""
    table = html.split('class="calc-table calc-inputs"')[1].split("</table>")[0]
    rows = {}
    for row in re.findall(r"<tr><th class=\"calc-label\">(.*?)</tr>", table):
        name = re.search(r"<code>(.*?)</code>", row).group(1)
        marker = re.search(r'class="calc-source">\((.*?)\)', row)
        value = re.findall(r"<td>(.*?)</td>", row)
        rows[name] = unescape(f"{marker.group(1) if marker else ''} | {', '.join(value)}")
    return rows


def test_a_weights_only_box_lists_only_what_played_a_part():
    """The issue's case: no context, KV precision, MLA width or local layers on a box that
    reads the weights alone."""
    html = expand_calc_directives(
        "{{calc decode_bound params_b=8 bytes_per_param=2 preset=h100-sxm}}"
    )
    rows = input_rows(html)
    assert rows == {
        "params_b": " | 8 billion",
        "bytes_per_param": " | 2 bytes",
        "bandwidth_tbs": "from the preset | 3.35 TB/s",
        "batch_size": "default | 1",
        "peak_tflops": "from the preset | 989 TFLOP/s",
        "precision": "default | bf16",  # it chose the preset's peak
        "bandwidth_efficiency": "default | 100 %",
        "compute_efficiency": "default | 100 %",
    }


def test_with_a_model_the_defaults_that_change_the_kv_read_are_shown():
    raw = {"model": "llama-3.1-8b", "bytes_per_param": 2, "bandwidth_tbs": 3.35, "batch_size": 8}
    rows = shown("decode_bound", raw)
    assert rows["model"] == (GIVEN, None)
    assert rows["layers"] == (MODEL, None) and rows["kv_heads"] == (MODEL, None)
    assert rows["context_tokens"] == (DEFAULT, None)
    assert rows["kv_precision"] == (DEFAULT, None)
    assert "rope_head_dim" not in rows  # an MLA width on a GQA model
    assert "local_layers" not in rows  # no local window to apply it to
    assert "peak_tflops" not in rows and "precision" not in rows
    assert "compute_efficiency" not in rows  # no peak, so no compute ceiling


def test_an_input_the_author_gave_is_shown_even_if_it_played_no_part():
    rows = shown("decode_bound", {"params_b": 8, "bytes_per_param": 2, "bandwidth_tbs": 3.35,
                                  "context_tokens": 2048})  # fmt: skip
    assert rows["context_tokens"] == (GIVEN, None)


@pytest.mark.parametrize(
    ("raw", "preset", "expected"),
    [
        # A preset fills the peak at the precision: the precision is shown.
        ({"precision": "fp8"}, "h100-sxm", (GIVEN, None)),
        ({}, "h100-sxm", (DEFAULT, None)),
        # A typed peak with a preset: the precision whose figure it is, whatever the default.
        ({"peak_tflops": 1979}, "h100-sxm", (PEAK_MATCH, "fp8")),
        ({"peak_tflops": 989}, "h100-sxm", (PEAK_MATCH, None)),  # bf16, the default
        ({"peak_tflops": 1979, "precision": "fp8"}, "h100-sxm", (GIVEN, None)),
        # A typed peak that is none of the preset's: no precision at all.
        ({"peak_tflops": 1500}, "h100-sxm", None),
        # A typed peak without a preset: only the precision the author gave.
        ({"peak_tflops": 1979, "bandwidth_tbs": 3.35}, None, None),
        ({"peak_tflops": 1979, "bandwidth_tbs": 3.35, "precision": "fp8"}, None, (GIVEN, None)),
        # No peak at all: nothing for a precision to label.
        ({"bandwidth_tbs": 3.35, "precision": "fp8"}, None, None),
    ],
)
def test_a_precision_is_shown_only_where_it_chose_the_peak(raw, preset, expected):
    rows = shown("decode_bound", {"params_b": 8, "bytes_per_param": 1, **raw}, preset)
    assert rows.get("precision") == expected


def test_a_typed_fp8_peak_is_never_labelled_bf16():
    html = expand_calc_directives(
        "{{calc decode_bound params_b=8 bytes_per_param=1 preset=h100-sxm peak_tflops=1979}}"
    )
    assert input_rows(html)["precision"] == "the peak's precision | fp8"
    assert "bf16" not in html.split('class="calc-table calc-inputs"')[1].split("</table>")[0]


def test_preset_sources_and_moves():
    spec = SPECS["decode_bound"]
    clean = validate("decode_bound", {"params_b": 8, "bytes_per_param": 2}, "h100-sxm")
    sources = input_sources("decode_bound", {"params_b": 8, "bytes_per_param": 2}, "h100-sxm",
                            clean)  # fmt: skip
    assert sources["bandwidth_tbs"] == PRESET and sources["batch_size"] == DEFAULT
    assert moves_result(spec, clean, "batch_size")
    assert not moves_result(spec, clean, "kv_precision")  # a choice: every other one tried
    assert not moves_result(spec, clean, "context_tokens")


def test_the_widget_lists_the_same_inputs_with_their_markers():
    inputs = {"params_b": 8, "bytes_per_param": 2, "bandwidth_efficiency": 0.7}
    result = run_inline("decode_bound", inputs, "h100-sxm")
    line = assumptions("decode_bound", inputs, "h100-sxm", result)
    assert line.startswith("NVIDIA H100 SXM, params_b = 8 billion")
    assert "bandwidth_tbs = 3.35 TB/s (from the preset)" in line
    assert "batch_size = 1 (default)" in line and "precision = bf16 (default)" in line
    assert "context_tokens" not in line and "rope_head_dim" not in line


@pytest.mark.parametrize(
    ("slug", "raw", "preset", "says"),
    [
        (
            "decode_bound",
            {"params_b": 8, "bytes_per_param": 2, "bandwidth_efficiency": 0.7},
            "h100-sxm",
            "Decode is memory-bound by a factor of 422 at 70% of 3.35 TB/s",
        ),
        (
            "decode_bound",
            {"params_b": 8, "bytes_per_param": 2, "batch_size": 1024, "compute_efficiency": 0.5},
            "h100-sxm",
            "At batch 1,024 decode is compute-bound at 50% of 989 TFLOP/s",
        ),
        (
            "prefill",
            {"model": "llama-3.1-8b", "prompt_tokens": 4096, "compute_efficiency": 0.6,
             "bandwidth_efficiency": 0.6},
            "h100-sxm",
            "Prefill is compute-bound at 60% of 989 TFLOP/s",
        ),
        (
            "serving_estimate",
            {"model": "llama-3.1-8b", "prompt_tokens": 1000, "output_tokens": 200,
             "concurrency": 8},
            "h100-sxm",
            "decode memory-bound at 80% of 3.35 TB/s",
        ),
    ],
)  # fmt: skip
def test_the_box_says_which_ceiling_binds_and_at_what_efficiency(slug, raw, preset, says):
    result = run_inline(slug, raw, preset)
    assert any(says in line for line in result["establishes"]), result["establishes"]


def test_prefill_derates_the_weight_read_too():
    raw = {"model": "llama-3.1-8b", "prompt_tokens": 16, "bandwidth_tbs": 3.35}
    full = run_inline("prefill", {**raw, "peak_tflops": 989}, None)["outputs"]["memory_ms"]
    half = run_inline("prefill", {**raw, "peak_tflops": 989, "bandwidth_efficiency": 0.5}, None)
    assert half["outputs"]["memory_ms"] == pytest.approx(2 * full)


def problems(slug: str, raw: dict, preset: str | None = None) -> list[str]:
    return [rule for rule, _ in box_problems(slug, raw, preset, validate(slug, raw, preset))]


@pytest.mark.parametrize(
    ("raw", "preset", "found"),
    [
        ({"bandwidth_efficiency": 0.7}, "h100-sxm", ["efficiency"]),
        ({"compute_efficiency": 0.5}, "h100-sxm", ["efficiency"]),
        ({"bandwidth_efficiency": 0.7, "compute_efficiency": 0.7}, "h100-sxm", []),
        ({"bandwidth_efficiency": 0.7, "compute_efficiency": 0.5}, "h100-sxm", []),  # on purpose
        ({"bandwidth_efficiency": 1.0}, "h100-sxm", []),  # equal to the other's default
        ({}, "h100-sxm", []),
        ({"bandwidth_efficiency": 0.7, "bandwidth_tbs": 3.35}, None, []),  # no compute ceiling
        ({"peak_tflops": 1979, "precision": "bf16"}, "h100-sxm", ["precision"]),
        ({"peak_tflops": 1979, "precision": "fp8"}, "h100-sxm", []),
        ({"peak_tflops": 1979}, "h100-sxm", []),  # the box labels it fp8 itself
        ({"peak_tflops": 1979, "precision": "bf16", "bandwidth_tbs": 3.35}, None, []),
    ],
)
def test_box_problems(raw, preset, found):
    assert problems("decode_bound", {"params_b": 8, "bytes_per_param": 1, **raw}, preset) == found


def test_defaults_that_differ_are_a_problem():
    raw = {"model": "llama-3.1-8b", "prompt_tokens": 1000, "output_tokens": 200, "concurrency": 8}
    assert problems("serving_estimate", raw, "h100-sxm") == ["efficiency"]
    even = {**raw, "bandwidth_efficiency": 0.6, "compute_efficiency": 0.6}
    assert problems("serving_estimate", even, "h100-sxm") == []
    # prefill derates compute to 0.5 by default; with a bandwidth both ceilings count.
    prompt = {"model": "llama-3.1-8b", "prompt_tokens": 4096}
    assert problems("prefill", prompt, "h100-sxm") == ["efficiency"]
    assert problems("prefill", {**prompt, "peak_tflops": 989}) == []  # no bandwidth ceiling
