"""The course as files: import, export (byte-identical round trip), the edit-survives-import
rule, --force and --dry-run, renumbering, and each lesson rule of check_content on a
constructed bad file and its fixed version. Fixtures are built here (course_content)."""

from __future__ import annotations

import filecmp
from pathlib import Path

import pytest
from django.core.management import call_command

from questions import services
from questions.content_check_lessons import check_course
from questions.content_format import ContentError
from questions.content_io import ImportOptions, import_content
from questions.models import Lesson, Part

from . import course_content as cc


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.md"))}


@pytest.fixture
def content(tmp_path):
    return cc.course(tmp_path / "content")


@pytest.mark.django_db
def test_import_loads_parts_lessons_and_links(content):
    report = import_content(content)
    assert report.created["parts"] == 2 and report.created["lessons"] == 5
    assert list(Part.objects.values_list("number", "slug")) == [(1, "foundations"), (3, "hardware")]
    memory = Lesson.objects.get(slug="memory-walls")
    assert (memory.part.slug, memory.number, memory.access) == ("hardware", 2, "premium")
    assert sorted(p.slug for p in memory.prerequisites.all()) == [
        "inside-a-gpu",
        "prefill-and-decode",
    ]
    assert sorted(q.slug for q in memory.questions.all()) == sorted(cc.QUESTIONS)
    assert sorted(c.slug for c in memory.concepts.all()) == sorted(cc.CONCEPTS)
    assert memory.check_items[1]["calculator"] == "kv_cache"
    assert memory.checked == "2026-12" and len(memory.references) == 2
    assert memory.body.startswith("## Section 1 of memory-walls")


@pytest.mark.django_db
def test_export_import_export_is_byte_identical(content, tmp_path):
    import_content(content)
    one, two = tmp_path / "one", tmp_path / "two"
    call_command("export_content", str(one))
    assert (one / "lessons" / "03-hardware" / "02-memory-walls.md").is_file()
    assert (one / "lessons" / "01-foundations" / "_part.md").is_file()
    again = import_content(one)
    assert not again.changed, str(again)
    call_command("export_content", str(two))
    assert tree(one) == tree(two)
    assert not filecmp.dircmp(one / "lessons", two / "lessons").diff_files
    text = (one / "lessons" / "01-foundations" / "02-prefill-and-decode.md").read_text()
    assert text.startswith("---\nkey: ")
    assert "prerequisites:\n- how-a-request-flows\n" in text


@pytest.mark.django_db
def test_an_admin_edit_survives_import_unless_forced_and_dry_run_writes_nothing(content, capsys):
    import_content(content)
    lesson = Lesson.objects.get(slug="inside-a-gpu")
    lesson.summary = "Edited in admin."
    services.save_content(lesson)
    path = content / "lessons" / "03-hardware" / "01-inside-a-gpu.md"
    path.write_text(path.read_text().replace("Lesson inside-a-gpu", "Renamed in the file"))

    report = import_content(content)
    assert any("01-inside-a-gpu.md" in c for c in report.conflicts)
    lesson.refresh_from_db()
    assert lesson.summary == "Edited in admin." and lesson.title == "Lesson inside-a-gpu"

    call_command("import_content", str(content), "--force", "--dry-run")
    lesson.refresh_from_db()
    assert lesson.title == "Lesson inside-a-gpu"
    assert "Dry run" in capsys.readouterr().out

    import_content(content, ImportOptions(force=True))
    lesson.refresh_from_db()
    assert lesson.title == "Renamed in the file"
    assert lesson.summary == "After inside-a-gpu you can size a decode step."


@pytest.mark.django_db
def test_swapping_two_lessons_numbers_moves_rows_and_keeps_identity(content, tmp_path):
    import_content(content)
    out = tmp_path / "out"
    call_command("export_content", str(out))
    keys = dict(Lesson.objects.values_list("slug", "key"))
    part = out / "lessons" / "01-foundations"
    a, b = part / "02-prefill-and-decode.md", part / "03-batching-basics.md"
    ta, tb = a.read_text(), b.read_text()
    a.unlink()
    b.unlink()
    (part / "03-prefill-and-decode.md").write_text(ta.replace("number: 2\n", "number: 3\n"))
    (part / "02-batching-basics.md").write_text(tb.replace("number: 3\n", "number: 2\n"))
    import_content(out)
    assert Lesson.objects.get(slug="prefill-and-decode").number == 3
    assert Lesson.objects.get(slug="batching-basics").number == 2
    assert dict(Lesson.objects.values_list("slug", "key")) == keys


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("override", "named"),
    [
        ({"check": [cc.CHECK[0]]}, "check"),
        ({"questions": ["inference-serving/no-such-question"]}, "questions"),
        ({"concepts": ["no-such-concept"]}, "concepts"),
        ({"prerequisites": ["no-such-lesson"]}, "prerequisites"),
        ({"access": "secret"}, "access"),
        ({"minutes": "soon"}, "minutes"),
    ],
)
def test_a_bad_lesson_file_stops_the_import_naming_file_and_field(content, override, named):
    cc.lesson_file(
        content, "01-foundations", "batching-basics", 3, **{"access": "account", **override}
    )
    with pytest.raises(ContentError) as exc:
        import_content(content)
    assert "03-batching-basics.md" in str(exc.value) and named in str(exc.value)
    assert not Lesson.objects.exists()  # one transaction: nothing half-imported


# ---------------------------------------------------------------------------- the check


def lesson_findings(root: Path, rule: str) -> list[str]:
    return [str(f) for f in check_course(root, lessons=True) if f.rule == rule]


def test_the_constructed_course_passes_every_lesson_rule(content):
    found = [str(f) for f in check_course(content, lessons=True)]
    assert found == []


BAD_AND_FIXED = [
    ("lesson-length", {"body": cc.body_text("batching-basics", words=900)}),
    ("lesson-length", {"body": cc.body_text("batching-basics", sections=3)}),
    ("lesson-length", {"body": cc.body_text("batching-basics", summary=False)}),
    ("lesson-calc", {"body": cc.body_text("batching-basics", calc=False)}),
    ("lesson-diagram", {"body": cc.body_text("batching-basics", diagram=None)}),
    ("lesson-diagram", {"body": cc.body_text("batching-basics", diagram="diagrams/other.svg")}),
    ("lesson-links", {"questions": [f"{cc.TRACK}/{cc.QUESTIONS[0]}"]}),
    ("lesson-links", {"questions": [f"{cc.TRACK}/{q}" for q in cc.QUESTIONS[:2]] + ["x/y"]}),
    ("lesson-links", {"concepts": ["kv-cache"]}),
    ("lesson-links", {"prerequisites": ["memory-walls"]}),  # comes later in the course
    ("lesson-check", {"check": cc.CHECK[:2]}),
    ("lesson-check", {"check": [*cc.CHECK[:2], {**cc.CHECK[2], "answer": 7}]}),
    ("lesson-check", {"check": [*cc.CHECK[:2], {**cc.CHECK[1], "output": "nope"}]}),
    ("lesson-check", {"check": [*cc.CHECK[:2], {**cc.CHECK[1], "unit": "ms"}]}),
    ("lesson-minutes", {"minutes": 30}),
    ("lesson-access", {"access": "premium"}),
    ("sources", {"references": []}),
    ("checked", {"checked": None, "title": "Batching on an H100"}),
    ("stale", {"checked": "2025-01"}),
    ("typed-number", {"body": cc.body_text("batching-basics") + "\n\n8 x 2 x 4096 = 65536\n"}),
    (
        "efficiency",
        {
            "body": cc.body_text("batching-basics")
            + "\n\n{{calc decode_bound params_b=8 bytes_per_param=2 preset=h100-sxm "
            "bandwidth_efficiency=0.7}}\n"
        },
    ),
]


@pytest.mark.parametrize(("rule", "bad"), BAD_AND_FIXED)
def test_each_lesson_rule_finds_its_bad_file_and_passes_the_fixed_one(content, rule, bad):
    # the bad file
    cc.lesson_file(content, "01-foundations", "batching-basics", 3, **{"access": "account", **bad})
    found = lesson_findings(content, rule)
    assert found and all("03-batching-basics.md" in f for f in found), found
    # the fixed file
    cc.lesson_file(content, "01-foundations", "batching-basics", 3, access="account")
    assert lesson_findings(content, rule) == []


def test_boilerplate_across_three_lessons(content):
    shared = (
        "\n\nEvery serving engine keeps a cache of keys and values for each token it has seen.\n"
    )
    for folder, slug, n, access in (
        ("01-foundations", "how-a-request-flows", 1, "open"),
        ("01-foundations", "batching-basics", 3, "account"),
        ("03-hardware", "inside-a-gpu", 1, "open"),
    ):
        cc.lesson_file(content, folder, slug, n, access=access, body=cc.body_text(slug) + shared)
    assert len(lesson_findings(content, "boilerplate")) == 3
    cc.lesson_file(content, "03-hardware", "inside-a-gpu", 1, access="open")
    assert lesson_findings(content, "boilerplate") == []


def test_check_content_command_reports_lessons(content):
    cc.lesson_file(content, "01-foundations", "batching-basics", 3, access="open")
    with pytest.raises(Exception) as exc:
        call_command("check_content", "--root", str(content), "--lessons")
    assert "finding" in str(exc.value)
