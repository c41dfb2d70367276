"""Before an author unpublishes or deletes, the confirmation lists what points at the item."""

import pytest
from django.urls import reverse

from inferview.community.models import Bookmark
from questions.dependents import dependents
from questions.models import Concept, Question
from tests.factories import ConceptFactory, QuestionFactory, UserFactory


@pytest.mark.django_db
def test_a_concept_lists_its_questions_links_and_bookmarks():
    concept = ConceptFactory(published=True)
    users = [QuestionFactory(title=f"Uses it {i}?") for i in range(3)]
    for q in users:
        q.concepts.add(concept)
    QuestionFactory(answer=f"See [the concept](/concepts/{concept.slug}/).")
    Bookmark.objects.create(user=UserFactory(), concept=concept)
    lines = dependents(concept)
    assert any(line.startswith("Used by 3 published question(s)") for line in lines)
    assert any(line.startswith("Linked from 1 answer(s)") for line in lines)
    assert any("1 reader bookmark(s)" in line for line in lines)


@pytest.mark.django_db
def test_unpublish_asks_first_then_unpublishes(admin_client):
    concept = ConceptFactory(published=True, title="Paged attention")
    q = QuestionFactory()
    q.concepts.add(concept)
    url = reverse("admin:questions_concept_changelist")
    ask = admin_client.post(url, {"action": "unpublish", "_selected_action": [concept.pk]})
    assert ask.status_code == 200 and b"Used by 1 published question(s)" in ask.content
    assert Concept.objects.get(pk=concept.pk).published
    admin_client.post(
        url, {"action": "unpublish", "_selected_action": [concept.pk], "confirm": "yes"}
    )
    assert not Concept.objects.get(pk=concept.pk).published


@pytest.mark.django_db
def test_delete_confirmation_lists_bookmarks(admin_client):
    q = QuestionFactory()
    Bookmark.objects.create(user=UserFactory(), question=q)
    page = admin_client.get(reverse("admin:questions_question_delete", args=[q.pk]))
    assert b"What points at this" in page.content and b"1 reader bookmark(s)" in page.content
    assert Question.objects.filter(pk=q.pk).exists()
