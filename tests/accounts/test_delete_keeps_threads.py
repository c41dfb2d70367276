"""Deleting an account removes its personal data but not other people's replies."""

import pytest

from inferview.accounts.services import delete_account
from inferview.community.discussion.services import comment_create
from inferview.community.models import Comment
from tests.factories import QuestionFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_deleting_an_account_blanks_its_comments_and_keeps_replies(client):
    question = QuestionFactory()
    leaver, stayer = UserFactory(), UserFactory()
    top = comment_create(user=leaver, question=question, body="My approach: secret-personal-words")
    reply = comment_create(
        user=stayer, question=question, parent=top, body="A reply that must survive"
    )

    delete_account(user=leaver)

    top.refresh_from_db()
    assert top.author is None and top.body == "" and top.deleted_at is not None
    assert Comment.objects.filter(pk=reply.pk, author=stayer).exists()
    html = client.get(question.get_absolute_url()).content.decode()
    assert "A reply that must survive" in html
    assert "secret-personal-words" not in html and "[deleted]" in html
