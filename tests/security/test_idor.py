"""Another user's personal objects, in the HTML pages and the API: bookmarks, notes
(the private practice approach), attempts (progress), reviews (review cards), calculator
runs, comments and receipts. The intruder gets a 403/404 or their own (empty) view, never
the owner's data, and nothing of the owner's changes."""

import pytest

from calculators.models import CalculationRun
from inferview.access.models import Purchase
from inferview.community.models import Bookmark, Progress, ReviewCard
from tests.community.factories import CommentFactory
from tests.factories import QuestionFactory, UserFactory

NOTE = "OWNER-PRIVATE-NOTE-5d1c"
COMMENT = "Owner comment text 9a7e"


@pytest.fixture
def owned(db, client_for):
    owner, intruder = UserFactory(), UserFactory()
    q = QuestionFactory()
    owner_client = client_for(owner)
    assert (
        owner_client.post(
            "/api/v1/bookmarks/", {"question": q.pk}, content_type="application/json"
        ).status_code
        == 200
    )
    assert (
        owner_client.put(
            f"/api/v1/questions/{q.pk}/practice/",
            {"approach": NOTE, "reveal": True},
            content_type="application/json",
        ).status_code
        == 200
    )
    assert (
        owner_client.post(
            f"/api/v1/questions/{q.pk}/rating/", {"rating": "good"}, content_type="application/json"
        ).status_code
        == 201
    )
    comment = CommentFactory(question=q, author=owner, body=COMMENT)
    purchase = Purchase.objects.create(
        user=owner,
        provider="local",
        checkout_session_id="cs_local_idor",
        currency="USD",
        amount=2500,
    )
    run = CalculationRun.objects.create(
        calculator="roofline", inputs={}, inputs_hash="1" * 64, requested_by=owner
    )
    return {
        "owner": owner,
        "q": q,
        "comment": comment,
        "purchase": purchase,
        "run": run,
        "intruder": client_for(intruder),
    }


def test_the_owner_setup_is_real(owned):
    owner, q = owned["owner"], owned["q"]
    assert Bookmark.objects.filter(user=owner, question=q).exists()
    assert Progress.objects.get(user=owner, question=q).approach == NOTE
    assert ReviewCard.objects.filter(user=owner, question=q).exists()


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/bookmarks/",
        "/api/v1/progress/",
        "/api/v1/reviews/",
        "/api/v1/dashboard/",
        "/api/v1/questions/{q}/practice/",
        "/bookmarks/",
        "/review/",
        "/dashboard/",
        "/tracks/{track}/{number}/{slug}/",
    ],
)
def test_lists_and_pages_show_the_intruder_only_their_own(owned, path):
    q = owned["q"]
    url = path.format(q=q.pk, track=q.track.slug, number=q.number, slug=q.slug)
    r = owned["intruder"].get(url)
    assert r.status_code == 200
    body = r.content.decode()
    assert NOTE not in body
    if "practice" in url:
        assert r.json()["approach"] == "" and r.json()["card"] is None
    if url in ("/api/v1/bookmarks/", "/api/v1/progress/"):
        assert r.json() == []
    if url == "/api/v1/reviews/":
        assert r.json() == {"due": [], "upcoming": []}


def test_the_intruder_cannot_edit_or_delete_the_comment(owned):
    c, pk = owned["intruder"], owned["comment"].pk
    assert (
        c.patch(
            f"/api/v1/comments/{pk}/", {"body": "pwned"}, content_type="application/json"
        ).status_code
        == 403
    )
    assert c.delete(f"/api/v1/comments/{pk}/").status_code == 403
    assert c.post(f"/community/comments/{pk}/edit/", {"body": "pwned"}).status_code == 403
    assert c.post(f"/community/comments/{pk}/delete/").status_code == 403
    owned["comment"].refresh_from_db()
    assert owned["comment"].body == COMMENT and owned["comment"].deleted_at is None


def test_the_intruder_cannot_read_the_receipt(owned):
    c, pk = owned["intruder"], owned["purchase"].pk
    assert c.get(f"/account/receipts/{pk}/").status_code == 404
    assert c.get(f"/api/v1/purchases/{pk}/").status_code == 404
    assert c.get("/api/v1/purchases/").json()["results"] == []
    session = owned["purchase"].checkout_session_id
    assert c.get(f"/premium/checkout/local/{session}/").status_code == 404
    assert c.post(f"/premium/checkout/local/{session}/").status_code == 404
    owned["purchase"].refresh_from_db()
    assert owned["purchase"].status == "pending"


def test_the_intruders_bookmark_toggle_is_their_own(owned):
    q = owned["q"]
    owned["intruder"].post(
        "/api/v1/bookmarks/", {"question": q.pk}, content_type="application/json"
    )
    assert Bookmark.objects.filter(user=owned["owner"], question=q).exists()


def test_a_run_is_shared_by_its_inputs_and_names_nobody(owned):
    """Runs are deduplicated by their inputs, so one is everyone's result (its UUID is
    unguessable and it holds no personal data): the intruder may read it, and nothing in
    it says who asked."""
    r = owned["intruder"].get(f"/api/v1/calculators/runs/{owned['run'].pk}/")
    assert r.status_code == 200
    text = r.content.decode()
    assert "requested_by" not in text and owned["owner"].email not in text
    assert owned["owner"].username not in text
