"""The {{calc ...}} Markdown directive."""

import re

from calculators.directive import expand_calc_directives, find_directive_errors

ALLOWED = {
    "div",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "p",
    "span",
    "strong",
    "code",
    "ul",
    "li",
}


def test_inline_value_with_unit():
    html = expand_calc_directives(
        "One user: {{calc decode_bound params_b=8 bytes_per_param=2 "
        "bandwidth_tbs=3.35 -> tokens_per_s_per_user}}."
    )
    assert html == 'One user: <span class="calc-value">209.4 tokens/s</span>.'


def test_preset_and_arrays_inline():
    html = expand_calc_directives(
        "{{calc decode_bound params_b=8 bytes_per_param=2 "
        "preset=h100-sxm batch_size=1,512 -> tokens_per_s_total}}"
    )
    # batch 512: compute 8.283 ms against memory 4.776, composed (m⁴ + c⁴)^¼ = 8.503 ms
    assert "209.4, 60,213 tokens/s" in html


def test_block_uses_only_allowed_tags_and_one_line():
    html = expand_calc_directives(
        "{{calc kv_cache layers=32 kv_heads=32 head_dim=128 seq_len=4096}}"
    )
    assert "\n" not in html
    assert set(re.findall(r"<([a-z]+)", html)) <= ALLOWED
    assert "2.147 GB" in html and "What this establishes" in html
    assert "What still needs measurement" in html


def test_bad_directives_render_visible_errors_and_never_raise(caplog):
    text = (
        "{{calc nope}} {{calc roofline peak_tflops=-1 bandwidth_tbs=1 intensity=1}} "
        "{{calc kv_cache layers=32 -> nothing}} {{calc roofline bad}} {{calc kv_cache"
    )
    html = expand_calc_directives(text)
    assert html.count('class="calc-error"') == 5
    assert "unknown calculator" in html and "peak_tflops" in html and "nothing" in html
    assert "unclosed" in html
    assert len(caplog.records) >= 5


def test_find_directive_errors_names_line_and_problem():
    text = (
        "fine {{calc availability availability_pct=99.9 -> downtime_min_per_month}}\n"
        "{{calc availability availability_pct=101}}\n"
    )
    problems = find_directive_errors(text)
    assert len(problems) == 1 and problems[0].startswith("line 2:")
    assert "at most 100" in problems[0]


def test_code_is_left_alone():
    text = "Write `{{calc nope}}`.\n\n```\n{{calc nope}}\n```\n"
    assert expand_calc_directives(text) == text
    assert find_directive_errors(text) == []


def test_output_escaped():
    html = expand_calc_directives("{{calc mig gpu=h100-sxm profile=<b> model_gb=1}}")
    assert "<b>" not in html


def test_block_survives_the_question_renderer(db):
    from questions.markdown import render_markdown

    text = (
        "Before.\n\n{{calc kv_cache layers=32 kv_heads=8 head_dim=128 seq_len=8192}}\n\n"
        "After: {{calc kv_cache layers=32 kv_heads=8 head_dim=128 seq_len=8192 -> total_gb}}."
    )
    html = str(render_markdown(text))
    assert '<div class="calc-worked calc-block">' in html
    assert "<table" in html and "1.074 GB" in html and "What still needs measurement" in html
    assert '<span class="calc-value">1.074 GB</span>' in html
    assert "<p>Before.</p>" in html
