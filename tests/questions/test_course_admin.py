"""The course's admin: authors list, edit and preview lessons per tier; a check the server
cannot grade is refused at save naming the field; a save is a revision; list editing."""

from __future__ import annotations

import json

import pytest
import reversion
from reversion.models import Version

from questions.models import Lesson
from tests.factories import LESSON_CHECK, LessonFactory

BODY = "## The idea\n\nSECRETADMINBODY decode reads every weight.\n\n## Summary\n\n- Decode."


@pytest.fixture
def lesson(db):
    with reversion.create_revision():
        return LessonFactory(slug="premium-lesson", access="premium", body=BODY)


def form_data(lesson, **changes):
    data = {
        "part": lesson.part_id, "number": lesson.number, "title": lesson.title,
        "slug": lesson.slug, "summary": lesson.summary, "level": lesson.level,
        "access": lesson.access, "minutes": lesson.minutes, "body": lesson.body,
        "references-TOTAL_FORMS": 0, "checked": "2026-12",
        "check_items": json.dumps(lesson.check_items), "published": "on",
    }  # fmt: skip
    data.update(changes)
    return data


def test_the_changelist_and_change_form_open_for_an_author(author_client, lesson):
    listing = author_client.get("/admin/questions/lesson/")
    assert listing.status_code == 200 and lesson.title in listing.content.decode()
    assert "Preview" in listing.content.decode()
    form = author_client.get(f"/admin/questions/lesson/{lesson.pk}/change/")
    assert form.status_code == 200 and "Check yourself" in form.content.decode()
    assert author_client.get("/admin/questions/part/").status_code == 200


def test_preview_per_tier_goes_through_the_policy(author_client, lesson):
    url = f"/admin/questions/lesson/{lesson.pk}/preview/"
    staff = author_client.get(url).content.decode()
    assert "SECRETADMINBODY" in staff and LESSON_CHECK[0]["prompt"] in staff
    for tier in ("anonymous", "free"):
        html = author_client.get(url, {"as": tier}).content.decode()
        assert "SECRETADMINBODY" not in html and 'class="paywall"' in html
        assert "The idea" in html  # the table of contents stays
        assert LESSON_CHECK[0]["prompt"] not in html
    assert "SECRETADMINBODY" in author_client.get(url, {"as": "premium"}).content.decode()


def test_an_ungradable_check_is_refused_at_save_naming_the_field(author_client, lesson):
    bad = [LESSON_CHECK[0], {**LESSON_CHECK[2], "answer": 9}, LESSON_CHECK[1]]
    response = author_client.post(
        f"/admin/questions/lesson/{lesson.pk}/change/",
        form_data(lesson, check_items=json.dumps(bad)),
    )
    assert response.status_code == 200
    assert "check[2]: answer" in response.content.decode()
    lesson.refresh_from_db()
    assert lesson.check_items == LESSON_CHECK  # unchanged


def test_a_save_is_a_revision_and_moves_updated(author_client, lesson):
    before = Version.objects.get_for_object(lesson).count()
    response = author_client.post(
        f"/admin/questions/lesson/{lesson.pk}/change/",
        form_data(lesson, summary="A new summary for the lesson."),
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    lesson.refresh_from_db()
    assert lesson.summary == "A new summary for the lesson."
    assert lesson.content_hash and lesson.content_hash != lesson.synced_hash
    assert Version.objects.get_for_object(lesson).count() == before + 1


def test_list_editing_access(author_client, lesson):
    data = {
        "form-TOTAL_FORMS": 1, "form-INITIAL_FORMS": 1, "form-0-id": lesson.pk,
        "form-0-level": "advanced", "form-0-access": "account", "form-0-minutes": 12,
        "_save": "Save",
    }  # fmt: skip
    response = author_client.post("/admin/questions/lesson/", data)
    assert response.status_code == 302
    assert Lesson.objects.filter(pk=lesson.pk, access="account", minutes=12).exists()
