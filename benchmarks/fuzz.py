"""The property fuzzers of tests/fuzz/ at benchmark scale: 10^6 generated inputs per
target (CI runs 10^4), printing cases, outcomes and throughput.

    .venv/bin/python benchmarks/fuzz.py                 # 10^6 each (tens of minutes)
    .venv/bin/python benchmarks/fuzz.py -n 20000 --only markdown

Targets: the trusted Markdown renderer + sanitiser, the untrusted (comment) renderer, and
the calculator validator. A violated property stops the run with hypothesis's shrunk
example, exactly as the test would.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "inferview.settings.test")

import django  # noqa: E402

django.setup()

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from calculators.specs import SPECS  # noqa: E402
from questions.markdown import (  # noqa: E402
    ALLOWED_ATTRIBUTES,
    ALLOWED_TAGS,
    UNTRUSTED_TAGS,
    _md,
    render_untrusted_markdown,
    sanitise,
)
from tests.fuzz.properties import (  # noqa: E402
    calculator_requests,
    check_sanitised,
    check_validation,
    markdown_text,
)

BATCH = 50
TALLY: collections.Counter[str] = collections.Counter()


def trusted(text: str) -> None:
    check_sanitised(sanitise(_md.render(text)), ALLOWED_TAGS, ALLOWED_ATTRIBUTES)
    TALLY["markdown trusted"] += 1


def untrusted(text: str) -> None:
    check_sanitised(str(render_untrusted_markdown(text)), UNTRUSTED_TAGS, {"a": {"href", "title"}})
    TALLY["markdown untrusted"] += 1


def validator(request: tuple) -> None:
    TALLY[f"validator {check_validation(*request)}"] += 1


TARGETS = {
    "markdown": [("markdown trusted", markdown_text, trusted)],
    "untrusted": [("markdown untrusted", markdown_text, untrusted)],
    "validator": [("validator", calculator_requests(SPECS), validator)],
}


def run(name: str, strategy, check, n: int) -> None:
    @settings(
        max_examples=max(1, n // BATCH),
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.lists(strategy, min_size=BATCH, max_size=BATCH))
    def fuzz(items):
        for item in items:
            check(item)

    t0 = time.perf_counter()
    fuzz()
    elapsed = time.perf_counter() - t0
    done = sum(v for k, v in TALLY.items() if k.startswith(name))
    print(f"{name:20s} {done:>9,d} inputs  {elapsed:8.1f} s  {done / elapsed:9.0f} inputs/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=1_000_000, help="inputs per target")
    parser.add_argument("--only", choices=sorted(TARGETS), action="append")
    args = parser.parse_args()
    for key in args.only or sorted(TARGETS):
        for name, strategy, check in TARGETS[key]:
            run(name, strategy, check, args.n)
    print("outcomes:", dict(TALLY))


if __name__ == "__main__":
    main()
