"""Calculators fixtures."""

from unittest import mock

import pytest


@pytest.fixture
def published(monkeypatch):
    """Record task publications instead of talking to a broker (in-process tests).

    The worker tests use a real broker and worker instead; see test_worker.py.
    """
    calls: list[str] = []

    def fake_publish(run_id: str) -> bool:
        calls.append(run_id)
        return True

    monkeypatch.setattr("calculators.services._publish", fake_publish)
    return calls


@pytest.fixture
def broker_down(monkeypatch):
    from kombu.exceptions import OperationalError

    from calculators.tasks import run_calculation

    failing = mock.Mock(side_effect=OperationalError("Error 111 connecting to broker"))
    monkeypatch.setattr(run_calculation, "apply_async", failing)
    return failing


@pytest.fixture(autouse=True)
def _broker_breaker_closed(monkeypatch):
    """Each test starts with the publish circuit breaker closed."""
    monkeypatch.setattr("calculators.services._broker_down_until", 0.0)
