"""Fixtures of the content app's tests."""

import pytest
from django.contrib.auth.models import Group

from questions.roles import AUTHORS_GROUP
from tests.factories import UserFactory


@pytest.fixture
def author(db):
    """An author as ``add_author`` makes one: staff in the authors group (not a superuser),
    with the second factor the admin requires (UserFactory gives staff an authenticator
    app, so the two-factor middleware lets the session in)."""
    user = UserFactory(is_staff=True, email="author@example.com")
    user.groups.add(Group.objects.get(name=AUTHORS_GROUP))
    return user


@pytest.fixture
def author_client(client, author):
    """The test client signed in as ``author``."""
    client.force_login(author)
    return client
