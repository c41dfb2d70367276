"""Question keys (identity independent of number), sync hashes, slug history.

The key column is added nullable, filled per row, then made unique and required: a
callable default on a unique column would give every existing row the same value.
"""

import uuid

import django.db.models.deletion
from django.db import migrations, models

import questions.models


def fill(apps, schema_editor):
    Question = apps.get_model("questions", "Question")
    for q in Question.objects.all().only("pk"):
        Question.objects.filter(pk=q.pk).update(key=uuid.uuid4().hex[:12])
    # What is in the database now came from the files (or is the starting point): synced.
    for name in ("Track", "Concept", "Question", "Guide"):
        model = apps.get_model("questions", name)
        model.objects.update(synced_hash=models.F("content_hash"))


class Migration(migrations.Migration):
    dependencies = [("questions", "0004_references")]

    operations = [
        migrations.AddField("question", "key", models.CharField(max_length=40, null=True, editable=False)),
        *[
            migrations.AddField(
                name, "synced_hash", models.CharField(blank=True, editable=False, max_length=64)
            )
            for name in ("track", "concept", "question", "guide")
        ],
        migrations.RunPython(fill, migrations.RunPython.noop),
        migrations.AlterField(
            "question",
            "key",
            models.CharField(
                default=questions.models.new_question_key, editable=False, max_length=40, unique=True
            ),
        ),
        migrations.CreateModel(
            name="QuestionSlugHistory",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("slug", models.SlugField(max_length=120)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("question", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="old_slugs", to="questions.question")),
                ("track", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="+", to="questions.track")),
            ],
            options={
                "verbose_name_plural": "question slug history",
                "constraints": [models.UniqueConstraint(fields=("track", "slug"), name="old_slug_per_track")],
            },
        ),
    ]
