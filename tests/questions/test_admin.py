"""An author (staff, in the authors group, not a superuser) works in admin."""

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse

from questions.models import Question
from questions.roles import AUTHORS_GROUP
from tests.factories import ConceptFactory, QuestionFactory, TrackFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_authors_group_has_content_permissions_only():
    perms = set(
        Group.objects.get(name=AUTHORS_GROUP).permissions.values_list(
            "content_type__app_label", flat=True
        )
    )
    assert perms == {"questions"}


def test_author_creates_previews_and_publishes_a_question(author_client):
    track = TrackFactory()
    concept = ConceptFactory()
    response = author_client.post(
        reverse("admin:questions_question_add"),
        {
            "track": track.pk,
            "number": "",
            "title": "Why is decode memory-bound?",
            "slug": "why-decode-memory-bound",
            "summary": "Weights per token against FLOPs per token.",
            "difficulty": "easy",
            "kind": "explain",
            "access": "open",
            "concepts": [concept.pk],
            "body": "An interviewer asks.",
            "answer": "Because **each token** reads every weight.",
            "calculator_embeds-TOTAL_FORMS": "0",
            "calculator_embeds-INITIAL_FORMS": "0",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    q = Question.objects.get(slug="why-decode-memory-bound")
    assert q.number == 1 and not q.published

    preview = author_client.post(
        reverse("admin:questions_question_markdown_preview"),
        {"text": "**bold** <script>x()</script>"},
    )
    assert preview.json()["html"].startswith("<p><strong>bold</strong>")
    assert "<script" not in preview.json()["html"]

    page = author_client.get(reverse("admin:questions_question_page_preview", args=[q.pk]))
    assert page.status_code == 200 and b"<strong>each token</strong>" in page.content
    assert author_client.get(q.get_absolute_url()).status_code == 404  # still a draft

    asked = author_client.post(
        reverse("admin:questions_question_changelist"),
        {"action": "publish", "_selected_action": [q.pk]},
    )
    assert b"Yes, publish" in asked.content  # bulk publish asks first
    q.refresh_from_db()
    assert not q.published
    author_client.post(
        reverse("admin:questions_question_changelist"),
        {"action": "publish", "_selected_action": [q.pk], "confirm": "yes"},
    )
    q.refresh_from_db()
    assert q.published and q.published_at is not None
    assert author_client.get(q.get_absolute_url()).status_code == 200


def test_author_reorders_a_track(author_client):
    track = TrackFactory()
    qs = [QuestionFactory(track=track, number=i) for i in (1, 2, 3)]
    url = reverse("admin:questions_track_reorder", args=[track.pk])
    assert author_client.get(url).status_code == 200
    author_client.post(url, {f"q{qs[0].pk}": 3, f"q{qs[1].pk}": 1, f"q{qs[2].pk}": 2})
    assert [q.slug for q in Question.objects.filter(track=track).order_by("number")] == [
        qs[1].slug,
        qs[2].slug,
        qs[0].slug,
    ]


def test_number_clash_is_a_form_error_not_a_500(author_client):
    track = TrackFactory()
    QuestionFactory(track=track, number=1)
    response = author_client.post(
        reverse("admin:questions_question_add"),
        {
            "track": track.pk,
            "number": 1,
            "title": "T",
            "slug": "t",
            "summary": "s",
            "difficulty": "easy",
            "kind": "explain",
            "access": "open",
            "answer": "a",
            "calculator_embeds-TOTAL_FORMS": "0",
            "calculator_embeds-INITIAL_FORMS": "0",
        },
    )
    assert response.status_code == 200 and b"already has a question 1" in response.content


def test_non_author_staff_cannot_preview(client):
    client.force_login(UserFactory(is_staff=True))
    response = client.post(reverse("admin:questions_question_markdown_preview"), {"text": "x"})
    assert response.status_code == 403
