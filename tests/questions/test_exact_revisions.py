"""Revisions record exactly the item's state: an import's revision is the question as the
import left it (its final number, its concepts), a revert restores one item and never
renumbers another, and the data migration repairs versions stored the old way."""

import importlib
import json

import pytest
import yaml
from django.apps import apps as django_apps
from reversion.models import Version

from questions import services
from questions.admin_revisions import field_diffs, revert_item
from questions.content_io import import_content
from questions.models import Concept, Question

ANSWER = "A full answer long enough for the checks that read it. " * 3


def write_tree(root, order=(1, 2, 3, 4, 5)):
    track = root / "tracks" / "t"
    track.mkdir(parents=True, exist_ok=True)
    (root / "concepts").mkdir(exist_ok=True)
    (root / "concepts" / "kv.md").write_text(
        "---\nslug: kv\ntitle: KV cache\ncategory: serving\nsummary: S.\n---\nBody.\n"
    )
    (track / "_track.md").write_text(
        "---\nslug: t\ntitle: T\ncategory: serving\nsummary: S.\n---\n"
    )
    for old in track.glob("[0-9]*.md"):
        old.unlink()
    for number, i in enumerate(order, start=1):
        meta = {
            "key": f"key-{i}", "number": number, "slug": f"q-{i}", "title": f"Question {i}?",
            "summary": "S.", "difficulty": "easy", "kind": "explain", "access": "open",
            "concepts": ["kv"], "published": True, "published_at": "2026-03-01",
        }  # fmt: skip
        (track / f"{number:02d}-q-{i}.md").write_text(
            f"---\n{yaml.safe_dump(meta, sort_keys=False)}---\nBody {i}.\n\n<!-- answer -->\n\n{ANSWER}\n"
        )
    return root


def state(q: Question) -> dict:
    q.refresh_from_db()
    current = {f.attname: getattr(q, f.attname) for f in Question._meta.concrete_fields}
    current["concepts"] = sorted(q.concepts.values_list("pk", flat=True))
    return current


def phantom_changes(q: Question) -> list[tuple[str, str]]:
    """Fields in which any of the question's revisions differs from the question now."""
    now = state(q)
    out = []
    for v in Version.objects.get_for_object(q):
        old = dict(v.field_dict)
        old["concepts"] = sorted(old.get("concepts") or [])
        out += [(v.revision.get_comment(), d["field"]) for d in field_diffs(old, now)]
    return out


@pytest.mark.django_db
def test_an_import_records_each_question_as_it_left_it(tmp_path):
    import_content(write_tree(tmp_path))
    for q in Question.objects.all():
        assert phantom_changes(q) == [], q.number
        assert Version.objects.get_for_object(q).first().field_dict["number"] == q.number


@pytest.mark.django_db
def test_a_reorder_in_the_files_records_the_new_numbers(tmp_path):
    import_content(write_tree(tmp_path))
    import_content(write_tree(tmp_path, order=(5, 1, 2, 3, 4)))
    q5 = Question.objects.get(key="key-5")
    assert q5.number == 1
    latest = Version.objects.get_for_object(q5).first()
    assert latest.field_dict["number"] == 1
    assert latest.revision.get_comment().startswith("Imported")
    # the revision before the reorder says 5, which is what it was: a real change only
    older = Version.objects.get_for_object(q5)[1]
    assert older.field_dict["number"] == 5


@pytest.mark.django_db
def test_revert_restores_one_item_and_never_renumbers_another(tmp_path):
    import_content(write_tree(tmp_path))
    q1, q2 = Question.objects.get(key="key-1"), Question.objects.get(key="key-2")
    imported = Version.objects.get_for_object(q1).first()
    q1.title = "Edited?"
    services.save_content(q1)
    services.renumber_track(track=q1.track, ordered_ids=[q2.pk, q1.pk])
    q2.refresh_from_db()
    q2.title = "Q2 edited after the import?"
    services.save_content(q2)

    note = revert_item(imported)

    q1.refresh_from_db()
    q2.refresh_from_db()
    assert q1.title == "Question 1?"  # this item is restored
    assert q1.number == 2 and "keeps its number 2" in note  # its old number is q2's
    assert q2.number == 1 and q2.title == "Q2 edited after the import?"  # untouched


@pytest.mark.django_db
def test_revert_to_a_free_number_moves_only_this_item(tmp_path):
    import_content(write_tree(tmp_path))
    q5 = Question.objects.get(key="key-5")
    imported = Version.objects.get_for_object(q5).first()
    Question.objects.filter(pk=q5.pk).update(number=9)
    assert revert_item(imported) == ""
    q5.refresh_from_db()
    assert q5.number == 5
    assert sorted(Question.objects.values_list("number", flat=True)) == [1, 2, 3, 4, 5]


@pytest.mark.django_db
def test_the_migration_repairs_parked_numbers_and_missing_concepts(tmp_path):
    import_content(write_tree(tmp_path))
    q3 = Question.objects.get(key="key-3")
    version = Version.objects.get_for_object(q3).first()
    data = json.loads(version.serialized_data)
    data[0]["fields"]["number"] = q3.number + 50  # as the old import stored it
    data[0]["fields"]["concepts"] = []
    version.serialized_data = json.dumps(data)
    version.save()
    assert {f for _, f in phantom_changes(q3)} == {"number", "concepts"}

    migration = importlib.import_module("questions.migrations.0011_exact_import_revisions")
    migration.fix_import_versions(django_apps, None)

    assert phantom_changes(q3) == []
    assert (
        Concept.objects.get(slug="kv").pk
        in Version.objects.get_for_object(q3).first().field_dict["concepts"]
    )
