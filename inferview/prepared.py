"""A cursor whose statements PostgreSQL plans once per connection, for hot hand-written SQL.

Django binds parameters on the client and turns psycopg's prepared statements off (so
that connection poolers in transaction mode keep working): PostgreSQL then plans every
statement it receives. For the signed-in reader's state on a question page (one
statement of a dozen small subqueries) the planning cost 0.76 ms and the execution
0.2 ms, on every first view.

``prepared_cursor()`` gives, on PostgreSQL, Django's usual cursor wrapper (health check,
error translation, query logging and execute wrappers as ``connection.cursor()`` has
them; not its time-zone loader for timestamps, so select none) around a server-binding
psycopg cursor that prepares what it executes. A statement whose
text does not change from call to call (parameters for every value) is then parsed and
planned once per connection, and after psycopg's and PostgreSQL's first few executions
runs on a cached generic plan. Its parameters must be ones PostgreSQL can bind (values,
not identifiers) and typed where PostgreSQL cannot guess (``%s::bigint[]``).

Behind a transaction-mode pooler such as PgBouncer, prepared statements need its
``max_prepared_statements`` (1.21 or later). Elsewhere (SQLite) this is
``connection.cursor()``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import connection


def _prepared_classes() -> tuple[type, type]:
    from django.db.backends.postgresql.base import CursorDebugWrapper, ServerBindingCursor
    from django.db.backends.utils import CursorWrapper

    class PreparedCursor(ServerBindingCursor):
        def execute(self, query: Any, params: Any = None, **kwargs: Any) -> Any:
            kwargs["prepare"] = True
            return super().execute(query, params, **kwargs)

    class PreparedDebugWrapper(CursorDebugWrapper):
        """Logs the statement as written (with its placeholders): Django reads the
        executed text back from psycopg, which keeps none for a prepared statement."""

        def execute(self, sql: Any, params: Any = None) -> Any:
            with self.debug_sql(sql, params, use_last_executed_query=False):
                return CursorWrapper.execute(self, sql, params)

    return PreparedCursor, PreparedDebugWrapper


_CLASSES: list[tuple[type, type]] = []


@contextmanager
def prepared_cursor() -> Iterator[Any]:
    if connection.vendor != "postgresql":
        with connection.cursor() as cursor:
            yield cursor
        return
    if not _CLASSES:
        _CLASSES.append(_prepared_classes())
    cursor_class, debug_wrapper = _CLASSES[0]
    # What ``connection.cursor()`` does, with our cursor class in place of Django's.
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    with connection.wrap_database_errors:
        connection.validate_thread_sharing()
        raw = cursor_class(connection.connection)
    wrapped = (
        debug_wrapper(raw, connection) if connection.queries_logged else connection.make_cursor(raw)
    )
    with wrapped as cursor:
        yield cursor
