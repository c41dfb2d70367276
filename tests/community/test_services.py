"""Services: bookmarks, practice, difficulty votes and discussion, without HTTP."""

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from inferview.community.bookmarks import selectors as bookmark_selectors
from inferview.community.bookmarks import services as bookmark_services
from inferview.community.discussion import selectors as discussion_selectors
from inferview.community.discussion import services as discussion_services
from inferview.community.models import Bookmark, Comment, CommentReport, DifficultyVote, Progress
from inferview.community.practice import selectors as practice_selectors
from inferview.community.practice import services as practice_services
from tests.community.factories import CommentFactory
from tests.factories import ConceptFactory, QuestionFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_bookmark_toggle_on_and_off(free_user):
    q = QuestionFactory()
    assert bookmark_services.bookmark_toggle(user=free_user, question=q) is True
    assert Bookmark.objects.filter(user=free_user, question=q).count() == 1
    assert bookmark_services.bookmark_toggle(user=free_user, question=q) is False
    assert not Bookmark.objects.exists()


def test_bookmark_concepts_and_count(free_user):
    bookmark_services.bookmark_toggle(user=free_user, concept=ConceptFactory())
    bookmark_services.bookmark_toggle(user=free_user, question=QuestionFactory())
    assert bookmark_selectors.bookmark_count(free_user) == 2


def test_bookmark_needs_a_user(anonymous):
    with pytest.raises(PermissionDenied):
        bookmark_services.bookmark_toggle(user=anonymous, question=QuestionFactory())


def test_approach_is_saved_and_editable_and_marks_attempted(free_user):
    q = QuestionFactory()
    p = practice_services.approach_save(
        user=free_user, question=q, text="  Start from bytes per token.  "
    )
    assert (
        p.approach == "Start from bytes per token."
        and p.status == "attempted"
        and p.revealed_at is None
    )
    p = practice_services.approach_save(user=free_user, question=q, text="Edited", reveal=True)
    assert p.approach == "Edited" and p.revealed_at is not None
    assert Progress.objects.count() == 1


def test_approach_too_long_is_a_field_error(free_user):
    with pytest.raises(ValidationError) as exc:
        practice_services.approach_save(
            user=free_user, question=QuestionFactory(), text="x" * 20001
        )
    assert "approach" in exc.value.message_dict


def test_revealing_a_locked_answer_is_refused(free_user):
    with pytest.raises(PermissionDenied):
        practice_services.approach_save(
            user=free_user, question=QuestionFactory(access="premium"), text="", reveal=True
        )


def test_progress_set_and_reset(free_user):
    q = QuestionFactory()
    practice_services.progress_set(user=free_user, question=q, status="confident")
    assert Progress.objects.get().status == "confident"
    practice_services.progress_set(user=free_user, question=q, status="not_started")
    assert not Progress.objects.exists()


def test_difficulty_vote_is_one_per_user_and_tallied(free_user):
    q = QuestionFactory(difficulty="hard")
    practice_services.difficulty_vote(user=free_user, question=q, felt="easier")
    practice_services.difficulty_vote(
        user=free_user, question=q, felt="harder"
    )  # changes, not adds
    practice_services.difficulty_vote(user=UserFactory(), question=q, felt="harder")
    practice_services.difficulty_vote(user=UserFactory(), question=q, felt="as_labelled")
    tally = practice_selectors.difficulty_tally(q, free_user)
    assert (tally.easier, tally.as_labelled, tally.harder, tally.total, tally.mine) == (
        0,
        1,
        2,
        3,
        "harder",
    )
    assert DifficultyVote.objects.count() == 3
    with pytest.raises(ValidationError):
        practice_services.difficulty_vote(user=free_user, question=q, felt="great")


def test_comment_reply_one_level_only(free_user):
    q = QuestionFactory()
    top = discussion_services.comment_create(user=free_user, question=q, body="Top")
    reply = discussion_services.comment_create(user=free_user, question=q, body="Reply", parent=top)
    assert reply.parent_id == top.pk
    with pytest.raises(ValidationError) as exc:
        discussion_services.comment_create(
            user=free_user, question=q, body="Too deep", parent=reply
        )
    assert "parent" in exc.value.message_dict


def test_reply_must_be_on_the_same_item(free_user):
    top = discussion_services.comment_create(user=free_user, question=QuestionFactory(), body="Top")
    with pytest.raises(ValidationError):
        discussion_services.comment_create(
            user=free_user, question=QuestionFactory(), body="x", parent=top
        )


@pytest.mark.parametrize(
    ("body", "message"),
    [("", "Write something"), ("   ", "Write something"), ("x" * 5001, "under 5,000")],
)
def test_comment_body_validation(free_user, body, message):
    with pytest.raises(ValidationError) as exc:
        discussion_services.comment_create(user=free_user, question=QuestionFactory(), body=body)
    assert message in exc.value.message_dict["body"][0]


def test_comment_markdown_is_rendered_and_sanitised_at_write(free_user):
    c = discussion_services.comment_create(
        user=free_user, question=QuestionFactory(), body="**bold** <script>alert(1)</script>"
    )
    assert "<strong>bold</strong>" in c.body_html
    assert "<script" not in c.body_html and "&lt;script&gt;" in c.body_html


def test_edit_by_author_only(free_user):
    c = discussion_services.comment_create(user=free_user, question=QuestionFactory(), body="First")
    edited = discussion_services.comment_edit(user=free_user, comment=c, body="Second *take*")
    assert (
        edited.body == "Second *take*" and "<em>take</em>" in edited.body_html and edited.edited_at
    )
    with pytest.raises(PermissionDenied):
        discussion_services.comment_edit(user=UserFactory(), comment=c, body="Hijack")


def test_delete_keeps_thread_readable(free_user):
    q = QuestionFactory()
    top = discussion_services.comment_create(user=free_user, question=q, body="Top")
    other = UserFactory()
    discussion_services.comment_create(user=other, question=q, body="A reply", parent=top)
    with pytest.raises(PermissionDenied):
        discussion_services.comment_delete(user=other, comment=top)
    discussion_services.comment_delete(user=free_user, comment=top)
    top.refresh_from_db()
    assert top.is_deleted and top.body == "" and top.body_html == ""
    d = discussion_selectors.discussion(question=q)
    assert d.count == 1  # the reply
    assert [t.pk for t in d.threads] == [top.pk]  # kept as a placeholder for its reply
    # A deleted comment with no replies drops out of the thread entirely.
    lone = discussion_services.comment_create(user=free_user, question=q, body="Lone")
    discussion_services.comment_delete(user=free_user, comment=lone)
    assert lone.pk not in [t.pk for t in discussion_selectors.discussion(question=q).threads]


def test_report_hide_restore(free_user, moderator):
    c = discussion_services.comment_create(
        user=free_user, question=QuestionFactory(), body="Spam spam"
    )
    reporter = UserFactory()
    discussion_services.comment_report(user=reporter, comment=c, reason="spam")
    discussion_services.comment_report(user=reporter, comment=c, reason="spam")  # once per reporter
    assert CommentReport.objects.count() == 1
    with pytest.raises(ValidationError):
        discussion_services.comment_report(user=free_user, comment=c, reason="spam")  # not your own
    with pytest.raises(PermissionDenied):
        discussion_services.comment_hide(moderator=reporter, comment=c)
    discussion_services.comment_hide(moderator=moderator, comment=c)
    c.refresh_from_db()
    assert c.is_hidden and c.hidden_by == moderator
    assert CommentReport.objects.get().resolved_at is not None
    assert discussion_selectors.discussion(question=c.question).count == 0
    with pytest.raises(PermissionDenied):
        discussion_services.comment_edit(user=free_user, comment=c, body="Sneaky edit")
    discussion_services.comment_restore(moderator=moderator, comment=c)
    c.refresh_from_db()
    assert not c.is_hidden and discussion_selectors.discussion(question=c.question).count == 1


def test_discussion_sorts_and_paginates():
    q = QuestionFactory()
    comments = [CommentFactory(question=q) for _ in range(25)]
    newest = discussion_selectors.discussion(question=q, sort="newest")
    assert newest.count == 25 and newest.num_pages == 2
    assert newest.threads[0].pk == comments[-1].pk and len(newest.threads) == 20
    oldest = discussion_selectors.discussion(question=q, sort="oldest", page=2)
    assert [t.pk for t in oldest.threads] == [c.pk for c in comments[20:]]
    assert discussion_selectors.discussion(question=q, sort="bogus").sort == "newest"


def test_concept_discussion_is_separate(free_user):
    concept = ConceptFactory()
    discussion_services.comment_create(user=free_user, concept=concept, body="On the concept")
    assert discussion_selectors.discussion(concept=concept).count == 1
    assert Comment.objects.get().question is None
