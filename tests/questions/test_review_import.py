"""Review: the importer names the file and field for every bad value it could store.

An unknown concept ``access`` used to be saved, and then every page listing the concept
(the curriculum included) was a 500, because the access policy has no rule for it.
"""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from questions.models import Concept, Track

pytestmark = pytest.mark.django_db

TRACK = "---\nslug: t\ntitle: T\ncategory: hardware\nsummary: s\n---\n"
QUESTION = (
    "---\nnumber: {number}\nslug: x\ntitle: X\nsummary: s\ndifficulty: easy\nkind: explain\n---\n"
    "body\n<!-- answer -->\nanswer\n"
)


def _concept(tmp_path, **fields):
    meta = {"slug": "c", "title": "C", "category": "hardware", "summary": "s", **fields}
    (tmp_path / "concepts").mkdir(parents=True, exist_ok=True)
    header = "".join(f"{k}: {v}\n" for k, v in meta.items())
    (tmp_path / "concepts" / "c.md").write_text(f"---\n{header}---\nbody\n")


@pytest.mark.parametrize(
    ("field", "value"), [("access", "paid"), ("level", "guru"), ("category", "cooking")]
)
def test_unknown_concept_choice_is_a_named_error(tmp_path, field, value):
    _concept(tmp_path, **{field: value})
    with pytest.raises(CommandError, match=rf"c\.md: {field}: '{value}'"):
        call_command("import_content", str(tmp_path))
    assert not Concept.objects.exists()


def test_unknown_track_category_is_a_named_error(tmp_path):
    d = tmp_path / "tracks" / "t"
    d.mkdir(parents=True)
    (d / "_track.md").write_text(TRACK.replace("hardware", "cooking"))
    with pytest.raises(CommandError, match=r"_track\.md: category: 'cooking'"):
        call_command("import_content", str(tmp_path))
    assert not Track.objects.exists()


@pytest.mark.parametrize("number", ["one", "0", "-3"])
def test_bad_question_number_is_a_named_error(tmp_path, number):
    d = tmp_path / "tracks" / "t"
    d.mkdir(parents=True)
    (d / "_track.md").write_text(TRACK)
    (d / "01-x.md").write_text(QUESTION.format(number=number))
    with pytest.raises(CommandError, match=r"01-x\.md: number: "):
        call_command("import_content", str(tmp_path))
    assert not Track.objects.exists()


def test_overlong_summary_is_a_named_error(tmp_path):
    d = tmp_path / "tracks" / "t"
    d.mkdir(parents=True)
    (d / "_track.md").write_text(TRACK)
    (d / "01-x.md").write_text(
        QUESTION.format(number=1).replace("summary: s", "summary: " + "s" * 301)
    )
    with pytest.raises(CommandError, match=r"01-x\.md: summary: 301 characters, at most 300"):
        call_command("import_content", str(tmp_path))
    assert not Track.objects.exists()
