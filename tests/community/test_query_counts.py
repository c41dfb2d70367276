"""The question page runs a fixed number of queries with 0, 10 and 500 comments, for an
anonymous viewer and for a signed-in learner with bookmarks, progress and reviews."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from inferview.community.practice import services as practice_services
from inferview.pages.cache import bump_user
from questions import content_version, similarity
from tests.community.factories import BookmarkFactory, CommentFactory
from tests.factories import ConceptFactory, QuestionFactory, TrackFactory, UserFactory

pytestmark = pytest.mark.django_db

# Cold (the content version just moved, so nothing derived is cached):
# Anonymous: the question, its concepts and embeds; the previous question (rel="prev" and
# the "k" shortcut); up next (following questions, stored neighbours, candidates);
# difficulty tally; discussion (totals, page, replies); "What changed" (fixed corrections);
# the lessons that teach it ("Learn it in", one query over Lesson.questions).
MAX_ANONYMOUS = 13
# Signed in: the user with their tier (inferview.accounts.backends); the tier's shared part
# rendered (the anonymous page's queries, less the difficulty tally, which is the
# reader's); then their summary (community.reader_summary: the questions they have state
# on), and as it names this one their state (inferview.pages.shared): one query for
# bookmark, vote and tally, key points and confident up-next candidates, then their
# progress row and review card. The session is read from the cache (inferview.sessions).
MAX_SIGNED_IN = 17
# Warm (what a signed-in reader usually gets): their tier's shared part of the page
# (inferview.pages.shared) filled with their own state: the user with their tier, their
# summary (the questions they have state on: read once per page version, which the test
# has just moved; community.reader_summary), one query for all their state on the page,
# their progress row and their review card.
MAX_SIGNED_IN_WARM = 5


def build(n_comments: int):
    track = TrackFactory()
    concepts = ConceptFactory.create_batch(3)
    questions = [QuestionFactory(track=track, number=i) for i in range(1, 8)]
    for i, q in enumerate(questions):
        q.concepts.set(concepts[: 1 + i % 3])
    q = questions[2]
    authors = UserFactory.create_batch(5)
    tops = [CommentFactory(question=q, author=authors[i % 5]) for i in range(n_comments // 2)]
    for i in range(n_comments - len(tops)):
        CommentFactory(question=q, author=authors[i % 5], parent=tops[i % len(tops)])
    similarity.recompute()
    return q, questions


def learner_with_state(questions):
    user = UserFactory()
    for other in questions:
        BookmarkFactory(user=user, question=other)
        practice_services.approach_save(user=user, question=other, text="plan", reveal=True)
        practice_services.review_rate(user=user, question=other, rating=3)
    practice_services.difficulty_vote(user=user, question=questions[2], felt="harder")
    return user


def count(client, url):
    client.get(url)  # warm caches (Markdown), as the content pages' test does
    content_version.bump()  # but measure the page's render, not the anonymous page cache
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
        assert response.status_code == 200
    return len(ctx.captured_queries)


@pytest.mark.parametrize("signed_in", [False, True], ids=["anonymous", "learner"])
def test_question_page_query_count_is_fixed(client_for, signed_in, django_assert_max_num_queries):
    counts = {}
    for n in (0, 10, 500):
        q, questions = build(n)
        # Bookmarks and progress on other questions, not only this one: the learner's
        # total amount of state must not change the count either.
        user = learner_with_state(questions[:2] + [q]) if signed_in else None
        client = client_for(user)
        counts[n] = count(client, q.get_absolute_url())
        limit = MAX_SIGNED_IN if signed_in else MAX_ANONYMOUS
        content_version.bump()
        with django_assert_max_num_queries(limit):
            client.get(q.get_absolute_url())
        if signed_in:
            # Warm: up next and the discussion page come from the derived cache; what is
            # left is the learner's own state and the content the page shows.
            bump_user(user.pk)  # retire the reader's own page copy: measure the render
            with CaptureQueriesContext(connection) as warm:
                assert client.get(q.get_absolute_url()).status_code == 200
            assert len(warm.captured_queries) == MAX_SIGNED_IN_WARM, [
                w["sql"][:120] for w in warm.captured_queries
            ]
            # ...and the reader's next visit is their cached copy: the user with their tier
            with CaptureQueriesContext(connection) as hit:
                response = client.get(q.get_absolute_url())
            assert response["X-Page-Cache"] == "hit" and len(hit.captured_queries) == 1
    assert counts[0] == counts[10] == counts[500] == limit, counts


def test_second_page_of_comments_costs_the_same(client):
    q, _ = build(500)
    first = count(client, q.get_absolute_url())
    assert count(client, q.get_absolute_url() + "?cpage=3&csort=oldest") == first


# The user with their tier (the session comes from the cache), then the page's own reads: the track page counts its questions and
# the readable ones in one query, the learner's progress over the whole track in one
# grouped query and its reviews due in one count (the mastery line), loads the 50 rows it
# shows, and reads bookmarks, progress and comment counts for those rows; the bookmarks
# page knows every row is bookmarked.
LEARNER_LISTS = {"track": 9, "bookmarks": 4}


@pytest.mark.parametrize("page", LEARNER_LISTS)
def test_learner_list_pages_read_their_state_once(client_for, page):
    from django.urls import reverse

    counts = []
    for n in (3, 30):
        track = TrackFactory()
        questions = [QuestionFactory(track=track, number=i, access="open") for i in range(1, n + 1)]
        user = learner_with_state(questions)
        url = track.get_absolute_url() if page == "track" else reverse("community:bookmarks")
        counts.append(count(client_for(user), url))
    assert counts == [LEARNER_LISTS[page]] * 2, counts
