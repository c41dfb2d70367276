"""A worker keeps its database connection across tasks under Django's request rules
(inferview.celery), instead of Celery's fixup closing it around every task."""

from __future__ import annotations

import pytest
from celery.signals import task_postrun, task_prerun
from django.db import connection

import inferview.celery  # noqa: F401 - connects the handlers


def run_a_task() -> None:
    task_prerun.send(sender=None, task_id="t", task=None)
    task_postrun.send(sender=None, task_id="t", task=None)


@pytest.fixture
def closes(monkeypatch):
    """Records closes (the in-memory SQLite of the tests never really closes)."""
    calls: list[str] = []
    monkeypatch.setattr(connection, "close", lambda: calls.append("close"))
    connection.settings_dict["CONN_MAX_AGE"] = 60
    connection.ensure_connection()
    return calls


@pytest.mark.django_db(transaction=True)
def test_a_usable_connection_is_kept_across_tasks(closes):
    connection.close_at = None  # fresh
    run_a_task()
    run_a_task()
    assert closes == []


@pytest.mark.django_db(transaction=True)
def test_an_expired_connection_is_closed_before_the_next_task(closes):
    connection.close_at = 0  # older than CONN_MAX_AGE, as after a minute's work
    task_prerun.send(sender=None, task_id="t", task=None)
    assert closes == ["close"]


@pytest.mark.django_db
def test_an_eager_task_leaves_its_caller_s_transaction_alone(closes):
    """A task run eagerly runs inside its caller (here, the test's transaction, so the
    connection is out of autocommit, which Django's rules would drop)."""
    from inferview.celery import app

    assert not connection.get_autocommit()
    result = app.tasks["calculators.noop"].apply()
    assert result.successful() and closes == []
    run_a_task()  # the same rules for a task a worker runs: this connection would go
    assert "close" in closes
