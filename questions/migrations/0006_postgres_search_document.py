"""PostgreSQL: a stored, indexed search document per item, kept current by triggers.

The SQLite twin is the FTS5 table of 0003. Each row carries its kind, id, access level,
title, public text and guarded text (a question's answer, a concept's body), and three
generated tsvectors with GIN indexes: ``public_vector`` (title A, public text B) for
viewers who may not read the guarded text, and ``full_vector`` (plus guarded text C) for
those who may. A search is then one indexed query, instead of re-analysing every row's
text inside every query. Does nothing on SQLite.
"""

from django.db import migrations

# (kind, table, title, public text, guarded text, access): the same sources as 0003.
SOURCES = [
    ("question", "questions_question", "{r}.title", "{r}.summary || ' ' || {r}.body", "{r}.answer", "{r}.access"),
    ("concept", "questions_concept", "{r}.title", "{r}.summary", "{r}.body", "{r}.access"),
    ("track", "questions_track", "{r}.title", "{r}.summary || ' ' || {r}.description", "''", "'open'"),
    ("guide", "questions_guide", "{r}.title", "{r}.summary || ' ' || {r}.intro", "''", "'open'"),
    ("guideitem", "questions_guideitem", "{r}.title", "{r}.body", "''", "'open'"),
]

TABLE = """
CREATE TABLE questions_search_document (
    kind text NOT NULL,
    object_id bigint NOT NULL,
    access text NOT NULL,
    title text NOT NULL,
    public_text text NOT NULL,
    guarded_text text NOT NULL,
    public_vector tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english', title), 'A')
        || setweight(to_tsvector('english', public_text), 'B')) STORED,
    full_vector tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english', title), 'A')
        || setweight(to_tsvector('english', public_text), 'B')
        || setweight(to_tsvector('english', guarded_text), 'C')) STORED,
    PRIMARY KEY (kind, object_id)
);
CREATE INDEX questions_search_document_public ON questions_search_document USING gin (public_vector);
CREATE INDEX questions_search_document_full ON questions_search_document USING gin (full_vector);
"""


def _values(kind, title, public, guarded, access, r):
    return ", ".join(
        [f"'{kind}'", f"{r}.id", access.format(r=r), title.format(r=r), public.format(r=r), guarded.format(r=r)]
    )


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    ex = schema_editor.execute
    ex(TABLE)
    for kind, table, title, public, guarded, access in SOURCES:
        ex(
            f"""
CREATE FUNCTION {table}_search() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM questions_search_document WHERE kind = '{kind}' AND object_id = OLD.id;
    RETURN OLD;
  END IF;
  INSERT INTO questions_search_document(kind, object_id, access, title, public_text, guarded_text)
  VALUES ({_values(kind, title, public, guarded, access, 'NEW')})
  ON CONFLICT (kind, object_id) DO UPDATE SET access = EXCLUDED.access, title = EXCLUDED.title,
    public_text = EXCLUDED.public_text, guarded_text = EXCLUDED.guarded_text;
  RETURN NEW;
END $$ LANGUAGE plpgsql;
CREATE TRIGGER {table}_search AFTER INSERT OR UPDATE OR DELETE ON {table}
  FOR EACH ROW EXECUTE FUNCTION {table}_search();
"""
        )
        ex(
            "INSERT INTO questions_search_document(kind, object_id, access, title, public_text, guarded_text) "
            f"SELECT {_values(kind, title, public, guarded, access, 't')} FROM {table} t"
        )


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for _kind, table, *_ in SOURCES:
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_search ON {table}")
        schema_editor.execute(f"DROP FUNCTION IF EXISTS {table}_search()")
    schema_editor.execute("DROP TABLE IF EXISTS questions_search_document")


class Migration(migrations.Migration):
    dependencies = [("questions", "0005_identity_and_sync")]
    operations = [migrations.RunPython(forwards, backwards)]
