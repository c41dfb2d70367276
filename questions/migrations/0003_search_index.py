"""The SQLite FTS5 search index, kept current by triggers on the content tables.

Only SQLite gets a table: on PostgreSQL ``questions.search`` builds ``SearchVector``s at
query time, so this migration does nothing there. Guarded text (a question's answer, a
concept's body) sits in its own column, ``guarded_text``, so a search can match and
snippet it only for viewers the access policy lets read it.
"""

from django.db import migrations

# (kind, table, title, public text, guarded text, access)
SOURCES = [
    ("question", "questions_question", "{r}.title", "{r}.summary || ' ' || {r}.body", "{r}.answer", "{r}.access"),
    ("concept", "questions_concept", "{r}.title", "{r}.summary", "{r}.body", "{r}.access"),
    ("track", "questions_track", "{r}.title", "{r}.summary || ' ' || {r}.description", "''", "'open'"),
    ("guide", "questions_guide", "{r}.title", "{r}.summary || ' ' || {r}.intro", "''", "'open'"),
    ("guideitem", "questions_guideitem", "{r}.title", "{r}.body", "''", "'open'"),
]


def _insert(kind, title, public, guarded, access, r):
    cols = [f"'{kind}'", f"{r}.id", access.format(r=r), title.format(r=r), public.format(r=r), guarded.format(r=r)]
    return ", ".join(cols)


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor != "sqlite":
        return
    ex = schema_editor.execute
    ex(
        "CREATE VIRTUAL TABLE questions_search_index USING fts5("
        "kind UNINDEXED, object_id UNINDEXED, access UNINDEXED, title, public_text, guarded_text, "
        "tokenize = 'porter unicode61')"
    )
    for kind, table, title, public, guarded, access in SOURCES:
        delete = f"DELETE FROM questions_search_index WHERE kind = '{kind}' AND object_id = old.id;"
        insert = (
            "INSERT INTO questions_search_index(kind, object_id, access, title, public_text, guarded_text) "
            f"VALUES ({_insert(kind, title, public, guarded, access, 'new')});"
        )
        ex(f"CREATE TRIGGER {table}_search_ai AFTER INSERT ON {table} BEGIN {insert} END")
        ex(f"CREATE TRIGGER {table}_search_au AFTER UPDATE ON {table} BEGIN {delete} {insert} END")
        ex(f"CREATE TRIGGER {table}_search_ad AFTER DELETE ON {table} BEGIN {delete} END")
        ex(
            "INSERT INTO questions_search_index(kind, object_id, access, title, public_text, guarded_text) "
            f"SELECT {_insert(kind, title, public, guarded, access, 't')} FROM {table} t"
        )


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor != "sqlite":
        return
    for _kind, table, *_ in SOURCES:
        for suffix in ("ai", "au", "ad"):
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_search_{suffix}")
    schema_editor.execute("DROP TABLE IF EXISTS questions_search_index")


class Migration(migrations.Migration):
    dependencies = [("questions", "0002_question_similarity")]

    operations = [migrations.RunPython(forwards, backwards)]
