import filecmp
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError

from questions.content_io import import_content
from questions.models import (
    CalculatorEmbed,
    Concept,
    Guide,
    GuideItem,
    GuideSection,
    Question,
    Track,
)

MODELS = [Track, Question, Concept, Guide, GuideSection, GuideItem, CalculatorEmbed]


def snapshot():
    rows = {}
    for model in MODELS:
        rows[model.__name__] = sorted(
            tuple(sorted((k, str(v)) for k, v in row.items() if k not in ("id", "created_at")))
            for row in model.objects.values()
        )
    rows["question_concepts"] = sorted(
        Question.concepts.through.objects.values_list("question__slug", "concept__slug")
    )
    return rows


def tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*.md"))}


@pytest.mark.django_db
def test_import_export_import_is_a_fixed_point_and_an_edit_moves_one_question(tmp_path):
    """One import of the shipped content (the slow part) serves three rules: the counts it
    creates, import -> export -> import changing nothing (byte-identical exports), and an
    edited file moving updated_at for that question only."""
    first = import_content(settings.CONTENT_DIR)
    assert first.changed
    assert Track.objects.published().count() >= 6
    assert Question.objects.published().count() >= 72
    assert Concept.objects.count() >= 24
    assert GuideItem.objects.count() >= 30
    before = snapshot()

    again = import_content(settings.CONTENT_DIR)
    assert not again.changed, str(again)
    assert snapshot() == before

    out1 = tmp_path / "one"
    call_command("export_content", str(out1))
    report = import_content(out1)
    assert not report.changed, str(report)
    assert snapshot() == before

    out2 = tmp_path / "two"
    call_command("export_content", str(out2))
    assert tree(out1) == tree(out2)
    assert not filecmp.dircmp(out1, out2).diff_files

    # An edited file moves updated_at for its question only.
    target = sorted(out2.glob("tracks/*/01-*.md"))[0]
    text = target.read_text().rstrip() + "\n\nOne more sentence of answer.\n"
    # the exported file carries its updated_at; drop it so the edit counts as new
    target.write_text(
        "\n".join(line for line in text.splitlines() if not line.startswith("updated_at:")) + "\n"
    )
    before_times = dict(Question.objects.values_list("id", "updated_at"))
    report = import_content(out2)
    assert report.updated == {"questions": 1}
    after_times = dict(Question.objects.values_list("id", "updated_at"))
    assert len([pk for pk in before_times if before_times[pk] != after_times[pk]]) == 1


@pytest.mark.django_db
def test_bad_front_matter_names_the_file_and_field(tmp_path):
    bad = tmp_path / "tracks" / "t"
    bad.mkdir(parents=True)
    (bad / "_track.md").write_text("---\nslug: t\ntitle: T\ncategory: hardware\nsummary: s\n---\n")
    (bad / "01-x.md").write_text(
        "---\nnumber: 1\nslug: x\ntitle: X\nsummary: s\ndifficulty: impossible\nkind: explain\n---\nbody\n<!-- answer -->\nanswer\n"
    )
    with pytest.raises(CommandError, match=r"01-x.md: difficulty: 'impossible'"):
        call_command("import_content", str(tmp_path))
    assert not Track.objects.exists()  # one transaction: nothing half-imported


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("references", "message"),
    [
        ("a paper", "references: a list"),
        ([{"title": "T", "publisher": "P", "year": 2024}], r"references\[1\]: missing url"),
        ([{"title": "T", "publisher": "P", "year": 2024, "url": "ftp://x"}], "http"),
    ],
)
def test_bad_references_name_the_field(tmp_path, references, message):
    import yaml

    (tmp_path / "concepts").mkdir()
    meta = {
        "slug": "c",
        "title": "C",
        "category": "serving",
        "summary": "S.",
        "references": references,
    }
    (tmp_path / "concepts" / "c.md").write_text(f"---\n{yaml.safe_dump(meta)}---\nBody.\n")
    with pytest.raises(Exception, match=message):
        import_content(tmp_path)


@pytest.mark.django_db
def test_references_round_trip(tmp_path):
    import yaml

    (tmp_path / "concepts").mkdir()
    ref = {"url": "https://arxiv.org/abs/1", "year": 2024, "title": "T", "publisher": "P"}
    meta = {"slug": "c", "title": "C", "category": "serving", "summary": "S.", "references": [ref]}
    (tmp_path / "concepts" / "c.md").write_text(f"---\n{yaml.safe_dump(meta)}---\nBody.\n")
    import_content(tmp_path)
    assert Concept.objects.get(slug="c").references[0]["url"] == "https://arxiv.org/abs/1"
    call_command("export_content", str(tmp_path / "out"))
    exported = (tmp_path / "out" / "concepts" / "c.md").read_text()
    # Fields in a fixed order whatever the file or the database (jsonb) ordered them.
    assert (
        "references:\n- title: T\n  publisher: P\n  year: 2024\n  url: https://arxiv.org/abs/1\n"
        in exported
    )
