"""Create the database cache table when the configured cache is the database.

The embedded default caches in the database (rate limits, rendered Markdown, whole
anonymous pages, the content version). Making the table part of ``migrate`` means a
fresh database serves after the usual deploy steps, with no extra command to forget.
``createcachetable`` does nothing for other backends (Redis in production) and nothing
when the table exists.
"""

from django.core.management import call_command
from django.db import migrations


def create_cache_table(apps, schema_editor):
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    dependencies = [("questions", "0006_postgres_search_document")]
    operations = [migrations.RunPython(create_cache_table, migrations.RunPython.noop)]
