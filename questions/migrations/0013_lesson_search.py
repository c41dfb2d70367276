"""Lessons in search: ``Lesson.contents`` (the ``##`` headings, public) and the search
triggers for ``questions_lesson`` on both engines (the SQLite FTS5 table of 0003, the
PostgreSQL document of 0006). A lesson's public text is its summary and headings; its
guarded text is the body, matched and quoted only at the levels the caller may read."""

from django.db import migrations, models

KIND, TABLE = "lesson", "questions_lesson"
COLUMNS = "kind, object_id, access, title, public_text, guarded_text"


def _values(r):
    return f"'{KIND}', {r}.id, {r}.access, {r}.title, {r}.summary || ' ' || {r}.contents, {r}.body"


def _fill_contents(apps):
    import re

    fence = re.compile(r"^ {0,3}(`{3,}|~{3,}).*?^ {0,3}\1", re.MULTILINE | re.DOTALL)
    h2 = re.compile(r"^##\s+(.+?)\s*#*\s*$", re.MULTILINE)
    Lesson = apps.get_model("questions", "Lesson")
    for lesson in Lesson.objects.all():
        text = fence.sub(" ", lesson.body or "")
        lesson.contents = "\n".join(m.group(1).strip() for m in h2.finditer(text))
        lesson.save(update_fields=["contents"])


def forwards(apps, schema_editor):
    _fill_contents(apps)
    ex = schema_editor.execute
    vendor = schema_editor.connection.vendor
    if vendor == "sqlite":
        delete = f"DELETE FROM questions_search_index WHERE kind = '{KIND}' AND object_id = old.id;"
        insert = f"INSERT INTO questions_search_index({COLUMNS}) VALUES ({_values('new')});"
        ex(f"CREATE TRIGGER IF NOT EXISTS {TABLE}_search_ai AFTER INSERT ON {TABLE} BEGIN {insert} END")
        ex(
            f"CREATE TRIGGER IF NOT EXISTS {TABLE}_search_au AFTER UPDATE ON {TABLE} "
            f"BEGIN {delete} {insert} END"
        )
        ex(f"CREATE TRIGGER IF NOT EXISTS {TABLE}_search_ad AFTER DELETE ON {TABLE} BEGIN {delete} END")
        ex(f"INSERT INTO questions_search_index({COLUMNS}) SELECT {_values('t')} FROM {TABLE} t")
    elif vendor == "postgresql":
        ex(
            f"""
CREATE FUNCTION {TABLE}_search() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM questions_search_document WHERE kind = '{KIND}' AND object_id = OLD.id;
    RETURN OLD;
  END IF;
  INSERT INTO questions_search_document({COLUMNS}) VALUES ({_values('NEW')})
  ON CONFLICT (kind, object_id) DO UPDATE SET access = EXCLUDED.access, title = EXCLUDED.title,
    public_text = EXCLUDED.public_text, guarded_text = EXCLUDED.guarded_text;
  RETURN NEW;
END $$ LANGUAGE plpgsql;
CREATE TRIGGER {TABLE}_search AFTER INSERT OR UPDATE OR DELETE ON {TABLE}
  FOR EACH ROW EXECUTE FUNCTION {TABLE}_search();
"""
        )
        ex(f"INSERT INTO questions_search_document({COLUMNS}) SELECT {_values('t')} FROM {TABLE} t")


def backwards(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "sqlite":
        for suffix in ("ai", "au", "ad"):
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {TABLE}_search_{suffix}")
        schema_editor.execute(f"DELETE FROM questions_search_index WHERE kind = '{KIND}'")
    elif vendor == "postgresql":
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {TABLE}_search ON {TABLE}")
        schema_editor.execute(f"DROP FUNCTION IF EXISTS {TABLE}_search()")
        schema_editor.execute(f"DELETE FROM questions_search_document WHERE kind = '{KIND}'")


class Migration(migrations.Migration):
    dependencies = [("questions", "0012_course")]

    operations = [
        migrations.AddField(
            model_name="lesson",
            name="contents",
            field=models.TextField(blank=True, editable=False),
        ),
        migrations.RunPython(forwards, backwards),
    ]
