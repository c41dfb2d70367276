"""The shipped content's graded practice and key points, read from the files.

Every question has 3-6 key points; at least 30 calculation questions have a practice
spec, at least 3 in every track that has calculation questions, and every spec passes
the author check over 200 seeds (finite targets, no listed mistake inside the tolerance,
every mistake nameable), as saving it in admin would report.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import frontmatter
import pytest

from calculators import grading
from questions.content_format import PRACTICE_KEYS
from questions.practice import key_point_problems

CONTENT = Path(__file__).resolve().parents[2] / "content" / "tracks"
QUESTIONS = sorted(CONTENT.glob("*/[0-9]*.md"))


def meta(path: Path) -> dict:
    return frontmatter.load(path).metadata


def practice_of(path: Path) -> dict:
    m = meta(path)
    return {k: m[k] for k in PRACTICE_KEYS if k in m}


def test_every_question_has_three_to_six_key_points():
    assert len(QUESTIONS) >= 300
    problems = {
        p.name: key_point_problems(meta(p).get("key_points")) or ["missing"]
        for p in QUESTIONS
        if not meta(p).get("key_points") or key_point_problems(meta(p).get("key_points"))
    }
    assert problems == {}


def test_thirty_parametric_questions_and_three_per_calculating_track():
    with_spec = [p for p in QUESTIONS if practice_of(p)]
    assert len(with_spec) >= 30
    per_track = Counter(p.parent.name for p in with_spec)
    calculating = {p.parent.name for p in QUESTIONS if meta(p).get("kind") == "calculation"}
    assert {t: per_track[t] for t in calculating if per_track[t] < 3} == {}
    assert all(meta(p).get("kind") == "calculation" for p in with_spec)
    used = {m for p in with_spec for m in practice_of(p).get("mistakes", [])}
    assert used == set(grading.MISTAKES)  # every named mistake is taught somewhere


@pytest.mark.parametrize(
    "path",
    [p for p in QUESTIONS if practice_of(p)],
    ids=lambda p: f"{p.parent.name}/{p.name[:2]}",
)
def test_each_shipped_spec_passes_the_author_check(path):
    spec = grading.parse_spec(practice_of(path))
    report = grading.author_check(spec, seeds=200)
    assert report["ok"], report["problems"]
    variant = grading.draw(spec, grading.seed_for("reader", "q", 1))
    prompt = grading.prompt_for(spec, variant)
    assert "{" not in prompt and len(prompt) > 40
    for number, _ in enumerate(spec.follow_ups, start=1):
        assert grading.expected(spec, variant, number) != grading.expected(spec, variant)
