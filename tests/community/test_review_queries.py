"""Review: the dashboard API runs the same number of queries for 1 and 10 recent comments."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.community.factories import CommentFactory
from tests.factories import QuestionFactory

pytestmark = pytest.mark.django_db


def _queries(client) -> int:
    with CaptureQueriesContext(connection) as ctx:
        r = client.get("/api/v1/dashboard/")
    assert r.status_code == 200
    return len(ctx.captured_queries)


def test_dashboard_api_query_count_does_not_grow_with_comments(client_for, user):
    c = client_for(user)
    q = QuestionFactory()
    CommentFactory(question=q, author=user)
    one = _queries(c)
    CommentFactory.create_batch(9, question=q, author=user)
    ten = _queries(c)
    assert len(c.get("/api/v1/dashboard/").json()["comments"]) == 10
    assert ten == one
