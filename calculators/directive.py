"""The ``{{calc ...}}`` Markdown directive: worked numbers computed at render time.

Syntax (content/README.md):
    {{calc decode_bound params_b=8 bytes_per_param=2 bandwidth_tbs=3.35}}
        -> a worked-steps block (inputs, steps with numbers substituted, outputs, texts)
    {{calc decode_bound params_b=8 ... -> tokens_per_s_per_user}}
        -> one output inline, formatted with its unit
    preset=h100-sxm fills GPU figures (explicit inputs override); arrays are 1,8,32.

Expansion never raises: a page with one bad directive still renders, with a visible
``calc-error`` span naming the problem, and the problem is logged. Content tests call
``find_directive_errors`` so bad directives never ship. Directives inside code spans and
fenced code blocks are left alone, so documentation can show the syntax.

The HTML uses only div, table, thead, tbody, tr, th, td, p, span, strong, code, ul, li
with class attributes, which the question renderer's sanitiser allows, and is emitted on
one line so Markdown treats it as a single raw HTML block.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from html import escape
from typing import Any

from .compute import compute, format_output
from .errors import CalculatorInputError
from .provenance import box_problems, box_table, input_sources, shown_inputs
from .specs import SPECS
from .validation import parse_text_inputs, validate_text

logger = logging.getLogger(__name__)

# Bump when the HTML or the numbers a directive renders change, so caches of rendered
# Markdown keyed on the source text can include it and not serve stale figures.
DIRECTIVE_VERSION = "2"

DIRECTIVE = re.compile(r"\{\{\s*calc\b(?P<body>[^{}]*)\}\}")
OPENING = re.compile(r"\{\{\s*calc\b")
FENCE = re.compile(
    r"^ {0,3}(?P<fence>`{3,}|~{3,})[^\n]*\n.*?(?:^ {0,3}(?P=fence)[^\n]*$|\Z)",
    re.MULTILINE | re.DOTALL,
)
CODE_SPAN = re.compile(r"(?P<ticks>`+)(?!`).+?(?<!`)(?P=ticks)(?!`)", re.DOTALL)


class DirectiveError(ValueError):
    pass


@dataclass(frozen=True)
class Directive:
    slug: str
    texts: dict[str, str]
    preset: str | None
    output: str | None


def parse_directive(body: str) -> Directive:
    """Parse the text between ``{{calc`` and ``}}``."""
    output = None
    if "->" in body:
        body, _, target = body.partition("->")
        output = target.strip()
        if not output or " " in output:
            raise DirectiveError("after -> give exactly one output name")
    tokens = body.split()
    if not tokens:
        raise DirectiveError("missing calculator slug")
    slug, *pairs = tokens
    if slug not in SPECS:
        raise DirectiveError(f"unknown calculator {slug!r}")
    texts: dict[str, str] = {}
    preset = None
    for token in pairs:
        name, sep, value = token.partition("=")
        if not sep or not name:
            raise DirectiveError(f"expected name=value, got {token!r}")
        if name in texts or (name == "preset" and preset is not None):
            raise DirectiveError(f"{name} is given twice")
        if name == "preset":
            preset = value
        else:
            texts[name] = value
    if output is not None and output not in {o.name for o in SPECS[slug].outputs}:
        raise DirectiveError(
            f"{slug} has no output {output!r}; outputs: "
            f"{', '.join(o.name for o in SPECS[slug].outputs)}"
        )
    return Directive(slug, texts, preset, output)


def evaluate(body: str) -> tuple[Directive, dict[str, Any]]:
    """Parse, validate and compute one directive; raise DirectiveError on any problem."""
    d = parse_directive(body)
    try:
        clean = validate_text(d.slug, d.texts, d.preset)
    except CalculatorInputError as exc:
        raise DirectiveError(exc.fields_text()) from None
    result = compute(d.slug, clean)
    if d.output is not None and d.output not in result["outputs"]:
        raise DirectiveError(f"{d.output} is not computed for these inputs")
    return d, result


def expand_calc_directives(markdown_text: str) -> str:
    """Replace every directive outside code with its HTML; never raises."""
    protected = _protected_ranges(markdown_text)
    out: list[str] = []
    pos = 0
    for m in OPENING.finditer(markdown_text):
        start = m.start()
        if start < pos or _inside(start, protected):
            continue
        full = DIRECTIVE.match(markdown_text, start)
        out.append(markdown_text[pos:start])
        if full is None:
            message = "unclosed {{calc directive (missing }})"
            logger.warning("bad calc directive at offset %d: %s", start, message)
            out.append(_error_html(message))
            pos = m.end()
            continue
        out.append(_render(full.group("body")))
        pos = full.end()
    out.append(markdown_text[pos:])
    return "".join(out)


def directives_in(text: str) -> Iterator[tuple[int, re.Match[str] | None]]:
    """Each directive outside code: (its line number, its match, or None if unclosed)."""
    protected = _protected_ranges(text)
    for m in OPENING.finditer(text):
        if not _inside(m.start(), protected):
            yield text.count("\n", 0, m.start()) + 1, DIRECTIVE.match(text, m.start())


def find_directive_errors(text: str) -> list[str]:
    """Every problem with the directives in ``text``, as 'line N: {{calc ...}}: reason'."""
    problems = []
    for line, full in directives_in(text):
        if full is None:
            problems.append(f"line {line}: unclosed {{{{calc directive (missing }}}})")
            continue
        try:
            d, _ = evaluate(full.group("body"))
        except DirectiveError as exc:
            problems.append(f"line {line}: {full.group(0)}: {exc}")
            continue
        except Exception as exc:  # a kernel bug must still surface as a content problem
            problems.append(f"line {line}: {full.group(0)}: internal error {exc!r}")
            continue
        repeated = _repeated_unit(d, text[full.end() :])
        if repeated:
            problems.append(
                f"line {line}: {full.group(0)}: the value already ends in "
                f"{repeated!r}; remove the unit written after the directive"
            )
    return problems


def find_box_problems(text: str) -> list[tuple[str, str]]:
    """(rule, 'line N: {{calc ...}}: reason') for each directive whose box would mislead
    (``provenance.box_problems``); directives that do not evaluate are left to
    ``find_directive_errors``."""
    problems = []
    for line, full in directives_in(text):
        if full is None:
            continue
        try:
            d = parse_directive(full.group("body"))
            raw = parse_text_inputs(d.slug, d.texts)
            clean = validate_text(d.slug, d.texts, d.preset)
        except (DirectiveError, CalculatorInputError):
            continue
        for rule, message in box_problems(d.slug, raw, d.preset, clean):
            problems.append((rule, f"line {line}: {full.group(0)}: {message}"))
    return problems


def _repeated_unit(d: Directive, following: str) -> str | None:
    """The unit an inline value renders with, if the author also typed it after it."""
    if d.output is None:
        return None
    unit = SPECS[d.slug].output(d.output).unit
    if not unit or unit == "x":
        return None
    after = following.lstrip(" ")
    if after.startswith(unit) and not after[len(unit) : len(unit) + 1].isalnum():
        return unit
    return None


def _render(body: str) -> str:
    try:
        d, result = evaluate(body)
    except DirectiveError as exc:
        logger.warning("bad calc directive {{calc%s}}: %s", body, exc)
        return _error_html(str(exc))
    except Exception:
        logger.exception("calc directive failed: {{calc%s}}", body)
        return _error_html("the calculator failed on these inputs")
    spec = SPECS[d.slug]
    if d.output is not None:
        text = format_output(spec, d.output, result["outputs"][d.output])
        return f'<span class="calc-value">{escape(text)}</span>'
    return render_worked_block(spec.title, box_result(d, result))


def box_result(d: Directive, result: dict[str, Any]) -> dict[str, Any]:
    """The result with its input table cut to what the reader needs (``provenance``)."""
    clean = result["inputs"]
    sources = input_sources(d.slug, parse_text_inputs(d.slug, d.texts), d.preset, clean)
    return box_table(result, shown_inputs(d.slug, clean, sources, d.preset))


def render_worked_block(title: str, result: dict[str, Any]) -> str:
    """The worked-steps block for one result. An input row with a ``marker`` (see
    ``provenance.box_table``) says where its value came from: "(default)", "(from the
    preset)"."""
    table = result["table"]
    parts = [
        '<div class="calc-worked calc-block">',
        f'<p class="calc-worked-title"><strong>{escape(title)}</strong></p>',
        _html_table("Input", table["columns"], table["inputs"], "calc-inputs"),
    ]
    for section in result["steps"]:
        if section["title"]:
            parts.append(f'<p class="calc-steps-title">{escape(section["title"])}</p>')
        parts.append(
            '<ul class="calc-steps">'
            + "".join(f'<li class="calc-step">{escape(line)}</li>' for line in section["lines"])
            + "</ul>"
        )
    parts.append(_html_table("Output", table["columns"], table["outputs"], "calc-outputs"))
    if table["truncated"]:
        parts.append(
            f'<p class="calc-note">Showing {len(table["columns"])} of '
            f"{table['total_points']:,} points.</p>"
        )
    for key, heading, css in (
        ("establishes", "What this establishes", "calc-establishes"),
        ("needs_measurement", "What still needs measurement", "calc-needs"),
    ):
        items = "".join(f"<li>{escape(t)}</li>" for t in result[key])
        parts.append(f'<div class="{css}"><p><strong>{heading}</strong></p><ul>{items}</ul></div>')
    parts.append("</div>")
    return "".join(parts)


def _html_table(kind: str, columns: list[str], rows: list[dict[str, Any]], css: str) -> str:
    heads = columns or ["Value"]
    head = f"<th>{kind}</th>" + "".join(f"<th>{escape(c)}</th>" for c in heads)
    body = "".join(
        f'<tr><th class="calc-label">{escape(r["label"])} <code>{escape(r["name"])}</code>'
        + (f' <span class="calc-source">({escape(r["marker"])})</span>' if r.get("marker") else "")
        + "</th>"
        + "".join(f"<td>{escape(c)}</td>" for c in r["cells"])
        + "</tr>"
        for r in rows
    )
    return (
        f'<table class="calc-table {css}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table>"
    )


def _error_html(message: str) -> str:
    return f'<span class="calc-error">calc directive error: {escape(message)}</span>'


def _protected_ranges(text: str) -> list[tuple[int, int]]:
    ranges = [(m.start(), m.end()) for m in FENCE.finditer(text)]
    for m in CODE_SPAN.finditer(text):
        if not _inside(m.start(), ranges):
            ranges.append((m.start(), m.end()))
    return ranges


def _inside(pos: int, ranges: list[tuple[int, int]]) -> bool:
    return any(a <= pos < b for a, b in ranges)
