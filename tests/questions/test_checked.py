"""``checked: YYYY-MM``: read and refused like the other fields, stored, imported and exported
unchanged, editable in admin, shown on the pages and in the API."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
import yaml
from django.core.exceptions import ValidationError
from django.core.management import call_command

from questions import services
from questions.checked import as_month, month_problem
from questions.content_format import ContentError
from questions.content_io import import_content
from questions.models import Concept, Guide, GuideSection, Question
from tests.factories import (
    ConceptFactory,
    GuideFactory,
    GuideItemFactory,
    GuideSectionFactory,
    QuestionFactory,
)

REF = {"title": "A paper", "publisher": "arXiv", "year": 2024, "url": "https://arxiv.org/abs/1"}
TODAY = dt.date(2026, 12, 6)


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("2026-12", None),
        ("2026-11", None),
        ("2026-13", "not a real month"),
        ("2026-00", "not a real month"),
        ("2027-01", "in the future"),
        ("2026-1", "not a month written YYYY-MM"),
        ("Dec 2026", "not a month written YYYY-MM"),
        (dt.date(2026, 12, 1), "is a date; write the month alone"),
        (202612, "not a month written YYYY-MM"),
    ],
)
def test_month_problem(value, problem):
    found = month_problem(value, today=TODAY)
    assert found is None if problem is None else problem in found


def test_as_month():
    assert as_month("2026-12") == dt.date(2026, 12, 1)
    assert as_month("") is None


def write(path: Path, meta: dict, content: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{yaml.safe_dump(meta, sort_keys=False)}---\n{content}\n")
    return path


def content_tree(root: Path, checked: str | None = "2026-12") -> Path:
    """A concept, a track with one question, and a guide with one section, each checked."""
    month = {"checked": checked} if checked else {}
    write(
        root / "concepts" / "c.md",
        {"slug": "c", "title": "C", "category": "serving", "summary": "S.", **month},
        "Body.",
    )
    write(
        root / "tracks" / "t" / "_track.md",
        {"slug": "t", "title": "T", "category": "serving", "summary": "S."},
        "",
    )
    write(
        root / "tracks" / "t" / "01-q.md",
        {
            "number": 1,
            "slug": "q",
            "title": "Q?",
            "summary": "S.",
            "difficulty": "easy",
            "kind": "explain",
            "concepts": ["c"],
            **month,
        },
        "Body.\n\n<!-- answer -->\n\nAnswer.",
    )
    write(
        root / "guides" / "g" / "_guide.md",
        {"slug": "g", "title": "G", "summary": "S.", **month},
        "",
    )
    write(
        root / "guides" / "g" / "01-s.md",
        {"order": 1, "slug": "s", "title": "S", **month},
        "## explain: Why?\n\nBecause.",
    )
    return root


@pytest.mark.django_db
def test_checked_is_imported_and_exported_unchanged(tmp_path):
    root = content_tree(tmp_path / "in")
    import_content(root)
    for model in (Question, Concept, Guide, GuideSection):
        assert model.objects.get().checked == "2026-12", model
    out = tmp_path / "out"
    call_command("export_content", str(out))
    for path in ("concepts/c.md", "tracks/t/01-q.md", "guides/g/_guide.md", "guides/g/01-s.md"):
        assert "\nchecked: 2026-12\n" in (out / path).read_text(), path
    report = import_content(out)
    assert not report.changed, str(report)


@pytest.mark.django_db
def test_files_without_checked_export_without_it(tmp_path):
    import_content(content_tree(tmp_path / "in", checked=None))
    assert Question.objects.get().checked == ""
    call_command("export_content", str(tmp_path / "out"))
    assert "checked" not in (tmp_path / "out" / "tracks" / "t" / "01-q.md").read_text()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("checked", "message"),
    [
        ("2026-13", "not a real month"),
        ("2099-01", "in the future"),
        ("12/2026", "YYYY-MM"),
        (dt.date(2026, 12, 1), "write the month alone"),
    ],
)
def test_a_bad_checked_names_the_file_and_the_field(tmp_path, checked, message):
    root = content_tree(tmp_path, checked="2026-12")
    path = root / "tracks" / "t" / "01-q.md"
    meta = yaml.safe_load(path.read_text().split("---")[1])
    write(path, {**meta, "checked": checked}, "Body.\n\n<!-- answer -->\n\nAnswer.")
    with pytest.raises(ContentError, match=rf"01-q\.md: checked: .*{message}"):
        import_content(root)
    assert not Question.objects.exists()


@pytest.mark.django_db
def test_a_new_checked_month_alone_keeps_updated_but_marks_the_item_edited():
    question = QuestionFactory()
    services.save_content(question, synced=True)
    updated, content_hash = question.updated_at, question.content_hash
    question.checked = "2026-12"
    assert services.save_content(question)
    question.refresh_from_db()
    assert question.updated_at == updated  # re-verifying is not an edit of the text
    assert question.content_hash != content_hash  # but an import would not overwrite it
    question.answer += " One more sentence."
    services.save_content(question)
    question.refresh_from_db()
    assert question.updated_at > updated


@pytest.mark.django_db
def test_admin_validates_the_month():
    question = QuestionFactory(checked="2026-13")
    with pytest.raises(ValidationError) as exc:
        question.full_clean()
    assert "checked" in exc.value.message_dict


@pytest.mark.django_db
def test_admin_edits_checked(admin_client):
    concept = ConceptFactory()
    page = admin_client.get(f"/admin/questions/concept/{concept.pk}/change/").content.decode()
    assert 'name="checked"' in page
    question = QuestionFactory()
    page = admin_client.get(f"/admin/questions/question/{question.pk}/change/").content.decode()
    assert 'name="checked"' in page


@pytest.mark.django_db
def test_pages_show_checked_beside_updated(client):
    question = QuestionFactory(access="open", checked="2026-12")
    html = client.get(question.get_absolute_url()).content.decode()
    assert 'Checked <time datetime="2026-12">Dec 2026</time>' in html
    concept = ConceptFactory(checked="2026-11")
    html = client.get(concept.get_absolute_url()).content.decode()
    assert 'Checked <time datetime="2026-11">Nov 2026</time>' in html
    guide = GuideFactory(checked="2026-12")
    section = GuideSectionFactory(guide=guide, checked="2026-11")
    GuideItemFactory(section=section)
    html = client.get(guide.get_absolute_url()).content.decode()
    assert 'Checked <time datetime="2026-12">Dec 2026</time>' in html
    assert 'This section checked <time datetime="2026-11">Nov 2026</time>' in html


@pytest.mark.django_db
def test_pages_without_checked_say_nothing(client):
    question = QuestionFactory(access="open")
    assert "Checked" not in client.get(question.get_absolute_url()).content.decode()


@pytest.mark.django_db
def test_api_shows_checked_beside_updated_at(client):
    question = QuestionFactory(access="open", checked="2026-12")
    QuestionFactory(track=question.track, number=2)
    listed = client.get("/api/v1/questions/").json()["results"]
    assert {q["checked"] for q in listed} == {"2026-12", None}
    assert client.get(f"/api/v1/questions/{question.pk}/").json()["checked"] == "2026-12"
    concept = ConceptFactory(checked="2026-11")
    assert client.get(f"/api/v1/concepts/{concept.slug}/").json()["checked"] == "2026-11"
    guide = GuideFactory(checked="2026-12")
    GuideSectionFactory(guide=guide, checked="2026-11")
    data = client.get(f"/api/v1/guides/{guide.slug}/").json()
    assert data["checked"] == "2026-12" and data["sections"][0]["checked"] == "2026-11"
