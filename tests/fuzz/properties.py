"""Strategies and properties shared by the fuzz tests (10^4 cases each in CI) and
``benchmarks/fuzz.py`` (10^6). Each ``check_*`` raises AssertionError on a violation."""

from __future__ import annotations

import math
import re
from html.parser import HTMLParser
from typing import Any

from hypothesis import strategies as st

# --- Markdown sanitiser ------------------------------------------------------------------

# Pieces an attacker reaches for, mixed with arbitrary text so the parser sees them in
# every context (inside links, code spans, tables, raw HTML blocks, entities).
FRAGMENTS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '<img src="/static/diagrams/a.svg" onload="x()">',
    '<a href="javascript:alert(1)">x</a>',
    '<a href="JaVaScRiPt&colon;alert(1)">x</a>',
    "[x](javascript:alert(1))",
    "[x](data:text/html;base64,PHNjcmlwdD4=)",
    "[x](vbscript:msgbox(1))",
    '![d](diagrams/a.svg "cap")',
    "![x](https://evil.example/p.png)",
    '<iframe src="https://evil.example"></iframe>',
    "<svg><script>x</script></svg>",
    '<math><mi xlink:href="javascript:x">',
    '<div style="background:url(javascript:x)" class="x">',
    "<style>*{}</style>",
    '<form action="/x"><input name=a></form>',
    "<object data=x></object>",
    "<!-- comment --><![CDATA[x]]>",
    '<span title="a" onclick="x">',
    '<p lang="en" title="t" class="x">',  # Ammonia's generic attributes (lang, title)
    "&lt;script&gt;",
    "`<script>`",
    "```\n<script>\n```\n",
    "| a | b |\n|---|---|\n| <b>1</b> | [l](javascript:x) |\n",
    "> quote <b>x</b>\n",
    "* item\n",
    "\n\n",
    "<",
    ">",
    '"',
    "'",
    "&",
    "\x00",
]
# Markdown- and HTML-significant characters, cheap to draw; full Unicode now and then.
SYNTAX = "<>&\"'`*_[]()!#|-=:;/\\ \n\tajvscriptonerhf0x"
markdown_text = st.lists(
    st.one_of(
        st.sampled_from(FRAGMENTS),
        st.text(alphabet=SYNTAX, max_size=12),
        st.text(max_size=4),
    ),
    max_size=10,
).map("".join)


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))

    handle_startendtag = handle_starttag


SAFE_SCHEMES = ("http:", "https:", "mailto:")
# A URL's scheme as a browser reads it (the WHATWG URL standard): leading and trailing C0
# controls and spaces stripped, tabs and newlines removed anywhere, then a letter followed
# by letters, digits, "+", "-" or "." up to the first ":". Without one the URL is relative
# to the page: "%5Bx%5D(javascript:alert(1))" is a path, not a javascript: link.
_C0_AND_SPACE = "".join(map(chr, range(0x21)))
_SCHEME = re.compile(r"[a-z][a-z0-9+.-]*:")


def url_scheme(value: str | None) -> str | None:
    v = re.sub(r"[\t\n\r]", "", (value or "").strip(_C0_AND_SPACE)).lower()
    match = _SCHEME.match(v)
    return match.group() if match else None


def _check_url(value: str | None, what: str) -> None:
    scheme = url_scheme(value)
    assert scheme is None or scheme in SAFE_SCHEMES, f"unsafe URL in {what}: {value!r}"


def check_sanitised(html: str, tags: set[str], attributes: dict[str, set[str]]) -> None:
    """Only allowed tags and attributes, no event handlers, only safe URL schemes, images
    only from our own diagrams."""
    parser = _Collector()
    parser.feed(html)
    parser.close()
    for tag, attrs in parser.tags:
        assert tag in tags, f"tag {tag!r} not allowed: {html!r}"
        allowed = attributes.get(tag, set()) | ({"rel"} if tag == "a" else set())
        for name, value in attrs:
            assert name in allowed, f"attribute {name!r} on {tag!r}: {html!r}"
            assert not name.startswith("on")
            if name == "href":
                _check_url(value, "href")
            if tag == "img" and name == "src":
                assert (value or "").startswith("/static/diagrams/"), html
    # Text may mention "javascript:" (escaped, inert); a raw "<script" could only be a tag.
    assert "<script" not in html.lower(), html


# --- Calculator validator ----------------------------------------------------------------

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.sampled_from(["h100-sxm", "a100-80gb", "bf16", "fp8", "1e3", "NaN", "", "0", "-1"]),
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=4,
)


def calculator_requests(specs: dict) -> st.SearchStrategy:
    """(slug, inputs, preset): input names mostly from the spec, values of any JSON shape."""

    def for_slug(slug: str) -> st.SearchStrategy:
        spec = specs[slug]
        example = {k: v for k, v in spec.example.items() if k != "preset"}
        names = st.sampled_from(list(spec.input_names) + ["config", "grid", "unknown", ""])
        plausible = st.one_of(
            st.integers(1, 4096),
            st.floats(min_value=1e-3, max_value=1e4),
            st.lists(st.integers(1, 512), min_size=1, max_size=5),
        )
        values = st.one_of(
            plausible,
            json_values,
            st.lists(st.one_of(st.integers(-5, 10**6), st.floats()), min_size=1, max_size=6),
        )
        # Mostly the spec's own (valid) example with a few inputs dropped or replaced, so
        # the accepting path is exercised as well as the refusing one.
        edited = st.tuples(
            st.sets(st.sampled_from(sorted(example) or [""]), max_size=2),
            st.dictionaries(names, st.one_of(plausible, plausible, values), max_size=2),
        ).map(lambda t: {k: v for k, v in example.items() if k not in t[0]} | t[1])
        inputs = st.one_of(
            edited, edited, edited, st.dictionaries(names, values, max_size=6), json_values
        )
        preset = st.one_of(
            st.just(spec.example.get("preset")),
            st.sampled_from(["h100-sxm", "nope", ""]),
            json_values,
        )
        return st.tuples(st.just(slug), inputs, preset)

    # one_of over strategies built once (a flatmap would rebuild them for every example).
    return st.one_of([for_slug(slug) for slug in sorted(specs)])


def _is_clean_value(value: Any) -> bool:
    if isinstance(value, list):
        return all(_is_clean_value(v) and not isinstance(v, list) for v in value)
    if isinstance(value, float):
        return math.isfinite(value)
    return value is None or isinstance(value, bool | int | str)


def check_validation(slug: str, inputs: Any, preset: Any) -> str:
    """validate() returns clean JSON values or raises CalculatorInputError naming fields;
    nothing else. Returns "ok" or "refused" for the tally."""
    from calculators.errors import CalculatorInputError
    from calculators.validation import MAX_POINTS, validate

    try:
        clean = validate(slug, inputs, preset)
    except CalculatorInputError as exc:
        assert isinstance(exc.fields, dict) and exc.fields, exc.fields
        for name, reasons in exc.fields.items():
            assert isinstance(name, str) and reasons, (name, reasons)
            assert all(isinstance(r, str) and r for r in reasons), reasons
        return "refused"
    assert isinstance(clean, dict)
    for name, value in clean.items():
        if name == "grid":
            continue
        assert _is_clean_value(value), (name, value)
        if isinstance(value, list):
            assert 0 < len(value) <= MAX_POINTS
    # The same request always yields the same clean inputs (the canonical hash relies on it).
    assert validate(slug, inputs, preset) == clean
    return "ok"
