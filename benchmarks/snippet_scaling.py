"""How search snippets scale with a long run of Markdown syntax between two words.

    python benchmarks/snippet_scaling.py

A run of "[", "*", "](" or "{{" in an item's text ends up whole in the stretch a snippet
re-quotes without Markdown (``questions.snippets``). Its patterns must cost a linear scan:
for each kind of run this prints the time to cut a snippet and an opening from a text with
10 KB and with 100 KB of it, and their ratio (about 10 is linear; a quadratic pattern gives
about 100, and took 119 s on 100 KB of "[" before the patterns were made possessive).
No database: plain Python.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from questions import snippets  # noqa: E402

RUNS = ("[", "*", "[](", "![", "](", "_", "{{", "<!--", "`", "#", "- ")


def timed(text: str, q: snippets.Query, rounds: int = 5) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        snippets.cut(text, q, start="<b>", stop="</b>")
        snippets.opening(text)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    q = snippets.query(["cache"])
    print(f"{'run of':8} {'10 KB ms':>9} {'100 KB ms':>10} {'ratio':>6}")
    for junk in RUNS:
        small, large = (
            timed("cache word " + junk * (n // len(junk)) + " more cache", q)
            for n in (10_000, 100_000)
        )
        print(f"{junk!r:8} {small * 1e3:9.2f} {large * 1e3:10.2f} {large / small:6.1f}")


if __name__ == "__main__":
    main()
