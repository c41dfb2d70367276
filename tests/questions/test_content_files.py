"""The shipped starter content, read straight from the files (no database)."""

import re
from collections import Counter
from pathlib import Path

import frontmatter
import pytest

CONTENT = Path(__file__).resolve().parents[2] / "content"
SEPARATOR = "<!-- answer -->"


def _words(markdown: str) -> int:
    text = re.sub(r"\{\{calc[^}]*\}\}", " number ", markdown)
    return len(re.findall(r"[A-Za-z0-9][\w'.,%/-]*", text))


def _questions():
    for path in sorted(CONTENT.glob("tracks/*/[0-9]*.md")):
        yield path, frontmatter.load(path)


def test_at_least_six_tracks_of_twelve_questions():
    tracks = sorted(p for p in (CONTENT / "tracks").iterdir() if p.is_dir())
    assert len(tracks) >= 6
    for track in tracks:
        assert (track / "_track.md").exists(), track
        assert len(list(track.glob("[0-9]*.md"))) >= 12, track.name


def test_question_total_and_access_split():
    levels = Counter(post["access"] for _, post in _questions())
    total = sum(levels.values())
    assert total >= 72
    for level in ("open", "account", "premium"):
        # "about a third each": within 25%..42% of the total
        assert 0.25 * total <= levels[level] <= 0.42 * total, levels


def test_numbers_are_one_to_n_in_each_track():
    by_track: dict[str, list[int]] = {}
    for path, post in _questions():
        by_track.setdefault(path.parent.name, []).append(post["number"])
        assert path.name.startswith(f"{post['number']:02d}-"), path
    for name, numbers in by_track.items():
        assert sorted(numbers) == list(range(1, len(numbers) + 1)), name


@pytest.mark.parametrize("path", sorted(CONTENT.glob("tracks/*/[0-9]*.md")), ids=lambda p: p.name)
def test_each_answer_has_senior_depth(path):
    post = frontmatter.load(path)
    assert SEPARATOR in post.content, path
    _, answer = post.content.split(SEPARATOR, 1)
    assert _words(answer) >= 150, f"{path.name}: {_words(answer)} words"
    for key in ("slug", "title", "summary", "difficulty", "kind", "access"):
        assert post.get(key), f"{path.name}: {key}"


def test_at_least_24_concepts_and_every_referenced_concept_exists():
    slugs = {frontmatter.load(p)["slug"] for p in CONTENT.glob("concepts/*.md")}
    assert len(slugs) >= 24
    referenced = {s for _, post in _questions() for s in post.get("concepts") or []}
    for path in CONTENT.glob("guides/*/[0-9]*.md"):
        referenced |= set(frontmatter.load(path).get("concepts") or [])
    assert referenced <= slugs, referenced - slugs


def test_two_guides_with_thirty_items():
    guides = [p for p in (CONTENT / "guides").iterdir() if p.is_dir()]
    assert len(guides) >= 2
    items = sum(
        len(re.findall(r"^## [a-z-]+: ", p.read_text(), re.MULTILINE))
        for p in CONTENT.glob("guides/*/[0-9]*.md")
    )
    assert items >= 30


def test_no_broken_calculator_directive_in_shipped_content():
    from calculators.directive import find_directive_errors

    problems = []
    for path in sorted(CONTENT.rglob("*.md")):
        if path.name == "README.md":
            continue
        for error in find_directive_errors(path.read_text()):
            problems.append(f"{path.relative_to(CONTENT)}: {error}")
    assert problems == []


def test_calculation_questions_use_a_directive():
    missing = [
        path.name
        for path, post in _questions()
        if post["kind"] == "calculation" and "{{calc" not in post.content
    ]
    assert missing == []
