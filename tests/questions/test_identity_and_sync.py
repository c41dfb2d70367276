"""Authoring safety: files and admin as one source. An admin edit survives an import and
``make run``'s start-up import; a reorder never breaks an import or a URL; export, import,
export is byte-identical even with CRLF typed in admin."""

from pathlib import Path

import pytest
import yaml
from django.core.management import call_command

from questions import services
from questions.content_export import export_content
from questions.content_io import ImportOptions, import_content
from questions.models import Question, Track

ANSWER = " ".join(f"Reasoning step{i} about the question." for i in range(60))


def write_tree(root: Path, n: int = 4) -> Path:
    track = root / "tracks" / "t"
    track.mkdir(parents=True)
    (track / "_track.md").write_text(
        "---\nslug: t\ntitle: T\ncategory: serving\nsummary: S.\n---\n"
    )
    for i in range(1, n + 1):
        meta = {
            "key": f"key-{i}", "number": i, "slug": f"q-{i}", "title": f"Question {i}?",
            "summary": "S.", "difficulty": "easy", "kind": "explain", "access": "open",
            "published": True, "published_at": "2026-03-01",
        }  # fmt: skip
        (track / f"{i:02d}-q-{i}.md").write_text(
            f"---\n{yaml.safe_dump(meta, sort_keys=False)}---\nBody {i}.\n\n<!-- answer -->\n\n{ANSWER} {i}\n"
        )
    return root


def admin_edit(question: Question, **fields) -> None:
    for name, value in fields.items():
        setattr(question, name, value)
    services.save_content(question)  # the admin's save_model path


@pytest.mark.django_db
def test_an_admin_edit_survives_import_and_start_up(tmp_path):
    root = write_tree(tmp_path)
    import_content(root)
    q = Question.objects.get(key="key-2")
    admin_edit(q, title="Edited in admin?")

    report = import_content(root)  # the default import keeps it and says so
    assert Question.objects.get(key="key-2").title == "Edited in admin?"
    assert len(report.conflicts) == 1 and "02-q-2.md" in report.conflicts[0]

    call_command("import_content", str(root), "--only-new")  # what make run does
    assert Question.objects.get(key="key-2").title == "Edited in admin?"

    import_content(root, ImportOptions(force=True))  # files win only when asked
    assert Question.objects.get(key="key-2").title == "Question 2?"


@pytest.mark.django_db
def test_export_makes_the_admin_edit_the_files_version(tmp_path):
    root = write_tree(tmp_path / "in")
    import_content(root)
    admin_edit(Question.objects.get(key="key-1"), summary="Better summary.")
    out = tmp_path / "out"
    export_content(out)
    report = import_content(out)
    assert report.conflicts == [] and not report.changed
    assert Question.objects.get(key="key-1").summary == "Better summary."


@pytest.mark.django_db
def test_import_after_a_reorder_matches_by_identity(tmp_path):
    root = write_tree(tmp_path)
    import_content(root)
    track = Track.objects.get(slug="t")
    pks = {q.key: q.pk for q in Question.objects.all()}
    ids = list(Question.objects.order_by("-number").values_list("pk", flat=True))
    services.renumber_track(track=track, ordered_ids=ids)  # reversed in admin
    assert Question.objects.get(key="key-1").number == 4

    call_command("import_content", str(root), "--only-new")  # start-up: admin order kept
    assert Question.objects.get(key="key-1").number == 4

    report = import_content(root)  # a full import: no IntegrityError, files' order back
    assert {q.key: q.pk for q in Question.objects.all()} == pks
    assert [q.key for q in Question.objects.order_by("number")] == [f"key-{i}" for i in range(1, 5)]
    assert report.conflicts == []


@pytest.mark.django_db
def test_only_new_adds_a_new_file_without_touching_the_rest(tmp_path):
    root = write_tree(tmp_path, n=3)
    import_content(root)
    admin_edit(Question.objects.get(key="key-1"), title="Kept?")
    write_tree(tmp_path / "more", n=4)
    new_file = next((tmp_path / "more" / "tracks" / "t").glob("04-*.md"))
    (root / "tracks" / "t" / new_file.name).write_text(new_file.read_text())
    call_command("import_content", str(root), "--only-new")
    assert Question.objects.get(key="key-4").number == 4
    assert Question.objects.get(key="key-1").title == "Kept?"


@pytest.mark.django_db
def test_export_import_export_is_byte_identical_with_crlf_typed_in_admin(tmp_path):
    import_content(write_tree(tmp_path / "in"))
    admin_edit(
        Question.objects.get(key="key-3"), answer="First line.\r\nSecond line.\r\n\r\n" + ANSWER
    )
    assert "\r" not in Question.objects.get(key="key-3").answer
    one, two = tmp_path / "one", tmp_path / "two"
    export_content(one)
    import_content(one)
    export_content(two)
    files_one = {p.relative_to(one): p.read_bytes() for p in one.rglob("*.md")}
    files_two = {p.relative_to(two): p.read_bytes() for p in two.rglob("*.md")}
    assert files_one == files_two and files_one
    assert all(b"\r" not in data for data in files_one.values())


@pytest.mark.django_db
def test_export_removes_files_of_renumbered_questions(tmp_path):
    import_content(write_tree(tmp_path / "in"))
    out = tmp_path / "out"
    export_content(out)
    track = Track.objects.get(slug="t")
    ids = list(Question.objects.order_by("-number").values_list("pk", flat=True))
    services.renumber_track(track=track, ordered_ids=ids)
    (out / "README.md").write_text("kept")
    export_content(out)
    names = sorted(p.name for p in (out / "tracks" / "t").glob("*.md"))
    assert names == ["01-q-4.md", "02-q-3.md", "03-q-2.md", "04-q-1.md", "_track.md"]
    assert (out / "README.md").exists()


@pytest.mark.django_db
def test_old_urls_reach_the_same_question_after_reorder_and_slug_change(client, tmp_path):
    import_content(write_tree(tmp_path))
    q1 = Question.objects.get(key="key-1")
    old_url = q1.get_absolute_url()  # /tracks/t/1/q-1/
    track = Track.objects.get(slug="t")
    services.renumber_track(
        track=track,
        ordered_ids=list(Question.objects.order_by("-number").values_list("pk", flat=True)),
    )
    q1.refresh_from_db()
    admin_edit(q1, slug="q-one")
    response = client.get(old_url)
    assert response.status_code == 301 and response["Location"] == "/tracks/t/4/q-one/"
    assert client.get("/tracks/t/1/q-1/").status_code == 301
    assert client.get(response["Location"]).context["question"].key == "key-1"
    # The question now numbered 1 keeps its own URL; nothing sends q-1's readers there.
    assert client.get("/tracks/t/1/q-4/").status_code == 200


@pytest.mark.django_db
def test_an_unpublished_question_answers_410_with_a_way_on(client, tmp_path):
    import_content(write_tree(tmp_path))
    q = Question.objects.get(key="key-2")
    url = q.get_absolute_url()
    services.set_published(Question.objects.filter(pk=q.pk), published=False)
    response = client.get(url)
    assert response.status_code == 410
    assert b"withdrawn" in response.content and b'href="/tracks/t/"' in response.content
    assert client.get("/tracks/t/2/no-such-slug/").status_code == 404
