"""The shipped content, read straight from the files (no database): the breadth the
product promises. The quality rules themselves are in test_content_check.py."""

import re
from collections import Counter
from pathlib import Path

import frontmatter
import pytest

CONTENT = Path(__file__).resolve().parents[2] / "content"
KINDS = {"explain", "calculation", "diagnose", "spot-the-mistake", "design"}


def _questions():
    for path in sorted(CONTENT.glob("tracks/*/[0-9]*.md")):
        yield path, frontmatter.load(path)


def _tracks() -> dict[str, list]:
    by_track: dict[str, list] = {}
    for path, post in _questions():
        by_track.setdefault(path.parent.name, []).append(post)
    return by_track


def test_six_tracks_of_at_least_fifty_questions_split_ten_ten_rest():
    tracks = _tracks()
    assert len(tracks) >= 6
    assert sum(len(posts) for posts in tracks.values()) >= 300
    for name, posts in tracks.items():
        levels = Counter(p["access"] for p in posts)
        assert len(posts) >= 50, name
        assert (levels["open"], levels["account"]) == (10, 10), (name, levels)
        assert levels["premium"] == len(posts) - 20, (name, levels)


def test_each_track_spreads_difficulty_kind_and_dates():
    for name, posts in _tracks().items():
        assert {p["difficulty"] for p in posts} == {"easy", "medium", "hard"}, name
        assert {p["kind"] for p in posts} == KINDS, name
        months = {str(p["published_at"])[:7] for p in posts}
        assert len(months) >= 6, (name, sorted(months))  # spread over 2026
        assert all(str(p["published_at"]) <= "2026-12-03" for p in posts), name


def test_numbers_are_one_to_n_in_each_track_and_name_their_file():
    by_track: dict[str, list[int]] = {}
    for path, post in _questions():
        by_track.setdefault(path.parent.name, []).append(post["number"])
        assert path.name.startswith(f"{post['number']:02d}-"), path
    for name, numbers in by_track.items():
        assert sorted(numbers) == list(range(1, len(numbers) + 1)), name


def test_questions_have_unique_keys():
    keys = [post.get("key") for _, post in _questions()]
    assert all(keys) and len(set(keys)) == len(keys)


def test_ninety_concepts_at_every_level():
    posts = [frontmatter.load(p) for p in CONTENT.glob("concepts/*.md")]
    assert len(posts) >= 90
    assert {p["level"] for p in posts} == {"foundations", "intermediate", "advanced"}
    assert {p["category"] for p in posts} >= {
        "serving",
        "hardware",
        "kernels",
        "systems",
        "training",
    }


def test_four_guides_with_two_hundred_items():
    guides = [p for p in (CONTENT / "guides").iterdir() if p.is_dir()]
    assert len(guides) >= 4
    items = sum(
        len(re.findall(r"^## [a-z-]+: ", p.read_text(), re.MULTILINE))
        for p in CONTENT.glob("guides/*/[0-9]*.md")
    )
    assert items >= 200


def test_forty_diagrams_all_embedded():
    files = {p.name for p in (CONTENT / "diagrams").glob("*.svg")}
    assert len(files) >= 40
    text = "".join(p.read_text() for p in CONTENT.rglob("*.md"))
    embedded = set(re.findall(r"\]\(diagrams/([a-z0-9-]+\.svg)", text))
    assert files <= embedded, sorted(files - embedded)


@pytest.mark.parametrize("path", sorted(CONTENT.glob("diagrams/*.svg")), ids=lambda p: p.name)
def test_each_diagram_is_self_contained_svg(path):
    import xml.dom.minidom

    svg = path.read_text()
    doc = xml.dom.minidom.parseString(svg)  # well-formed
    root = doc.documentElement
    assert root.tagName == "svg" and root.getAttribute("viewBox"), path.name
    assert root.getElementsByTagName("title"), f"{path.name}: no <title>"
    for forbidden in ("<script", "<image", "<foreignObject", 'href="http', "@import"):
        assert forbidden not in svg, f"{path.name}: {forbidden}"


def test_calculation_questions_use_a_directive():
    missing = [
        path.name
        for path, post in _questions()
        if post["kind"] == "calculation" and "{{calc" not in post.content
    ]
    assert missing == []
