"""Report a mistake (issue 27): each bad input of the API, the merge of duplicates, the rate
limit, who may decide, the change note, the decision email per preference, "What changed"
and the "Updated" month, and privacy of the quote and notes."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core import mail
from django.utils import timezone

from inferview.celery import app as celery_app
from inferview.community.corrections import services
from inferview.community.corrections.models import Correction, CorrectionState
from questions.roles import ensure_authors_group
from tests.factories import (
    ConceptFactory,
    GuideItemFactory,
    QuestionFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

URL = "/api/v1/corrections/"
LONG_AGO = timezone.now() - dt.timedelta(days=400)
LOCKED = "The premium answer holds a secret figure of 4242 tokens."


@pytest.fixture
def eager():
    before = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = before


@pytest.fixture
def author(db):
    user = UserFactory(is_staff=True)
    user.groups.add(ensure_authors_group())
    return user


@pytest.fixture
def open_q(db):
    return QuestionFactory(
        access="open",
        title="Why did sparsity not help?",
        answer="Decode is bound by memory bandwith, not by FLOPs.\n\nA second paragraph.",
        updated_at=LONG_AGO,
    )


@pytest.fixture
def premium_q(db):
    return QuestionFactory(access="premium", body="The scenario as posed.", answer=LOCKED)


def report(client, target, quote, *, kind="typo", note="Spelling.", target_type="question"):
    return client.post(
        URL,
        {
            "target_type": target_type,
            "target_id": target.pk,
            "quote": quote,
            "kind": kind,
            "note": note,
        },
        content_type="application/json",
    )


def test_a_reader_reports_a_typo_and_lists_it(client_for, free_user, open_q):
    client = client_for(free_user)
    r = report(client, open_q, "memory  bandwith,\nnot by")
    assert r.status_code == 201, r.content
    body = r.json()
    assert body["state"] == "open" and body["quote"] == "memory bandwith, not by"
    assert body["note"] == "Spelling." and body["reporters"] == 1 and body["joined"] is False
    listed = client.get(URL).json()
    assert [c["id"] for c in listed["results"]] == [body["id"]]


def test_anonymous_is_401(client, open_q):
    r = report(client, open_q, "memory bandwith")
    assert r.status_code == 401
    assert r.json()["error"]["code"] == "not_authenticated"
    assert client.get(URL).status_code == 401


@pytest.mark.parametrize("draft", ["missing", "unpublished"])
def test_a_target_the_reader_may_not_see_is_404(client_for, free_user, open_q, draft):
    if draft == "unpublished":
        open_q.published = False
        open_q.save()
        target_id = open_q.pk
    else:
        target_id = 10**6
    r = client_for(free_user).post(
        URL,
        {
            "target_type": "question",
            "target_id": target_id,
            "quote": "memory bandwith",
            "kind": "typo",
            "note": "x",
        },
        content_type="application/json",
    )
    assert r.status_code == 404
    assert not Correction.objects.exists()


def test_locked_text_can_be_neither_probed_nor_stored(
    client_for, free_user, premium_user, premium_q
):
    r = report(client_for(free_user), premium_q, "secret figure of 4242")
    assert r.status_code == 400
    assert list(r.json()["error"]["fields"]) == ["quote"]
    assert not Correction.objects.exists()
    # The public part of the same question can be reported by the same reader.
    assert report(client_for(free_user), premium_q, "The scenario as posed").status_code == 201
    # A premium reader may quote the answer.
    assert report(client_for(premium_user), premium_q, "secret figure of 4242").status_code == 201


@pytest.mark.parametrize(
    "field,value",
    [
        ("quote", ""),
        ("quote", "words that are not on this page"),
        ("quote", "x" * 1001),
        ("note", ""),
        ("note", "   "),
        ("note", "n" * 2001),
        ("kind", "rude"),
        ("target_type", "comment"),
    ],
)
def test_bad_input_is_400_naming_the_field(client_for, free_user, open_q, field, value):
    data = {
        "target_type": "question",
        "target_id": open_q.pk,
        "quote": "memory bandwith",
        "kind": "typo",
        "note": "Spelling.",
        field: value,
    }
    r = client_for(free_user).post(URL, data, content_type="application/json")
    assert r.status_code == 400, r.content
    assert field in r.json()["error"]["fields"]


def test_a_second_report_of_the_same_passage_joins_it(client_for, open_q):
    first, second = UserFactory(), UserFactory()
    a = report(client_for(first), open_q, "memory bandwith", note="Mine.").json()
    b = report(client_for(second), open_q, "memory   bandwith", note="Theirs.").json()
    assert a["id"] == b["id"] and b["joined"] is True and b["reporters"] == 2
    assert b["note"] == "Theirs."  # each reporter sees their own note, not the other's
    assert Correction.objects.count() == 1
    # Once decided, the same passage makes a new report.
    Correction.objects.update(state=CorrectionState.DECLINED, change_note="Fine as is.")
    c = report(client_for(second), open_q, "memory bandwith").json()
    assert c["id"] != a["id"]


def test_more_than_ten_reports_a_day_is_429_with_retry_after(client_for, free_user, open_q):
    client = client_for(free_user)
    for n in range(10):
        assert report(client, open_q, "memory bandwith", note=f"n{n}").status_code == 201
    r = report(client, open_q, "memory bandwith")
    assert r.status_code == 429
    assert 0 < int(r["Retry-After"]) <= 86400
    # Another reader is not limited by this one.
    assert report(client_for(UserFactory()), open_q, "memory bandwith").status_code == 201


def test_concepts_and_guide_items_can_be_reported(client_for, free_user):
    concept = ConceptFactory(body="KV cache grows with the context lenght.")
    item = GuideItemFactory(body="Prefill is compute-bound.", section__guide__published=True)
    client = client_for(free_user)
    assert report(client, concept, "context lenght", target_type="concept").status_code == 201
    r = report(client, item, "compute-bound", target_type="guide_item")
    assert r.status_code == 201, r.content


def test_a_reader_may_not_patch(client_for, free_user, open_q):
    client = client_for(free_user)
    pk = report(client, open_q, "memory bandwith").json()["id"]
    r = client.patch(
        f"{URL}{pk}/", {"state": "fixed", "change_note": "x"}, content_type="application/json"
    )
    assert r.status_code == 403
    staff = UserFactory(is_staff=True)  # staff outside the authors group: still refused
    r = client_for(staff).patch(
        f"{URL}{pk}/", {"state": "fixed", "change_note": "x"}, content_type="application/json"
    )
    assert r.status_code == 403
    assert Correction.objects.get().state == "open"


@pytest.mark.parametrize("state", ["fixed", "declined"])
def test_fixed_and_declined_need_a_change_note(client_for, free_user, author, open_q, state):
    pk = report(client_for(free_user), open_q, "memory bandwith").json()["id"]
    r = client_for(author).patch(
        f"{URL}{pk}/", {"state": state, "change_note": "  "}, content_type="application/json"
    )
    assert r.status_code == 400
    assert list(r.json()["error"]["fields"]) == ["change_note"]
    r = client_for(author).patch(
        f"{URL}{pk}/", {"state": "accepted"}, content_type="application/json"
    )
    assert r.status_code == 200 and r.json()["state"] == "accepted"


def test_fix_shows_under_what_changed_moves_updated_and_emails(
    client_for, free_user, author, open_q, eager, django_capture_on_commit_callbacks
):
    wants = free_user
    silent = UserFactory(email_replies=False)
    report(client_for(wants), open_q, "memory bandwith", note="PRIVATE-NOTE-1")
    pk = report(client_for(silent), open_q, "memory bandwith", note="PRIVATE-NOTE-2").json()["id"]
    url = open_q.get_absolute_url()
    before = client_for(None).get(url).content.decode()
    assert "What changed" not in before and LONG_AGO.strftime("%B %Y") in before
    with django_capture_on_commit_callbacks(execute=True):
        r = client_for(author).patch(
            f"{URL}{pk}/",
            {"state": "fixed", "change_note": "Spelling of bandwidth corrected."},
            content_type="application/json",
        )
    assert r.status_code == 200, r.content
    page = client_for(None).get(url).content.decode()
    assert "What changed" in page and "Spelling of bandwidth corrected." in page
    assert timezone.now().strftime("%B %Y") in page.split("Updated", 1)[1][:200]
    # The quote and the reporters' notes never reach the page.
    assert "memory bandwith" not in page.replace("memory bandwith, not by FLOPs", "")
    assert "PRIVATE-NOTE" not in page
    # One email, to the reporter who wants them.
    assert [m.to for m in mail.outbox] == [[wants.email]]
    assert "Spelling of bandwidth corrected." in mail.outbox[0].body
    assert "Fixed" in mail.outbox[0].subject


def test_declined_emails_and_stays_off_the_page(
    client_for, free_user, author, open_q, eager, django_capture_on_commit_callbacks
):
    pk = report(client_for(free_user), open_q, "memory bandwith").json()["id"]
    with django_capture_on_commit_callbacks(execute=True):
        client_for(author).patch(
            f"{URL}{pk}/",
            {"state": "declined", "change_note": "Spelt that way on purpose."},
            content_type="application/json",
        )
    assert len(mail.outbox) == 1 and "Declined" in mail.outbox[0].subject
    assert "What changed" not in client_for(None).get(open_q.get_absolute_url()).content.decode()


def test_the_quote_and_note_are_only_for_reporters_and_authors(client_for, open_q, author):
    reporter, other = UserFactory(), UserFactory()
    report(client_for(reporter), open_q, "memory bandwith", note="PRIVATE-NOTE")
    assert client_for(other).get(URL).json()["results"] == []
    dashboard = client_for(reporter).get("/dashboard/").content.decode()
    assert "memory bandwith" in dashboard
    assert "memory bandwith" not in client_for(other).get("/dashboard/").content.decode()
    # The admin queue is the authors': a staff member outside the group gets nothing.
    staff = UserFactory(is_staff=True)
    assert client_for(staff).get("/admin/community/correction/").status_code == 403
    queue = client_for(author).get("/admin/community/correction/")
    assert queue.status_code == 200 and "memory bandwith" in queue.content.decode()


def test_fixed_records_the_latest_revision(author, free_user, open_q):
    import reversion

    with reversion.create_revision():
        open_q.answer = open_q.answer.replace("bandwith", "bandwidth")
        open_q.save()
    reported = services.correction_report(
        user=free_user, target=open_q, quote="bound by memory", kind="typo", note="x"
    )
    fixed = services.correction_decide(
        user=author, correction=reported.correction, state="fixed", change_note="Done."
    )
    assert fixed.fixed_version is not None
    assert fixed.fixed_version.object_id == str(open_q.pk)


def test_the_html_form_works_without_javascript(client_for, free_user, open_q):
    client = client_for(free_user)
    page = client.get(open_q.get_absolute_url()).content.decode()
    assert 'action="/community/corrections/"' in page and "Report a mistake" in page
    data = {
        "target_type": "question",
        "target_id": open_q.pk,
        "quote": "memory bandwith",
        "kind": "typo",
        "note": "Spelling.",
        "next": open_q.get_absolute_url(),
    }
    r = client.post("/community/corrections/", data)
    assert r.status_code == 302 and r["Location"] == open_q.get_absolute_url()
    r = client.post("/community/corrections/", {**data, "quote": "not there at all"})
    assert r.status_code == 400 and "not on this page" in r.content.decode()
    assert Correction.objects.count() == 1
