"""Review: only comments a learner can see may be reported (by id, in HTML and the API)."""

import pytest
from django.utils import timezone

from inferview.community.models import CommentReport
from tests.community.factories import CommentFactory
from tests.factories import QuestionFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def comments():
    draft = QuestionFactory(published=False, title="Unreleased draft title")
    return {
        "draft": CommentFactory(question=draft),
        "hidden": CommentFactory(hidden_at=timezone.now()),
        "visible": CommentFactory(),
    }


@pytest.mark.parametrize("which", ["draft", "hidden"])
def test_unseeable_comments_cannot_be_reported(client_for, user, comments, which):
    c = client_for(user)
    pk = comments[which].pk
    page = c.get(f"/community/comments/{pk}/report/")
    assert page.status_code == 404
    assert "Unreleased draft title" not in page.content.decode()
    assert c.post(f"/community/comments/{pk}/report/", {"reason": "spam"}).status_code == 404
    api = c.post(
        f"/api/v1/comments/{pk}/report/", {"reason": "spam"}, content_type="application/json"
    )
    assert api.status_code == 404
    assert not CommentReport.objects.exists()


def test_a_visible_comment_can_still_be_reported(client_for, user, comments):
    c = client_for(user)
    pk = comments["visible"].pk
    assert c.get(f"/community/comments/{pk}/report/").status_code == 200
    api = c.post(
        f"/api/v1/comments/{pk}/report/", {"reason": "spam"}, content_type="application/json"
    )
    assert api.status_code == 201
    assert CommentReport.objects.count() == 1
