"""Property tests with 10^4 generated inputs each (``benchmarks/fuzz.py`` runs 10^6):
the Markdown sanitiser never lets through a tag, attribute or URL scheme outside its
allow-list, and the calculator validator either returns clean inputs or names the bad
fields, never anything else."""

from __future__ import annotations

import collections
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from calculators.specs import SPECS
from questions.markdown import (
    ALLOWED_ATTRIBUTES,
    ALLOWED_TAGS,
    UNTRUSTED_TAGS,
    render_untrusted_markdown,
    sanitise,
)
from tests.fuzz.properties import (
    calculator_requests,
    check_sanitised,
    check_validation,
    markdown_text,
    url_scheme,
)

N = int(os.environ.get("FUZZ_PROPERTY_EXAMPLES", "10000"))
# Inputs are drawn in batches: hypothesis spends most of its time per example, not per
# input, so 400 examples of 25 inputs cost far less than 10^4 examples of one.
BATCH = 25
FAST = settings(
    max_examples=max(1, N // BATCH),
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
TALLY: collections.Counter[str] = collections.Counter()


def batches(strategy):
    return st.lists(strategy, min_size=BATCH, max_size=BATCH)


@FAST
@given(batches(markdown_text))
def test_sanitiser_keeps_only_the_allow_list(texts):
    from questions.markdown import _md  # the trusted renderer, raw HTML allowed

    for text in texts:
        check_sanitised(sanitise(_md.render(text)), ALLOWED_TAGS, ALLOWED_ATTRIBUTES)
        TALLY["markdown trusted"] += 1


@FAST
@given(batches(markdown_text))
def test_untrusted_markdown_keeps_only_its_smaller_allow_list(texts):
    for text in texts:
        html = str(render_untrusted_markdown(text))
        check_sanitised(html, UNTRUSTED_TAGS, {"a": {"href", "title"}})
        TALLY["markdown untrusted"] += 1


@FAST
@given(batches(calculator_requests(SPECS)))
def test_validator_returns_clean_inputs_or_names_the_fields(requests):
    for request in requests:
        TALLY[f"validator {check_validation(*request)}"] += 1


# Inputs the fuzzers once got through, kept so they never come back. The first, from a
# 10^6 run of benchmarks/fuzz.py, ends as '<p title="a">': html5ever reads "<p/<span" as a
# <p> whose attributes include the span's, and nh3 kept "title" (and "lang") on any tag.
REGRESSIONS = [
    '<script>alert(1)</script><p/<span title="a" onclick="x">',
    '<p lang="en" title="t">x</p><div title="t" class="c">y</div><td lang="x">',
    '![d](diagrams/a.svg "cap") <img src="/static/diagrams/a.svg" title="t" lang="x">',
    # ...and one the property wrongly refused: the href is the relative path
    # "%5Bx%5D(javascript:alert(1))"; a browser finds no scheme in it (see url_scheme)
    "[]([x](javascript:alert(1)))",
]


@pytest.mark.parametrize(
    "url, scheme",
    [
        ("https://example.com/a:b", "https:"),
        ("MAILTO:a@example.com", "mailto:"),
        ("javascript:alert(1)", "javascript:"),
        (" \x01JaVa\tScRiPt:alert(1)", "javascript:"),
        ("java\nscript\r:x", "javascript:"),
        ("vbscript:x", "vbscript:"),
        ("data:text/html,x", "data:"),
        ("%5Bx%5D(javascript:alert(1))", None),
        ("/static/a:b", None),
        ("./x:y", None),
        ("#top", None),
        ("", None),
    ],
)
def test_the_url_check_finds_the_scheme_a_browser_would(url, scheme):
    assert url_scheme(url) == scheme


@pytest.mark.parametrize("text", REGRESSIONS)
def test_inputs_that_once_passed_the_allow_list(text):
    from questions.markdown import _md

    check_sanitised(sanitise(_md.render(text)), ALLOWED_TAGS, ALLOWED_ATTRIBUTES)
    check_sanitised(str(render_untrusted_markdown(text)), UNTRUSTED_TAGS, {"a": {"href", "title"}})


def test_zz_tally():
    print(f"\nproperty cases run: {dict(TALLY)}")
    if TALLY:
        assert all(n >= N for k, n in TALLY.items() if k.startswith("markdown")), TALLY
        validated = TALLY["validator ok"] + TALLY["validator refused"]
        assert validated >= N and TALLY["validator ok"] >= N // 20, TALLY  # both paths run
