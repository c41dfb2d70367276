"""Review: a public username must not be derived from the sign-up email address."""

import pytest
from django.contrib.auth import get_user_model

from inferview.community.discussion.services import comment_create
from tests.factories import QuestionFactory

pytestmark = pytest.mark.django_db

PASSWORD = "Tr0ub4dor&3xyzzy-long"


def test_signup_username_does_not_reveal_the_email(client):
    r = client.post(
        "/accounts/signup/",
        {"email": "jane.doe.secret@corp.example", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert r.status_code == 302
    user = get_user_model().objects.get(email="jane.doe.secret@corp.example")
    assert user.username
    assert "jane" not in user.username.lower()
    assert "secret" not in user.username.lower()
    assert "corp" not in user.username.lower()


def test_comment_author_shown_publicly_is_not_the_email_local_part(client, client_for):
    client.post(
        "/accounts/signup/",
        {"email": "jane.doe.secret@corp.example", "password1": PASSWORD, "password2": PASSWORD},
    )
    user = get_user_model().objects.get(email="jane.doe.secret@corp.example")
    q = QuestionFactory()
    comment_create(user=user, body="My approach.", question=q)
    visitor = client_for(None)  # a stranger, not the signed-up session with its flash message
    page = visitor.get(q.get_absolute_url()).content.decode()
    api = visitor.get(f"/api/v1/questions/{q.pk}/comments/").content.decode()
    for text in (page, api):
        assert "My approach." in text
        assert "jane.doe" not in text
