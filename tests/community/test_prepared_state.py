"""The reader's state on a question page: one statement text for every question, which
PostgreSQL prepares once per connection (``inferview.prepared``)."""

import pytest
from django.db import connection

from inferview.community.models import Progress, ProgressStatus
from inferview.community.pages import _reader_state
from tests.factories import QuestionFactory, UserFactory

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

STATE = 'SELECT EXISTS (SELECT 1 FROM "community_bookmark"'


def _prepared() -> dict[str, int]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT statement, generic_plans + custom_plans FROM pg_prepared_statements"
            " WHERE statement LIKE %s",
            [STATE + "%"],
        )
        return dict(cursor.fetchall())


def test_every_question_runs_the_same_prepared_statement():
    assert connection.vendor == "postgresql"
    reader = UserFactory()
    questions = [QuestionFactory() for _ in range(4)]
    Progress.objects.create(
        user=reader, question=questions[2], status=ProgressStatus.CONFIDENT.value
    )
    before = _prepared()
    states = [
        _reader_state(
            user_pk=reader.pk,
            question_id=q.pk,
            key_points=True,
            candidates=[other.pk for other in questions if other != q],
        )
        for q in questions
    ]
    after = _prepared()
    assert len(after) == 1, list(after)  # one text, whichever the question and candidates
    ((statement, runs),) = after.items()
    assert runs - before.get(statement, 0) == len(questions)
    # and it still answers: questions[2] is the confident one, at its place in each list
    assert [s["confident"] for s in states] == [0b10, 0b10, 0, 0b100]
    assert [s["progress_id"] is not None for s in states] == [False, False, True, False]


def test_the_prepared_cursor_behaves_as_django_s_own():
    """Counted and logged as any query, seen by execute wrappers, and its errors come out
    as Django's (which inferview.outage turns into 503s)."""
    from django.db import DatabaseError
    from django.test.utils import CaptureQueriesContext

    from inferview.prepared import prepared_cursor

    seen = []

    def wrapper(execute, sql, params, many, context):
        seen.append(sql)
        return execute(sql, params, many, context)

    with CaptureQueriesContext(connection) as queries, connection.execute_wrapper(wrapper):
        with prepared_cursor() as cursor:
            cursor.execute("SELECT %s::int + 1", [41])
            assert cursor.fetchone() == (42,)
    assert seen == ["SELECT %s::int + 1"]
    assert [q["sql"] for q in queries.captured_queries] == ["SELECT %s::int + 1"]
    with pytest.raises(DatabaseError), prepared_cursor() as cursor:
        cursor.execute("SELECT no_such_column FROM community_bookmark WHERE id = %s", [1])
