"""PostgreSQL: ``pg_trgm`` and a trigram index on search titles, for typos.

``questions.search`` falls back to trigram similarity of titles when a query (and its
correction) finds nothing. Creating the extension needs a role allowed to (a superuser, or
since PostgreSQL 13 a database owner, pg_trgm being a trusted extension). Where the role
may not, the migration logs a warning and goes on: search then runs without the trigram
step (the vocabulary's edit-distance corrections still apply, as on SQLite) and says so
once per process in the log. Ask the database administrator to run
``CREATE EXTENSION pg_trgm`` and re-run ``migrate questions 0013`` then ``migrate``
to add the index. Does nothing on SQLite.
"""

import logging

from django.db import migrations

logger = logging.getLogger(__name__)
INDEX = "questions_search_document_title_trgm"


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'")
        installed = cursor.fetchone() is not None
        if not installed:
            cursor.execute("SAVEPOINT trgm")
            try:
                cursor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
            except Exception as error:  # insufficient privilege, or contrib not installed
                cursor.execute("ROLLBACK TO SAVEPOINT trgm")
                logger.warning(
                    "pg_trgm could not be created (%s): search runs without trigram typo "
                    "matching until an administrator runs CREATE EXTENSION pg_trgm",
                    error,
                )
                return
            cursor.execute("RELEASE SAVEPOINT trgm")
        cursor.execute(
            f"CREATE INDEX IF NOT EXISTS {INDEX} ON questions_search_document "
            "USING gin (lower(title) gin_trgm_ops)"
        )


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    # the extension stays: other objects may use it, and dropping it needs the same rights
    schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    dependencies = [("questions", "0013_lesson_search")]
    operations = [migrations.RunPython(forwards, backwards)]
