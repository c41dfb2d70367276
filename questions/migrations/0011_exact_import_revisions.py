"""Fix the question revisions imports stored before the import recorded final states.

An import saved a new or moved question while it was parked on a temporary number (its
number plus the track's length) and before its concepts were linked, and recorded it
then: "Diff with now" showed a change of number (52 to 2) and of concepts that nobody
made, and a revert moved the question. Each such version gets the number (and, for the
version that created the question, the concepts) of the state that followed it: the next
version of the same question, or the question as it is now. A parked number is always
above every number the track had once the import ended, which is how one is told apart
from a real renumbering.
"""

import json

from django.db import migrations


def fix_import_versions(apps, schema_editor):
    try:
        Version = apps.get_model("reversion", "Version")
    except LookupError:
        return
    ContentType = apps.get_model("contenttypes", "ContentType")
    Question = apps.get_model("questions", "Question")
    ct = ContentType.objects.filter(app_label="questions", model="question").first()
    if ct is None:
        return
    for question in Question.objects.all().iterator():
        versions = list(
            Version.objects.filter(content_type=ct, object_id=str(question.pk))
            .select_related("revision")
            .order_by("-revision__date_created", "-pk")
        )
        after = {
            "number": question.number,
            "concepts": sorted(question.concepts.values_list("pk", flat=True)),
        }
        for position, version in enumerate(versions):
            data = json.loads(version.serialized_data)
            fields = data[0]["fields"]
            fixed = False
            if (version.revision.comment or "").startswith("Imported"):
                track_max = max(
                    Question.objects.filter(track_id=question.track_id)
                    .values_list("number", flat=True),
                    default=0,
                )  # fmt: skip
                if fields.get("number") != after["number"] and fields.get("number", 0) > max(
                    track_max, after["number"]
                ):
                    fields["number"] = after["number"]
                    fixed = True
                first = position == len(versions) - 1
                if first and not fields.get("concepts") and after["concepts"]:
                    fields["concepts"] = after["concepts"]
                    fixed = True
            if fixed:
                version.serialized_data = json.dumps(data)
                version.save(update_fields=["serialized_data"])
            after = {"number": fields.get("number"), "concepts": sorted(fields.get("concepts") or [])}


class Migration(migrations.Migration):
    dependencies = [
        ("questions", "0010_drafts_and_schedules"),
        ("reversion", "0002_add_index_on_version_for_content_type_and_db"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(fix_import_versions, migrations.RunPython.noop)]
