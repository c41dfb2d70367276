"""Moderators hide and restore comments in admin; reported comments are easy to find."""

import pytest

from inferview.community.discussion import services as discussion_services
from inferview.community.models import Comment
from tests.community.factories import CommentFactory, ProgressFactory
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client_for(client_for):
    return client_for(UserFactory(is_staff=True, is_superuser=True))


def test_hide_and_restore_actions(admin_client_for):
    c = CommentFactory(body="Rude words")
    url = "/admin/community/comment/"
    r = admin_client_for.post(url, {"action": "hide", "_selected_action": [c.pk]})
    assert r.status_code == 302
    c.refresh_from_db()
    assert c.is_hidden
    html = admin_client_for.get(c.question.get_absolute_url()).content.decode()
    assert "[hidden by a moderator]" not in html  # no visible replies, so the thread is gone
    admin_client_for.post(url, {"action": "restore", "_selected_action": [c.pk]})
    c.refresh_from_db()
    assert not c.is_hidden


def test_hidden_comment_with_replies_keeps_a_placeholder(client, moderator):
    top = CommentFactory(body="Rude words")
    CommentFactory(question=top.question, parent=top, body="A calm reply")
    discussion_services.comment_hide(moderator=moderator, comment=top)
    html = client.get(top.question.get_absolute_url()).content.decode()
    assert "[hidden by a moderator]" in html and "A calm reply" in html and "Rude words" not in html


def test_reported_filter_and_changelist(admin_client_for):
    reported = CommentFactory(body="Reported one")
    CommentFactory(body="Quiet one")
    discussion_services.comment_report(user=UserFactory(), comment=reported, reason="abuse")
    html = admin_client_for.get("/admin/community/comment/?state=reported").content.decode()
    assert "Reported one" in html and "Quiet one" not in html
    assert (
        admin_client_for.get(f"/admin/community/comment/{reported.pk}/change/").status_code == 200
    )


def test_admin_cannot_delete_comments_and_never_sees_approaches(admin_client_for):
    c = CommentFactory()
    admin_client_for.post(
        "/admin/community/comment/", {"action": "delete_selected", "_selected_action": [c.pk]}
    )
    assert Comment.objects.filter(pk=c.pk).exists()
    p = ProgressFactory(approach="TOP-SECRET-APPROACH")
    html = admin_client_for.get(f"/admin/community/progress/{p.pk}/change/").content.decode()
    assert "TOP-SECRET-APPROACH" not in html
