"""A question that goes back to draft drops out of a learner's counts and lists."""

import pytest

from inferview.community.bookmarks import selectors as bookmark_selectors
from inferview.community.bookmarks import services as bookmark_services
from tests.factories import QuestionFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_bookmark_count_and_list_skip_drafts():
    user = UserFactory()
    live, gone = QuestionFactory(), QuestionFactory()
    for q in (live, gone):
        bookmark_services.bookmark_toggle(user=user, question=q)
    gone.published = False
    gone.save()
    assert bookmark_selectors.bookmark_count(user) == 1
    assert [b.question_id for b in bookmark_selectors.bookmarks_for(user)] == [live.pk]
