"""PostgreSQL: a stored title vector on ``questions_search_document``.

``questions.search`` ranks an item whose title holds the query first; it used to find out
with ``ts_filter(public_vector, '{a}')`` for every match, which copies each match's public
vector. ``title_vector`` is the same lexemes and positions (the title is the first, weight
A part of the public vector), kept by PostgreSQL itself as a generated column, so the
check reads a few bytes. Does nothing on SQLite (FTS5 matches the title column).
"""

from django.db import migrations


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(
        "ALTER TABLE questions_search_document ADD COLUMN IF NOT EXISTS title_vector tsvector "
        "GENERATED ALWAYS AS (to_tsvector('english', title)) STORED"
    )


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(
        "ALTER TABLE questions_search_document DROP COLUMN IF EXISTS title_vector"
    )


class Migration(migrations.Migration):
    dependencies = [("questions", "0014_search_trigrams")]
    operations = [migrations.RunPython(forwards, backwards)]
