"""Every save keeps a revision; publish and reorder appear in the history; a revision can
be diffed against the current text and reverted."""

import pytest
import reversion
from django.urls import reverse
from reversion.models import Version

from questions import services
from questions.models import Question
from tests.factories import QuestionFactory


def admin_save(question, user, **fields):
    """What admin's change form does: set fields, save through the service, in a revision."""
    with reversion.create_revision():
        reversion.set_user(user)
        for name, value in fields.items():
            setattr(question, name, value)
        services.save_content(question)


@pytest.mark.django_db
def test_a_revision_is_diffed_and_reverted(admin_client, admin_user):
    q = QuestionFactory(title="Original title?", answer="Line one.\nLine two.")
    admin_save(q, admin_user, title="Original title?")
    admin_save(q, admin_user, title="Rewritten title?", answer="Line one.\nLine 2 changed.")
    versions = Version.objects.get_for_object(q)
    assert versions.count() == 2
    first = versions.last()

    url = reverse("admin:questions_question_revision_diff", args=[q.pk, first.pk])
    html = admin_client.get(url).content.decode()
    assert "-Original title?" in html and "+Rewritten title?" in html
    assert "-Line two." in html and "+Line 2 changed." in html
    assert "<h2>created_at</h2>" not in html and "<h2>published_at</h2>" not in html

    history = admin_client.get(reverse("admin:questions_question_history", args=[q.pk]))
    assert f"{first.pk}/diff/" in history.content.decode()

    first.revision.revert()
    q.refresh_from_db()
    assert q.title == "Original title?" and q.answer == "Line one.\nLine two."


@pytest.mark.django_db
def test_publish_and_reorder_are_in_the_history(admin_user):
    q = QuestionFactory(published=False)
    other = QuestionFactory(track=q.track, number=q.number + 1)
    services.set_published(Question.objects.filter(pk=q.pk), published=True, user=admin_user)
    services.renumber_track(track=q.track, ordered_ids=[other.pk, q.pk], user=admin_user)
    comments = [v.revision.get_comment() for v in Version.objects.get_for_object(q)]
    assert comments[0].startswith("Reordered") and "Published" in comments
    assert Version.objects.get_for_object(q).first().field_dict["number"] == 2


@pytest.mark.django_db
def test_an_import_is_in_the_history(tmp_path):
    from questions.content_io import import_content
    from tests.questions.test_identity_and_sync import write_tree

    import_content(write_tree(tmp_path))
    q = Question.objects.get(key="key-1")
    assert Version.objects.get_for_object(q).first().revision.get_comment().startswith("Imported")
