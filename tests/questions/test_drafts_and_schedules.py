"""Drafts of live items stay invisible to learners until published; scheduled items go
live when due, not before, and once."""

import datetime as dt

import pytest
from django.urls import reverse
from reversion.models import Version

from questions import drafts, scheduling
from questions.content_export import export_content
from questions.models import ContentDraft, Question
from tests.factories import QuestionFactory

SECRET = "Zanzibar-draft-sentence"
T0 = dt.datetime(2026, 12, 6, 9, 0, tzinfo=dt.UTC)


@pytest.mark.django_db
def test_a_draft_of_a_live_question_is_invisible_until_published(client, tmp_path):
    q = QuestionFactory(published=True, access="open", title="Live title?")
    drafts.save_draft(q, {"title": f"{SECRET}?", "answer": f"{SECRET} answer."})
    q.refresh_from_db()
    assert q.title == "Live title?"

    page = client.get(q.get_absolute_url()).content.decode()
    api = client.get(f"/api/v1/questions/{q.pk}/").content.decode()
    search = client.get("/search/", {"q": SECRET}).content.decode()
    sitemap = client.get("/sitemap.xml").content.decode()
    export_content(tmp_path)
    exported = "".join(p.read_text() for p in tmp_path.rglob("*.md"))
    for where, text in {"page": page, "api": api, "sitemap": sitemap, "export": exported}.items():
        assert SECRET not in text, where
    assert q.get_absolute_url() not in search  # the search page echoes the query, no hit
    assert "Live title?" in page

    before = q.updated_at
    drafts.publish_draft(drafts.draft_for(q))
    q.refresh_from_db()
    assert q.title == f"{SECRET}?" and q.updated_at > before
    assert not ContentDraft.objects.exists()
    assert SECRET in client.get(q.get_absolute_url(), follow=True).content.decode()
    assert Version.objects.get_for_object(q).first().revision.get_comment() == "Published draft"


@pytest.mark.django_db
def test_publishing_an_unchanged_draft_leaves_updated_alone():
    q = QuestionFactory(published=True)
    from questions import services

    services.save_content(q)
    before = q.updated_at
    drafts.publish_draft(drafts.save_draft(q, {"title": q.title, "answer": q.answer}))
    q.refresh_from_db()
    assert q.updated_at == before


@pytest.mark.django_db
def test_a_scheduled_question_goes_live_when_due_and_not_before_once():
    q = QuestionFactory(published=False, published_at=None, publish_at=T0, scheduled_by="a@x.io")
    assert scheduling.publish_due(now=T0 - dt.timedelta(seconds=1)).count == 0
    q.refresh_from_db()
    assert not q.published

    report = scheduling.publish_due(now=T0 + dt.timedelta(seconds=30))
    assert report.published == [f"Question {q.pk}"]
    q.refresh_from_db()
    assert q.published and q.published_at == T0 + dt.timedelta(seconds=30) and q.publish_at is None
    assert "a@x.io" in Version.objects.get_for_object(q).first().revision.get_comment()

    assert scheduling.publish_due(now=T0 + dt.timedelta(minutes=5)).count == 0  # once


@pytest.mark.django_db
def test_a_scheduled_draft_and_unpublish_apply_when_due():
    live = QuestionFactory(published=True, title="Old?")
    draft = drafts.save_draft(live, {"title": "New?"})
    drafts.schedule_draft(draft, publish_at=T0, user=None)
    leaving = QuestionFactory(published=True, unpublish_at=T0)
    assert scheduling.publish_due(now=T0 - dt.timedelta(minutes=1)).count == 0
    report = scheduling.publish_due(now=T0)
    assert len(report.drafts) == 1 and report.unpublished == [f"Question {leaving.pk}"]
    live.refresh_from_db()
    leaving.refresh_from_db()
    assert live.title == "New?" and not leaving.published


@pytest.mark.django_db
def test_the_beat_task_runs_the_service(monkeypatch):
    from django.utils import timezone

    from questions.beat import publish_due

    q = QuestionFactory(published=False, publish_at=T0)
    monkeypatch.setattr(timezone, "now", lambda: T0 - dt.timedelta(seconds=5))
    assert publish_due.apply().get() == 0
    monkeypatch.setattr(timezone, "now", lambda: T0 + dt.timedelta(seconds=5))
    assert publish_due.apply().get() == 1
    assert Question.objects.get(pk=q.pk).published


def test_beat_schedules_the_task_often_enough(settings):
    entry = settings.CELERY_BEAT_SCHEDULE["publish-due"]
    assert entry["task"] == "questions.publish_due" and entry["schedule"] <= 60


def test_a_worker_knows_the_beat_task():
    """The task is outside tasks.py (autodiscovery's module); the app's ready() registers
    it, so a worker started the usual way has it. A fresh interpreter, as a worker is:
    in this one another test may have imported the module already."""
    import subprocess
    import sys

    code = (
        "import django; django.setup(); from inferview.celery import app; "
        "app.loader.import_default_modules(); print('questions.publish_due' in app.tasks)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True", out.stderr


@pytest.mark.django_db
def test_save_as_draft_in_admin_keeps_the_live_text(author_client):
    q = QuestionFactory(published=True, title="Live?")
    url = reverse("admin:questions_question_change", args=[q.pk])
    form = author_client.get(url).context["adminform"].form
    data = {k: v for k, v in form.initial.items() if v is not None and not isinstance(v, list)}
    data.update({
        "track": q.track_id, "number": q.number, "title": "Drafted?", "slug": q.slug,
        "summary": q.summary, "difficulty": q.difficulty, "kind": q.kind, "access": q.access,
        "body": q.body, "answer": q.answer, "published": "on", "_save_draft": "Save as draft",
        "calculator_embeds-TOTAL_FORMS": 0, "calculator_embeds-INITIAL_FORMS": 0,
        "practice": "{}",
    })  # fmt: skip
    data.pop("key_points", None)
    data.pop("references", None)
    data.pop("concepts", None)
    data.pop("publish_at", None)
    data.pop("unpublish_at", None)
    response = author_client.post(url, data)
    assert response.status_code == 302, (response.status_code, response.content[:300])
    q.refresh_from_db()
    assert q.title == "Live?" and drafts.draft_for(q).data["title"] == "Drafted?"
    html = author_client.get(url).content.decode()
    assert "You are editing a draft" in html and 'value="Drafted?"' in html
    compare = author_client.get(reverse("admin:questions_question_draft_compare", args=[q.pk]))
    assert "+Drafted?" in compare.content.decode() and "-Live?" in compare.content.decode()
    author_client.post(reverse("admin:questions_question_draft_publish", args=[q.pk]))
    q.refresh_from_db()
    assert q.title == "Drafted?"


def test_a_draft_preview_keeps_showing_the_draft_when_the_tier_changes(author_client):
    """The banner's "View as" links carry ``draft=1``: switching tier inside a draft preview
    showed the live text before, and the banner now says it is a draft of a live item."""
    q = QuestionFactory(published=True, access="open", answer="The live answer text.")
    drafts.save_draft(q, {"answer": "The drafted answer text."})
    url = reverse("admin:questions_question_page_preview", args=[q.pk])
    html = author_client.get(url, {"draft": "1", "as": "premium"}).content.decode()
    assert "The drafted answer text." in html and "The live answer text." not in html
    assert "draft of a live question" in html
    for tier in ("anonymous", "free", "staff"):
        assert f'href="?as={tier}&amp;draft=1"' in html
    live = author_client.get(url, {"as": "premium"}).content.decode()
    assert "The live answer text." in live and "draft=1" not in live
