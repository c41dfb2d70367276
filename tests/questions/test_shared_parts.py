"""Signed-in pages from shared parts (inferview.pages.shared): a question page's part for a
tier is rendered once and filled with each reader's own state; it never reaches a reader
of another tier, carries nothing of the reader who happened to render it, and the page a
reader gets is the page they would have got rendered for them alone."""

import datetime as dt
import re

import pytest
from django.core.cache import cache, caches
from django.db import connection
from django.middleware.csrf import _unmask_cipher_token
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from inferview.community.discussion import services as discussion_services
from inferview.community.models import Bookmark, KeyPointScore, Progress
from inferview.pages import shared
from questions.models import Question
from tests.factories import QuestionFactory

pytestmark = pytest.mark.django_db


def browser(client_for, user, csrf):
    """A signed-in browser holding its CSRF cookie (``csrf``: its 32-letter secret)."""
    c = client_for(user)
    c.cookies["csrftoken"] = csrf
    return c


def page(c, url):
    response = c.get(url)
    assert response.status_code == 200
    html = response.content.decode()
    assert shared.OPEN not in html and shared.CLOSE not in html  # no mark left unfilled
    return response, html


def normal(html: str) -> str:
    """Form tokens (masked afresh on every page) and whitespace set aside."""
    html = re.sub(r"[A-Za-z0-9]{64}", "TOKEN", html)
    return re.sub(r"\s+", " ", html)


@pytest.fixture
def question():
    q = QuestionFactory(access="open", answer="The open reasoning.", key_points=["One", "Two"])
    QuestionFactory(access="open", track=q.track, number=q.number + 1)  # up next
    return q


def test_a_first_view_is_the_tier_s_shared_part_in_three_queries(
    client_for, free_user, verified_user, question
):
    url = question.get_absolute_url()
    page(browser(client_for, verified_user, "a" * 32), url)  # another free reader renders it
    Progress.objects.create(user=free_user, question=question, status="attempted")
    KeyPointScore.objects.create(user=free_user, question=question, made=[2], total=2)
    c = browser(client_for, free_user, "b" * 32)
    with CaptureQueriesContext(connection) as queries:
        response, html = page(c, url)
    assert response["X-Page-Cache"] == "shared"
    # the user with their tier; their summary (the questions they have state on, read
    # once per page version: community.reader_summary), which names this one; one query
    # for all of the reader's state on the page (bookmark, vote and tally, key points,
    # confident up-next candidates, the ids of their progress and review card); their
    # progress row (they have no review card)
    assert len(queries) == 4, [q["sql"] for q in queries]
    assert "The open reasoning." in html and "You made 1 of 2 key points" in html


def test_a_revisit_is_the_reader_s_own_copy_in_one_query(client_for, free_user, question):
    url = question.get_absolute_url()
    c = browser(client_for, free_user, "c" * 32)
    page(c, url)
    with CaptureQueriesContext(connection) as queries:
        response, _ = page(c, url)
    assert response["X-Page-Cache"] == "hit"
    assert len(queries) == 1  # the user with their tier


def test_the_filled_page_is_the_page_rendered_for_the_reader_alone(
    client_for, free_user, verified_user, question, monkeypatch
):
    """Every personal spot: bookmark, progress, approach, the revealed fold, key points
    ticked, the rating's intervals, own comments' Edit/Delete against others' Report."""
    discussion_services.comment_create(user=free_user, question=question, body="My approach.")
    discussion_services.comment_create(user=verified_user, question=question, body="Theirs.")
    Bookmark.objects.create(user=free_user, question=question)
    Progress.objects.create(
        user=free_user,
        question=question,
        status="attempted",
        approach="My private sketch",
        revealed_at=timezone.now(),
    )
    KeyPointScore.objects.create(user=free_user, question=question, made=[1], total=2)
    url = question.get_absolute_url()
    page(browser(client_for, verified_user, "d" * 32), url)
    filled_response, filled = page(browser(client_for, free_user, "e" * 32), url)
    assert filled_response["X-Page-Cache"] == "shared"
    monkeypatch.setattr(shared, "serve", lambda *args, **kwargs: None)
    alone_response, alone = page(browser(client_for, free_user, "f" * 32), url)
    assert alone_response.get("X-Page-Cache") is None
    assert normal(filled) == normal(alone)
    for mine in ("My private sketch", "bookmark-button is-on", 'data-testid="answer-fold" open'):
        assert mine in filled
    assert filled.count("/edit/") == 1 and filled.count("/report/") == 1


def test_readers_with_nothing_of_their_own_share_the_parts_rendered_once(
    client_for, free_user, verified_user, question, monkeypatch
):
    """A first view by a reader with no state on the question: the parts come from this
    process's memory, filled with the reader's own form token, and the page is the one
    they would have got rendered alone."""
    from django.contrib.auth import get_user_model

    from inferview.pages import content

    url = question.get_absolute_url()
    page(browser(client_for, verified_user, "i" * 32), url)  # renders the blank parts
    renders = []
    real = content.render_to_string
    monkeypatch.setattr(
        content, "render_to_string", lambda *a, **k: renders.append(a[0]) or real(*a, **k)
    )
    c = browser(client_for, free_user, "j" * 32)
    response, filled = page(c, url)
    assert response["X-Page-Cache"] == "shared" and renders == []
    monkeypatch.setattr(shared, "serve", lambda *args, **kwargs: None)
    _, alone = page(browser(client_for, free_user, "k" * 32), url)
    assert normal(filled) == normal(alone)
    # every form token on the page, in the parts and around them, is this browser's
    tokens = re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', filled)
    assert len(tokens) >= 4  # sign-out, bookmark, difficulty, practice, key points, rating
    assert {_unmask_cipher_token(t) for t in tokens} == {"j" * 32}
    stored = [v for k, v in caches["local"]._cache.items() if "blank-parts" in k]
    assert stored and all(shared.mark("csrf").encode("utf-8") in v for v in stored)
    assert not any(re.search(rb'value="[A-Za-z0-9]{64}"', v) for v in stored)
    # and a form posted with the bookmark form's own token is accepted
    form = filled[filled.index(reverse("community:bookmark-toggle")) :]
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1)
    c2 = browser(client_for, free_user, "j" * 32)
    c2.handler.enforce_csrf_checks = True
    posted = c2.post(
        reverse("community:bookmark-toggle"),
        {"question": question.pk, "next": url, "csrfmiddlewaretoken": token},
    )
    assert posted.status_code in (200, 302)
    assert Bookmark.objects.filter(user=free_user, question=question).exists()
    assert get_user_model().objects.count() >= 2


def test_a_reader_with_state_or_a_new_vote_is_not_served_the_blank_parts(
    client_for, free_user, verified_user, question
):
    from inferview.community.models import DifficultyVote

    url = question.get_absolute_url()
    _, before = page(browser(client_for, verified_user, "l" * 32), url)
    assert "bookmark-button is-on" not in before
    Bookmark.objects.create(user=free_user, question=question)
    _, mine = page(browser(client_for, free_user, "m" * 32), url)
    assert "bookmark-button is-on" in mine  # their own state, not the blank parts
    DifficultyVote.objects.create(user=free_user, question=question, felt="harder")
    _, after = page(browser(client_for, verified_user, "n" * 32), url)
    assert re.search(r"Harder <strong>1</strong>", after)  # the tally is in the key
    assert "bookmark-button is-on" not in after


def test_the_shared_part_carries_nothing_of_the_reader_who_rendered_it(
    client_for, free_user, verified_user, question
):
    Progress.objects.create(
        user=verified_user, question=question, status="attempted", approach="Their sketch"
    )
    Bookmark.objects.create(user=verified_user, question=question)
    url = question.get_absolute_url()
    _, theirs = page(browser(client_for, verified_user, "g" * 32), url)
    assert "Their sketch" in theirs
    response, mine = page(browser(client_for, free_user, "h" * 32), url)
    assert response["X-Page-Cache"] == "shared"
    assert "Their sketch" not in mine and "bookmark-button is-on" not in mine
    stored = [v for k, v in cache._cache.items() if "page:shared:" in k]  # locmem: pickles
    assert stored and not any(b"Their sketch" in v for v in stored)


def test_a_shared_part_never_reaches_a_reader_of_another_tier(
    client_for, free_user, verified_user, premium_user
):
    q = QuestionFactory(access="premium", answer="The premium reasoning.")
    url = q.get_absolute_url()
    # a premium reader renders the premium tier's part first
    _, premium = page(browser(client_for, premium_user, "i" * 32), url)
    assert "The premium reasoning." in premium
    # a free reader: not theirs (another tier's key), so their tier's part is rendered
    response, free = page(browser(client_for, free_user, "j" * 32), url)
    assert "The premium reasoning." not in free and 'class="paywall"' in free
    # the next free reader gets the free tier's part, still locked
    response, again = page(browser(client_for, verified_user, "k" * 32), url)
    assert response["X-Page-Cache"] == "shared"
    assert "The premium reasoning." not in again and 'class="paywall"' in again
    # and a premium reader after them gets the answer
    from inferview.access.services import grant_premium

    grant_premium(user=verified_user, granted_by=None, reason="shared-part test")
    response, upgraded = page(browser(client_for, verified_user, "l" * 32), url)
    assert response["X-Page-Cache"] == "shared" and "The premium reasoning." in upgraded


def test_a_search_page_is_its_tier_s_shared_part_and_never_another_tier_s(
    client_for, free_user, verified_user, premium_user
):
    QuestionFactory(access="premium", title="Tile sizes", answer="Premium quokka reasoning.")
    url = "/search/?q=quokka"
    _, premium = page(browser(client_for, premium_user, "q" * 32), url)  # rendered first
    assert "Tile sizes" in premium and "reasoning" in premium  # a snippet of the answer
    response, free = page(browser(client_for, free_user, "r" * 32), url)
    assert "reasoning" not in free and "Tile sizes" not in free  # locked text is not searched
    c = browser(client_for, verified_user, "s" * 32)
    with CaptureQueriesContext(connection) as queries:
        response, again = page(c, url)
    assert response["X-Page-Cache"] == "shared" and len(queries) == 1  # the user
    assert normal(again) == normal(free)


def test_the_keys_hold_the_tier(rf):
    from inferview.access.policy import Tier

    request = rf.get("/x/")
    free = shared._shared_key(request, int(Tier.FREE), "w", "USD")
    premium = shared._shared_key(request, int(Tier.PREMIUM), "w", "USD")
    assert free != premium and ":1:" in free and ":2:" in premium


def test_staff_are_never_served_a_shared_part(client_for, staff_user, free_user, question):
    url = question.get_absolute_url()
    page(browser(client_for, free_user, "m" * 32), url)
    response, _ = page(browser(client_for, staff_user, "n" * 32), url)
    assert response.get("X-Page-Cache") is None


def test_a_guide_page_is_its_tier_s_shared_part_in_one_query(client_for, free_user, verified_user):
    from tests.factories import GuideFactory, GuideItemFactory, GuideSectionFactory

    guide = GuideFactory()
    section = GuideSectionFactory(guide=guide)
    GuideItemFactory(section=section, title="Why is decode memory-bound?")
    url = guide.get_absolute_url()
    page(browser(client_for, verified_user, "o" * 32), url)
    c = browser(client_for, free_user, "p" * 32)
    with CaptureQueriesContext(connection) as queries:
        response, html = page(c, url)
    assert response["X-Page-Cache"] == "shared" and len(queries) == 1  # the user
    assert "Why is decode memory-bound?" in html and "Send report" in html
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
    assert c.post("/accounts/logout/", {"csrfmiddlewaretoken": token}).status_code == 302


def test_a_lesson_page_is_its_tier_s_shared_part_with_the_reader_s_status(
    client_for, free_user, verified_user, premium_user
):
    from tests.factories import LessonFactory

    open_lesson = LessonFactory(access="open")
    locked = LessonFactory(access="premium", body="## Idea\n\nThe premium lesson body.")
    url = open_lesson.get_absolute_url()
    page(browser(client_for, verified_user, "r" * 32), url)
    c = browser(client_for, free_user, "s" * 32)
    assert c.post(url + "done/").status_code == 302
    page(c, url)  # shows the flash message (a page with one is rendered live)
    c.cookies.pop("messages")  # spent: a browser drops the emptied cookie, the client keeps it
    c.cookies["csrftoken"] = "w" * 32  # a browser that has not seen the page yet
    with CaptureQueriesContext(connection) as queries:
        response, html = page(c, url)
    assert response["X-Page-Cache"] == "shared"
    assert len(queries) == 2  # the user; their progress row
    assert 'data-testid="lesson-status">Done' in html and "Mark as not done" in html
    _, theirs = page(browser(client_for, verified_user, "t" * 32), url)
    assert "Mark as not done" not in theirs and 'data-testid="mark-done"' in theirs
    # the premium tier's part never reaches the free tier
    _, premium = page(browser(client_for, premium_user, "u" * 32), locked.get_absolute_url())
    assert "The premium lesson body." in premium
    _, free = page(browser(client_for, verified_user, "v" * 32), locked.get_absolute_url())
    assert "The premium lesson body." not in free


def test_a_concept_page_is_its_tier_s_shared_part_with_the_reader_s_rows(
    client_for, free_user, verified_user, premium_user, monkeypatch
):
    from tests.factories import ConceptFactory

    concept = ConceptFactory(access="premium", body="The premium concept body.")
    used = QuestionFactory(access="open", title="Where does the KV cache live?")
    used.concepts.add(concept)
    Bookmark.objects.create(user=free_user, question=used)
    Bookmark.objects.create(user=free_user, concept=concept)
    Progress.objects.create(user=free_user, question=used, status="confident")
    discussion_services.comment_create(user=free_user, concept=concept, body="Mine here.")
    url = concept.get_absolute_url()
    _, premium = page(browser(client_for, premium_user, "x" * 32), url)
    assert "The premium concept body." in premium
    page(browser(client_for, verified_user, "y" * 32), url)  # the free tier's part
    c = browser(client_for, free_user, "z" * 32)
    with CaptureQueriesContext(connection) as queries:
        response, filled = page(c, url)
    assert response["X-Page-Cache"] == "shared"
    assert len(queries) == 4  # the user; their bookmarks on the rows; progress; the concept's
    assert "The premium concept body." not in filled and 'class="paywall"' in filled
    assert filled.count("bookmark-button is-on") == 2 and "/edit/" in filled
    monkeypatch.setattr(shared, "serve", lambda *args, **kwargs: None)
    _, alone = page(browser(client_for, free_user, "0" * 32), url)
    assert normal(filled) == normal(alone)


def test_a_shared_part_holds_the_currency_of_its_key(client_for, free_user, verified_user):
    """One reader's saved currency (on their profile) and another's from their browser:
    each gets the price in their own, whoever rendered the part first."""
    from django.contrib.auth import get_user_model

    q = QuestionFactory(access="premium")
    get_user_model().objects.filter(pk=free_user.pk).update(preferred_currency="USD")
    url = q.get_absolute_url()
    # an Indian browser, no saved choice, renders the free tier's part in rupees first
    inr = browser(client_for, verified_user, "1" * 32).get(url, HTTP_ACCEPT_LANGUAGE="hi")
    assert '<strong class="paywall-price">₹' in inr.content.decode()
    # a reader who saved dollars, on an Indian browser too: the dollar part, not that one
    saved = browser(client_for, get_user_model().objects.get(pk=free_user.pk), "2" * 32)
    response = saved.get(url, HTTP_ACCEPT_LANGUAGE="hi")
    assert response["X-Page-Cache"] == "shared"
    assert '<strong class="paywall-price">$' in response.content.decode()


def test_a_shared_part_is_rendered_in_the_site_s_time_zone(client_for, free_user, verified_user):
    """Not in the zone of the reader who renders it (the accounts middleware activates
    each reader's own): comment times in the shared part are UTC, as labelled."""
    from django.contrib.auth import get_user_model

    q = QuestionFactory(access="open")
    comment = discussion_services.comment_create(user=free_user, question=q, body="A note.")
    get_user_model().objects.filter(pk=verified_user.pk).update(time_zone="Asia/Kolkata")
    reader = get_user_model().objects.get(pk=verified_user.pk)
    page(browser(client_for, reader, "3" * 32), q.get_absolute_url())  # renders the part
    response, html = page(browser(client_for, free_user, "4" * 32), q.get_absolute_url())
    assert response["X-Page-Cache"] == "shared"
    assert comment.created_at.astimezone(dt.UTC).strftime("%H:%M") in html


def test_text_holding_the_mark_characters_never_breaks_a_page(
    client_for, free_user, question, rf, monkeypatch
):
    """A comment is refused them; a shared part holding a mark the page did not make is
    rendered live, not a 500; a search query drops them."""
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError, match="U\\+E000"):
        discussion_services.comment_create(
            user=free_user, question=question, body=f"see {shared.mark('zzz')}"
        )
    request = rf.get("/")
    request.user = free_user
    for stray in (shared.mark("zzz"), f"{shared.OPEN}own{shared.CLOSE}"):
        monkeypatch.setattr(shared, "shared_part", lambda *a, html=stray, **k: (html, {}))
        assert shared.serve(None, shared.no_parts, request, (1, "w", "USD")) is None
    found = browser(client_for, free_user, "p" * 32).get(
        "/search/", {"q": f"open{shared.mark('zzz')}"}
    )
    assert found.status_code == 200
    assert shared.OPEN not in found.content.decode()


@pytest.mark.parametrize(
    "state, shows",
    [
        ("bookmark", "bookmark-button is-on"),
        ("progress", "Progress: <strong>"),
        ("card", "Next review:"),
        ("key points", "You made 1 of 2 key points"),
        ("vote", "is-mine"),
    ],
)
def test_any_one_kind_of_state_keeps_a_reader_off_the_blank_parts(
    client_for, free_user, verified_user, question, state, shows
):
    from inferview.community.models import DifficultyVote, ReviewCard

    url = question.get_absolute_url()
    page(browser(client_for, verified_user, "q" * 32), url)  # the blank parts, rendered
    make = {
        "bookmark": lambda: Bookmark.objects.create(user=free_user, question=question),
        "progress": lambda: Progress.objects.create(
            user=free_user, question=question, status="attempted"
        ),
        "card": lambda: ReviewCard.objects.create(
            user=free_user, question=question, due=timezone.now() + dt.timedelta(days=3)
        ),
        "key points": lambda: KeyPointScore.objects.create(
            user=free_user, question=question, made=[1], total=2
        ),
        "vote": lambda: DifficultyVote.objects.create(
            user=free_user, question=question, felt="harder"
        ),
    }
    make[state]()
    response, mine = page(browser(client_for, free_user, "r" * 32), url)
    assert response["X-Page-Cache"] == "shared" and shows in mine
    _, theirs = page(browser(client_for, verified_user, "s" * 32), url)  # blank still
    assert shows not in theirs


def test_a_first_view_of_a_question_the_reader_never_touched_runs_no_state_query(
    client_for, free_user, verified_user, question
):
    """Their summary says they have nothing on it: the tally and the up-next choice come
    from the cache, and the page is the one the statement would have given."""
    from inferview.community import pages as community_pages

    other = QuestionFactory(access="open", track=question.track, number=question.number + 2)
    nxt = Question.objects.get(track=question.track, number=question.number + 1)
    Progress.objects.create(user=free_user, question=nxt, status="confident")
    url = question.get_absolute_url()
    page(browser(client_for, verified_user, "o" * 32), url)  # the tier's part, the tally
    page(browser(client_for, free_user, "p" * 32), other.get_absolute_url())  # the summary
    c = browser(client_for, free_user, "q" * 32)
    with CaptureQueriesContext(connection) as queries:
        response, html = page(c, url)
    assert response["X-Page-Cache"] == "shared"
    assert len(queries) == 1, [q["sql"] for q in queries]  # the user with their tier
    assert nxt.title not in html.split("Up next")[-1]  # confident: skipped
    original = community_pages.reader_summary.blank_state
    caches["local"].clear()  # the statement's page rendered afresh, not from kept parts
    try:
        community_pages.reader_summary.blank_state = lambda **kwargs: None
        _, alone = page(browser(client_for, free_user, "r" * 32), url)
    finally:
        community_pages.reader_summary.blank_state = original
    assert normal(html) == normal(alone)


def test_a_reader_s_own_new_state_is_seen_past_their_summary(
    client_for, free_user, verified_user, question
):
    """Their summary (nothing on this question) is kept under their page version, which
    their bookmark moves wherever it is saved: the next view reads their state."""
    from inferview.community.models import DifficultyVote

    url = question.get_absolute_url()
    _, before = page(browser(client_for, free_user, "s" * 32), url)
    assert "bookmark-button is-on" not in before
    Bookmark.objects.create(user=free_user, question=question)  # not through a request
    _, after = page(browser(client_for, free_user, "t" * 32), url)
    assert "bookmark-button is-on" in after
    # another reader's vote: the tally kept for first views is counted afresh
    _, theirs = page(browser(client_for, verified_user, "u" * 32), url)
    assert re.search(r"Easier <strong>0</strong>", theirs)
    DifficultyVote.objects.create(user=free_user, question=question, felt="easier")
    _, theirs = page(browser(client_for, verified_user, "v" * 32), url)
    assert re.search(r"Easier <strong>1</strong>", theirs)
