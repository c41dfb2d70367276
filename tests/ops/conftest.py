"""Fixtures for the ops tests that need the real services (PostgreSQL and Redis)."""

import pytest

from tests.ops.stack import RedisServer, migrate_and_seed, services_missing
from tests.ops.support import base_env, fresh_database


@pytest.fixture(scope="session")
def ops_database(tmp_path_factory):
    """A new PostgreSQL database, migrated and seeded once for the multi-process and fault
    tests (each brings its own Redis); dropped at the end of the session."""
    # Selected only where these services exist (the "postgres" marker: `make test` and the
    # embedded CI pass deselect it without DATABASE_URL), so a missing one is a failure.
    reason = services_missing()
    if reason:
        pytest.fail(reason, pytrace=False)
    workdir = tmp_path_factory.mktemp("ops-db")
    with fresh_database(workdir) as url:
        seed = migrate_and_seed(base_env(DATABASE_URL=url, INFERVIEW_VAR_DIR=str(workdir)))
        yield url, seed


@pytest.fixture(scope="module")
def redis_server(request, tmp_path_factory):
    """A redis-server of the test module's own on a spare port, which its tests may stop,
    pause or restart (the Redis on 6379 is never touched)."""
    server = RedisServer(
        tmp_path_factory.mktemp(f"{request.module.__name__.rpartition('.')[2]}-redis")
    )
    server.start()
    yield server
    server.stop()
