"""The community API under /api/v1/: personal endpoints need a user; errors share one shape."""

import pytest

from inferview.community.discussion import services as discussion_services
from inferview.community.models import Bookmark, Comment, CommentReport, Progress, ReviewCard
from inferview.community.practice import services as practice_services
from tests.community.factories import CommentFactory
from tests.factories import ConceptFactory, QuestionFactory, TrackFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def question():
    return QuestionFactory(track=TrackFactory())


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/v1/bookmarks/"),
        ("post", "/api/v1/bookmarks/"),
        ("get", "/api/v1/progress/"),
        ("get", "/api/v1/reviews/"),
        ("get", "/api/v1/dashboard/"),
        ("get", "/api/v1/questions/{q}/practice/"),
        ("put", "/api/v1/questions/{q}/practice/"),
        ("post", "/api/v1/questions/{q}/rating/"),
        ("put", "/api/v1/questions/{q}/progress/"),
        ("post", "/api/v1/questions/{q}/comments/"),
        ("put", "/api/v1/questions/{q}/difficulty/"),
        ("patch", "/api/v1/comments/1/"),
        ("delete", "/api/v1/comments/1/"),
        ("post", "/api/v1/comments/1/report/"),
    ],
)
def test_personal_endpoints_need_sign_in(client, question, method, path):
    r = getattr(client, method)(path.format(q=question.pk), content_type="application/json")
    assert r.status_code == 403
    assert set(r.json()["error"]) == {"code", "message", "fields"}


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/questions/{q}/comments/",
        "/api/v1/questions/{q}/difficulty/",
        "/api/v1/questions/{q}/up-next/",
        "/api/v1/search/?q=why",
    ],
)
def test_public_endpoints_are_open(client, question, path):
    assert client.get(path.format(q=question.pk)).status_code == 200


def test_bookmark_toggle_and_list(client_for, free_user, question):
    c = client_for(free_user)
    r = c.post("/api/v1/bookmarks/", {"question": question.pk}, content_type="application/json")
    assert r.json() == {"bookmarked": True, "count": 1}
    concept = ConceptFactory()
    c.post("/api/v1/bookmarks/", {"concept": concept.slug}, content_type="application/json")
    listed = c.get("/api/v1/bookmarks/").json()
    assert {(b["question"] or {}).get("id") for b in listed} == {question.pk, None}
    assert {(b["concept"] or {}).get("slug") for b in listed} == {concept.slug, None}
    r = c.post("/api/v1/bookmarks/", {}, content_type="application/json")
    assert r.status_code == 400 and "question" in r.json()["error"]["fields"]
    r = c.post("/api/v1/bookmarks/", {"question": question.pk}, content_type="application/json")
    assert r.json()["bookmarked"] is False and Bookmark.objects.count() == 1


def test_practice_rating_reviews_progress_dashboard(client_for, free_user, question, fsrs_exact):
    c = client_for(free_user)
    r = c.put(
        f"/api/v1/questions/{question.pk}/practice/",
        {"approach": "Mine", "reveal": True},
        content_type="application/json",
    )
    assert r.status_code == 200 and r.json()["approach"] == "Mine" and r.json()["revealed_at"]
    r = c.post(
        f"/api/v1/questions/{question.pk}/rating/",
        {"rating": "good"},
        content_type="application/json",
    )
    assert (
        r.status_code == 201
        and r.json()["state"] == "Learning"
        and r.json()["last_rating"] == "Good"
    )
    r = c.post(
        f"/api/v1/questions/{question.pk}/rating/",
        {"rating": "brilliant"},
        content_type="application/json",
    )
    assert r.status_code == 400 and "rating" in r.json()["error"]["fields"]
    assert c.get(f"/api/v1/questions/{question.pk}/practice/").json()["card"]["reps"] == 1
    assert c.get("/api/v1/reviews/").json()["upcoming"][0]["question"]["id"] == question.pk
    assert c.get("/api/v1/progress/").json()[0]["status"] == "confident"
    dash = c.get("/api/v1/dashboard/").json()
    assert (
        dash["tracks"][0]["confident"] == 1 and dash["upcoming"][0]["question"]["id"] == question.pk
    )
    r = c.put(
        f"/api/v1/questions/{question.pk}/progress/",
        {"status": "not_started"},
        content_type="application/json",
    )
    assert (
        r.json()["status"] == "not_started"
        and not Progress.objects.exists()
        and not ReviewCard.objects.exists()
    )


def test_approach_is_never_visible_to_others(client_for, free_user, question):
    practice_services.approach_save(user=free_user, question=question, text="PRIVATE-APPROACH")
    other = client_for(UserFactory())
    assert (
        "PRIVATE-APPROACH"
        not in other.get(f"/api/v1/questions/{question.pk}/practice/").content.decode()
    )
    assert "PRIVATE-APPROACH" not in other.get("/api/v1/progress/").content.decode()


def test_locked_answer_cannot_be_rated(client_for, free_user):
    q = QuestionFactory(access="premium")
    r = client_for(free_user).post(
        f"/api/v1/questions/{q.pk}/rating/", {"rating": "good"}, content_type="application/json"
    )
    assert r.status_code == 403 and r.json()["error"]["code"] == "permission_denied"


def test_comments_crud_over_the_api(client_for, free_user, question):
    c = client_for(free_user)
    r = c.post(
        f"/api/v1/questions/{question.pk}/comments/",
        {"body": "Hello **there**"},
        content_type="application/json",
    )
    assert r.status_code == 201 and "<strong>there</strong>" in r.json()["body_html"]
    top_id = r.json()["id"]
    other = client_for(UserFactory())
    r = other.post(
        f"/api/v1/questions/{question.pk}/comments/",
        {"body": "Reply", "parent": top_id},
        content_type="application/json",
    )
    assert r.status_code == 201
    page = c.get(f"/api/v1/questions/{question.pk}/comments/?sort=oldest").json()
    assert page["count"] == 2 and page["results"][0]["replies"][0]["body"] == "Reply"
    assert (
        other.patch(
            f"/api/v1/comments/{top_id}/", {"body": "x"}, content_type="application/json"
        ).status_code
        == 403
    )
    r = c.patch(f"/api/v1/comments/{top_id}/", {"body": "Edited"}, content_type="application/json")
    assert r.json()["body"] == "Edited" and r.json()["edited_at"]
    assert (
        other.post(
            f"/api/v1/comments/{top_id}/report/",
            {"reason": "spam"},
            content_type="application/json",
        ).status_code
        == 201
    )
    assert CommentReport.objects.count() == 1
    assert c.delete(f"/api/v1/comments/{top_id}/").status_code == 204
    page = c.get(f"/api/v1/questions/{question.pk}/comments/").json()
    assert (
        page["count"] == 1
        and page["results"][0]["state"] == "deleted"
        and page["results"][0]["body"] == ""
    )
    r = c.post(
        f"/api/v1/questions/{question.pk}/comments/", {"body": ""}, content_type="application/json"
    )
    assert r.status_code == 400 and "body" in r.json()["error"]["fields"]


def test_concept_comments(client_for, free_user):
    concept = ConceptFactory()
    c = client_for(free_user)
    assert (
        c.post(
            f"/api/v1/concepts/{concept.slug}/comments/",
            {"body": "On a concept"},
            content_type="application/json",
        ).status_code
        == 201
    )
    assert c.get(f"/api/v1/concepts/{concept.slug}/comments/").json()["count"] == 1


def test_api_posting_shares_the_rate_limit(client_for, free_user, question):
    c = client_for(free_user)
    codes = [
        c.post(
            f"/api/v1/questions/{question.pk}/comments/",
            {"body": f"n{i}"},
            content_type="application/json",
        ).status_code
        for i in range(7)
    ]
    assert codes[:6] == [201] * 6 and codes[6] == 429
    assert Comment.objects.count() == 6


def test_hidden_comments_show_as_hidden(client, moderator, question):
    c = CommentFactory(question=question)
    CommentFactory(question=question, parent=c)
    discussion_services.comment_hide(moderator=moderator, comment=c)
    result = client.get(f"/api/v1/questions/{question.pk}/comments/").json()["results"][0]
    assert result["state"] == "hidden" and result["body"] == "" and result["author"] is None


def test_difficulty_and_up_next(client_for, free_user, question):
    nxt = QuestionFactory(track=question.track, number=question.number + 1)
    c = client_for(free_user)
    r = c.put(
        f"/api/v1/questions/{question.pk}/difficulty/",
        {"felt": "easier"},
        content_type="application/json",
    )
    assert r.json() == {
        "difficulty": "medium",
        "easier": 1,
        "as_labelled": 0,
        "harder": 0,
        "felt": "easier",
    }
    assert (
        c.get(f"/api/v1/questions/{question.pk}/up-next/").json()["next_in_track"]["id"] == nxt.pk
    )


def test_schema_lists_the_community_endpoints(client):
    schema = client.get("/api/schema/").content.decode()
    for path in [
        "/api/v1/bookmarks/",
        "/api/v1/reviews/",
        "/api/v1/dashboard/",
        "/api/v1/search/",
        "/api/v1/questions/{id}/comments/",
        "/api/v1/questions/{id}/rating/",
        "/api/v1/questions/{id}/up-next/",
        "/api/v1/comments/{id}/report/",
    ]:
        assert path in schema, path
