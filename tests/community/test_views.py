"""HTML actions: each is a form POST that redirects back (works without JavaScript)."""

import pytest

from inferview.community.models import (
    Bookmark,
    Comment,
    CommentReport,
    DifficultyVote,
    Progress,
    ReviewCard,
)
from tests.community.factories import CommentFactory
from tests.factories import ConceptFactory, QuestionFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def question():
    return QuestionFactory()


def test_bookmark_without_javascript_posts_and_redirects_back(client_for, free_user, question):
    c = client_for(free_user)
    r = c.post(
        "/community/bookmarks/toggle/",
        {"question": question.pk, "next": question.track.get_absolute_url()},
    )
    assert r.status_code == 302 and r["Location"] == question.track.get_absolute_url()
    assert Bookmark.objects.filter(user=free_user, question=question).exists()
    r = c.post("/community/bookmarks/toggle/", {"question": question.pk})
    assert r["Location"] == question.get_absolute_url()
    assert not Bookmark.objects.exists()


def test_bookmark_with_fetch_answers_json(client_for, free_user, question):
    c = client_for(free_user)
    r = c.post(
        "/community/bookmarks/toggle/", {"question": question.pk}, HTTP_ACCEPT="application/json"
    )
    assert r.status_code == 200 and r.json() == {"bookmarked": True, "count": 1}
    concept = ConceptFactory()
    r = c.post(
        "/community/bookmarks/toggle/", {"concept": concept.pk}, HTTP_ACCEPT="application/json"
    )
    assert r.json() == {"bookmarked": True, "count": 2}


def test_bookmark_redirect_ignores_offsite_next(client_for, free_user, question):
    r = client_for(free_user).post(
        "/community/bookmarks/toggle/", {"question": question.pk, "next": "https://evil.example/"}
    )
    assert r["Location"] == question.get_absolute_url()


def test_anonymous_actions_go_to_sign_in(client, question):
    r = client.post("/community/bookmarks/toggle/", {"question": question.pk})
    assert r.status_code == 302 and r["Location"].startswith("/accounts/login/?next=")
    r = client.post(
        "/community/bookmarks/toggle/", {"question": question.pk}, HTTP_ACCEPT="application/json"
    )
    assert r.status_code == 401
    r = client.post(f"/community/question/{question.pk}/comments/", {"body": "hi"})
    assert r.status_code == 302 and not Comment.objects.exists()


def test_practice_save_then_reveal_then_rate(client_for, free_user, question):
    c = client_for(free_user)
    r = c.post(
        f"/community/questions/{question.pk}/practice/", {"approach": "My plan", "action": "save"}
    )
    assert r.status_code == 302 and r["Location"].endswith("#practice")
    assert Progress.objects.get().revealed_at is None
    r = c.post(
        f"/community/questions/{question.pk}/practice/",
        {"approach": "My plan v2", "action": "reveal"},
    )
    assert r["Location"].endswith("#answer-heading")
    p = Progress.objects.get()
    assert p.approach == "My plan v2" and p.revealed_at
    r = c.post(f"/community/questions/{question.pk}/rate/", {"rating": "3"})
    assert r.status_code == 302
    assert ReviewCard.objects.get().last_rating == 3
    page = c.get(question.get_absolute_url()).content.decode()
    assert "Next review:" in page


def test_practice_form_errors_are_shown(client_for, free_user, question):
    r = client_for(free_user).post(
        f"/community/questions/{question.pk}/practice/", {"approach": "x" * 20001, "action": "save"}
    )
    assert r.status_code == 400
    assert "Keep your approach under 20,000 characters." in r.content.decode()


def test_approach_is_private(client_for, free_user, question):
    client_for(free_user).post(
        f"/community/questions/{question.pk}/practice/",
        {"approach": "SECRET-PLAN-42", "action": "save"},
    )
    other = client_for(UserFactory()).get(question.get_absolute_url()).content.decode()
    assert "SECRET-PLAN-42" not in other
    assert (
        "SECRET-PLAN-42" in client_for(free_user).get(question.get_absolute_url()).content.decode()
    )


def test_difficulty_vote_form(client_for, free_user, question):
    c = client_for(free_user)
    assert (
        c.post(f"/community/questions/{question.pk}/difficulty/", {"felt": "harder"}).status_code
        == 302
    )
    assert DifficultyVote.objects.get().felt == "harder"
    html = c.get(question.get_absolute_url()).content.decode()
    assert "Harder <strong>1</strong>" in html and "felt by learners (1)" in html


def test_comment_post_reply_edit_delete_report(client_for, free_user, question):
    c = client_for(free_user)
    r = c.post(f"/community/question/{question.pk}/comments/", {"body": "My **approach**"})
    top = Comment.objects.get()
    assert r.status_code == 302 and r["Location"].endswith(f"#comment-{top.pk}")
    other = client_for(UserFactory())
    other.post(
        f"/community/question/{question.pk}/comments/", {"body": "A reply", "parent": top.pk}
    )
    reply = Comment.objects.exclude(pk=top.pk).get()
    assert reply.parent_id == top.pk

    html = c.get(question.get_absolute_url()).content.decode()
    assert (
        'Discussion <span class="count">· 2</span>' in html and "<strong>approach</strong>" in html
    )

    assert c.get(f"/community/comments/{top.pk}/edit/").status_code == 200
    assert other.get(f"/community/comments/{top.pk}/edit/").status_code == 403
    c.post(f"/community/comments/{top.pk}/edit/", {"body": "Edited text"})
    top.refresh_from_db()
    assert top.body == "Edited text" and top.edited_at

    r = other.post(f"/community/comments/{top.pk}/report/", {"reason": "spam"})
    assert r.status_code == 302 and CommentReport.objects.count() == 1
    r = other.post(f"/community/comments/{top.pk}/report/", {})
    assert r.status_code == 400 and "Choose a reason." in r.content.decode()

    assert other.post(f"/community/comments/{top.pk}/delete/").status_code == 403
    c.post(f"/community/comments/{top.pk}/delete/")
    html = c.get(question.get_absolute_url()).content.decode()
    assert "[deleted]" in html and "A reply" in html and "Edited text" not in html


def test_comment_errors_render_with_field_messages(client_for, free_user, question):
    c = client_for(free_user)
    r = c.post(f"/community/question/{question.pk}/comments/", {"body": ""})
    assert r.status_code == 400 and "Write something first." in r.content.decode()
    r = c.post(f"/community/question/{question.pk}/comments/", {"body": "x" * 5001})
    assert r.status_code == 400 and "Keep comments under 5,000 characters" in r.content.decode()
    nested_parent = CommentFactory(question=question, parent=CommentFactory(question=question))
    r = c.post(
        f"/community/question/{question.pk}/comments/", {"body": "deep", "parent": nested_parent.pk}
    )
    assert r.status_code == 400 and "one level deep" in r.content.decode()


def test_posting_is_rate_limited_per_user(client_for, free_user, question, settings):
    c = client_for(free_user)
    statuses = [
        c.post(f"/community/question/{question.pk}/comments/", {"body": f"n{i}"}).status_code
        for i in range(8)
    ]
    assert statuses[:6] == [302] * 6 and statuses[6:] == [429, 429]
    assert (
        "posting faster than we allow"
        in c.post(f"/community/question/{question.pk}/comments/", {"body": "x"}).content.decode()
    )
    assert Comment.objects.count() == 6
    # Another user is not affected.
    assert (
        client_for(UserFactory())
        .post(f"/community/question/{question.pk}/comments/", {"body": "mine"})
        .status_code
        == 302
    )


def test_discussion_sort_and_pagination_links(client, question):
    for i in range(25):
        CommentFactory(question=question, body=f"Comment body {i:02d}")
    html = client.get(question.get_absolute_url()).content.decode()
    assert "Comment body 24" in html and "Comment body 04" not in html and "Page 1 of 2" in html
    html = client.get(question.get_absolute_url() + "?csort=oldest").content.decode()
    assert "Comment body 00" in html and "Comment body 24" not in html
    html = client.get(question.get_absolute_url() + "?csort=oldest&cpage=2").content.decode()
    assert "Comment body 24" in html and "Page 2 of 2" in html


def test_discussion_is_readable_even_when_the_answer_is_locked(client):
    q = QuestionFactory(access="premium")
    CommentFactory(question=q, body="Public discussion")
    html = client.get(q.get_absolute_url()).content.decode()
    assert (
        "Public discussion" in html
        and "Sign in to join the discussion" not in html
        and "to join the discussion" in html
    )


def test_unpublished_question_has_no_actions(client_for, free_user):
    q = QuestionFactory(published=False)
    assert (
        client_for(free_user)
        .post(f"/community/question/{q.pk}/comments/", {"body": "x"})
        .status_code
        == 404
    )
    assert (
        client_for(free_user).post("/community/bookmarks/toggle/", {"question": q.pk}).status_code
        == 404
    )


@pytest.mark.parametrize("data", [{}, {"question": "abc"}, {"concept": "1; drop"}])
def test_bookmark_toggle_rejects_bad_ids(client_for, free_user, data):
    assert client_for(free_user).post("/community/bookmarks/toggle/", data).status_code == 400


def test_progress_buttons_mark_confident_and_start_over(client_for, free_user, question):
    c = client_for(free_user)
    c.post(f"/community/questions/{question.pk}/practice/", {"approach": "x", "action": "save"})
    assert "Mark confident" in c.get(question.get_absolute_url()).content.decode()
    c.post(f"/community/questions/{question.pk}/progress/", {"status": "confident"})
    assert Progress.objects.get().status == "confident"
    c.post(f"/community/questions/{question.pk}/progress/", {"status": "not_started"})
    assert not Progress.objects.exists()


def test_dashboard_comment_excerpt_shows_markup_as_typed_not_double_escaped(client_for, free_user):
    from inferview.community.discussion import services as discussion_services
    from tests.factories import QuestionFactory

    q = QuestionFactory(access="open")
    discussion_services.comment_create(
        user=free_user, question=q, body="Why <script>alert(1)</script> & **this**?"
    )
    html = client_for(free_user).get("/dashboard/").content.decode()
    excerpt = html.split('class="comment-excerpt">', 1)[1].split("</span>", 1)[0]
    assert (
        excerpt == "Why &lt;script&gt;alert(1)&lt;/script&gt; &amp; this?"
    )  # escaped exactly once
    assert "<script>alert(1)" not in html
