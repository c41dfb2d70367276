"""Sessions live in the database and are read from the cache (inferview.sessions)."""

from __future__ import annotations

import pytest
from django.contrib.sessions.models import Session
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from inferview import sessions
from tests.factories import QuestionFactory


@pytest.mark.django_db
def test_a_signed_in_page_reads_its_session_from_the_cache(client_for, free_user):
    client = client_for(free_user)
    key = client.cookies["sessionid"].value
    assert Session.objects.filter(session_key=key).exists()  # kept in the database
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/").status_code == 200
    assert not [q for q in queries if "django_session" in q["sql"]]


@pytest.mark.django_db
def test_a_session_missing_from_the_cache_is_read_from_the_database(client_for, free_user):
    client = client_for(free_user)
    cache.clear()  # Redis restarted empty, or the copy expired
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/dashboard/")
    assert response.status_code == 200 and response.wsgi_request.user == free_user
    assert [q for q in queries if "django_session" in q["sql"]]
    with CaptureQueriesContext(connection) as again:  # and is cached again
        client.get("/dashboard/")
    assert not [q for q in again if "django_session" in q["sql"]]


@pytest.mark.django_db
def test_the_cached_copy_lives_at_most_cache_seconds(client_for, free_user, monkeypatch):
    timeouts = []
    real_set = cache.set
    monkeypatch.setattr(
        cache,
        "set",
        lambda key, value, timeout=None, **kw: (
            timeouts.append(timeout) or real_set(key, value, timeout, **kw)
        ),
    )
    client_for(free_user)  # signing in saves the session for two weeks
    assert timeouts and max(timeouts) == sessions.CACHE_SECONDS


@pytest.mark.django_db
def test_signing_out_ends_the_session_in_both_places(client_for, free_user):
    client = client_for(free_user)
    key = client.cookies["sessionid"].value
    question = QuestionFactory()
    assert client.get(question.get_absolute_url()).wsgi_request.user.is_authenticated
    client.post("/accounts/logout/")
    assert not Session.objects.filter(session_key=key).exists()
    assert cache.get(sessions.SessionStore.cache_key_prefix + key) is None
    client.cookies["sessionid"] = key  # replaying the old cookie signs nobody in
    assert not client.get("/").wsgi_request.user.is_authenticated
