"""`migrate` alone leaves a working database cache: the table comes from a migration, not
from a separate `createcachetable` a deploy could forget. And a cache that cannot be
reached never breaks the content version (pages degrade to live rendering)."""

import importlib

import pytest
from django.core.cache import caches
from django.db import connection

DB_CACHE = {
    "default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "t_cache"},
    "local": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "t_cache"},
}


@pytest.mark.django_db(transaction=True)
def test_the_migration_creates_the_database_cache_table(settings):
    settings.CACHES = DB_CACHE
    migration = importlib.import_module("questions.migrations.0007_cache_table")
    assert "t_cache" not in connection.introspection.table_names()
    with connection.schema_editor() as editor:
        migration.create_cache_table(None, editor)
    assert "t_cache" in connection.introspection.table_names()
    caches["default"].set("k", "v")
    assert caches["default"].get("k") == "v"
    with connection.schema_editor() as editor:  # idempotent: a second migrate is fine
        migration.create_cache_table(None, editor)
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE t_cache")


def test_an_unreachable_cache_leaves_the_content_version_at_zero(monkeypatch):
    from questions import content_version

    def broken(*args, **kwargs):
        raise ConnectionError("cache down")

    monkeypatch.setattr(content_version.cache, "get", broken)
    monkeypatch.setattr(content_version.cache, "incr", broken)
    assert content_version.current() == 0
    content_version.bump()  # logged, not raised
