"""The leak test: no locked answer, key point or concept body reaches a viewer who may
not read it, anywhere the crawler can reach (sitemap, pages linked from it, every API
endpoint in the schema, search, error pages, graded practice, mock interviews and the cram
plan). Expectations come from the brief's table (``READS``), not from the policy, so the
second test can break the policy and watch the crawler catch it."""

import datetime as dt
import random

import pytest
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone

from inferview.access import policy, services
from inferview.community.practice import cram, key_points, mock
from tests.factories import UserFactory

from .conftest import READS
from .crawler import crawl_site

TIERS = ["anonymous", "free", "premium"]


def client_as(client_for, tier):
    if tier == "anonymous":
        return client_for(None)
    user = UserFactory()
    if tier == "premium":
        services.grant_premium(user=user, granted_by=None, reason="leak test")
    return client_for(user)


class GuardedFirst(random.Random):
    """Draws premium questions first, then account ones, so every mock holds the most
    guarded questions (mock.start takes the rng it samples with)."""

    RANK = {"premium": 0, "account": 1, "open": 2}

    def __init__(self, gated):
        super().__init__(0)
        self.access = {q.pk: q.access for q in gated.questions}

    def sample(self, population, k, **kwargs):
        return sorted(population, key=lambda pk: (self.RANK[self.access[pk]], pk))[:k]


def practice_history(user, gated):
    """A signed-in learner's practice over the gated questions, made through the services
    while premium: a mock still being answered, one waiting for its key points, one
    finished (numbers answered wrong, so mistakes show), and an active cram plan. Returns
    the mocks by stage. The caller decides whether premium then lapses: a mock keeps the
    questions it drew, so its pages must re-check the policy."""
    entitlement = services.grant_premium(user=user, granted_by=None, reason="leak test")
    mocks = {}
    for stage in ("answering", "key-points", "done"):
        session = mock.start(user=user, size=5, rng=GuardedFirst(gated))
        if stage != "answering":
            for position in range(1, 6):
                mock.answer(
                    user=user,
                    session=mock.get(user=user, pk=session.pk),
                    position=position,
                    response="My approach, in my own words.",
                    value="1",
                    unit="GB",
                )
        if stage == "done":
            mock.finish(user=user, session=mock.get(user=user, pk=session.pk), ticks={1: [1]})
        assert mock.stage(mock.get(user=user, pk=session.pk)) == stage
        mocks[stage] = session
    cram.create(
        user=user,
        interview_on=timezone.localdate() + dt.timedelta(days=7),
        track_slugs=[t.slug for t in gated.tracks],
    )
    return entitlement, mocks


def practice_urls(gated, mocks=None):
    """What the crawler cannot find by itself: follow-ups (only linked after an answer),
    a learner's own mocks (no-index pages) and the cram plan."""
    urls = ["/practice/mock/", "/practice/cram/", "/dashboard/"]
    for q in gated.questions:
        for n in range(1, len(q.practice["follow_ups"]) + 1):
            urls += [
                f"/practice/questions/{q.pk}/numbers/?follow_up={n}",
                f"/api/v1/practice/questions/{q.pk}/variant/?follow_up={n}",
            ]
    return urls + [f"/practice/mock/{m.pk}/" for m in (mocks or {}).values()]


def crawl_as(client_for, gated, tier):
    """Crawl as ``tier``. The free viewer was premium when it practised (so its mocks and
    plan hold premium questions) and has lapsed; the premium viewer still is."""
    if tier == "anonymous":
        return crawl_site(
            client_for(None), search_terms=search_terms(gated), extra_urls=practice_urls(gated)
        ), {}
    user = UserFactory()
    entitlement, mocks = practice_history(user, gated)
    if tier == "free":
        services.revoke_entitlement(entitlement=entitlement, revoked_by=None, reason="lapsed")
    crawl = crawl_site(
        client_for(user), search_terms=search_terms(gated), extra_urls=practice_urls(gated, mocks)
    )
    return crawl, mocks


def search_terms(gated):
    # Words that occur only in guarded text. The markers themselves are not searched for,
    # because a results page rightly echoes the query back.
    return [item.needle for item in gated.items()] + [
        "worked answer separates",
        "concept body explains",
        "lesson teaches it in order",
    ]


@pytest.mark.parametrize("tier", TIERS)
def test_no_locked_text_reaches_anyone_who_may_not_read_it(gated, client_for, tier):
    crawl, mocks = crawl_as(client_for, gated, tier)
    assert crawl.leaks(gated.hidden_from(tier)) == []
    # Guarded words must not even find a locked item: its link is not among the results.
    for item in gated.items():
        if item.access not in READS[tier]:
            for url in (f"/search/?q={item.needle}", f"/api/v1/search/?q={item.needle}"):
                assert item.get_absolute_url() not in crawl.bodies.get(url, ""), (url, tier)
        else:  # ...while the same search does find what this viewer may read
            assert item.get_absolute_url() in crawl.bodies[f"/search/?q={item.needle}"], tier
    # The crawl really reached the guarded texts this viewer may read, so "no leak" means
    # something, and it covered the API (detail and list) and the question pages.
    missing = [m for m in gated.visible_to(tier) if not crawl.found(m)]
    assert missing == []
    assert any(p.startswith("/api/v1/questions/{") for p in crawl.api_paths)
    assert any(url.startswith("/api/v1/questions/") and url.count("/") == 5 for url in crawl.bodies)
    assert all(q.get_absolute_url() in crawl.bodies for q in gated.questions)
    # ...and the course: every lesson page and the lesson API (list and detail)
    assert all(le.get_absolute_url() in crawl.bodies for le in gated.lessons)
    assert "/course/" in crawl.bodies
    assert any(url.startswith("/api/v1/lessons/gated-lesson-") for url in crawl.bodies)
    assert all(status < 500 for status in crawl.statuses.values()), {
        u: s for u, s in crawl.statuses.items() if s >= 500
    }
    # Graded practice: every gated question's variant and key points, from the schema.
    for q in gated.questions:
        for url in (
            f"/api/v1/practice/questions/{q.pk}/variant/",
            f"/api/v1/practice/questions/{q.pk}/key-points/",
        ):
            assert crawl.statuses.get(url) == 200, (url, crawl.statuses.get(url))
    if tier == "anonymous":
        assert crawl.statuses["/practice/cram/"] == 302
        return
    # The learner's mocks (page and API) and cram plan were read, with content in them.
    for stage, session in mocks.items():
        for url in (f"/practice/mock/{session.pk}/", f"/api/v1/practice/mocks/{session.pk}/"):
            assert crawl.statuses.get(url) == 200, (stage, url)
    assert 'data-testid="cram-plan"' in crawl.bodies["/practice/cram/"]
    assert "/api/v1/practice/plans/" in crawl.bodies
    # ...and the key points a mock asks to tick are those this viewer may read, no more.
    ticking = crawl.bodies[f"/practice/mock/{mocks['key-points'].pk}/"]
    for item in mocks["key-points"].items.select_related("question"):
        q = next(g for g in gated.questions if g.pk == item.question_id)
        assert (q.points_marker in ticking) is (q.access in READS[tier]), (tier, q.access)


def _always_readable(user, item):
    return True


@pytest.mark.parametrize(
    "breakage",
    ["can_read always true", "premium readable by anonymous"],
)
def test_crawler_catches_a_deliberately_broken_policy(gated, client_for, monkeypatch, breakage):
    if breakage == "can_read always true":
        monkeypatch.setattr(policy, "can_read", _always_readable)
    else:
        monkeypatch.setitem(policy.REQUIRED_TIER, policy.AccessLevel.PREMIUM, policy.Tier.ANONYMOUS)
    crawl = crawl_site(client_for(None), search_terms=search_terms(gated))
    leaked = {m for _, m in crawl.leaks(gated.hidden_from("anonymous"))}
    premium_answers = {q.answer_marker for q in gated.questions if q.access == "premium"}
    assert premium_answers <= leaked, "the crawler missed a leak it should have seen"
    premium_lessons = {le.body_marker for le in gated.lessons if le.access == "premium"}
    assert premium_lessons <= leaked, "the crawler missed a lesson body it should have seen"


def _every_key_point(user, question):
    return list(question.key_points or [])


def test_crawler_catches_key_points_handed_out_past_the_policy(gated, client_for, monkeypatch):
    """Break the one gate every practice surface shares, as a learner whose premium lapsed
    after starting mocks: the crawl must see premium key points in the mock page, the
    mock API and the key-points API."""
    monkeypatch.setattr(key_points, "key_points_for", _every_key_point)
    crawl, mocks = crawl_as(client_for, gated, "free")
    premium_points = {q.points_marker for q in gated.questions if q.access == "premium"}
    leaks = crawl.leaks(premium_points)
    assert {m for _, m in leaks} == premium_points
    where = {url for url, _ in leaks}
    assert f"/practice/mock/{mocks['key-points'].pk}/" in where
    assert f"/api/v1/practice/mocks/{mocks['key-points'].pk}/" in where
    assert any(u.startswith("/api/v1/practice/questions/") and "key-points" in u for u in where)


def test_anonymous_policy_matches_the_brief(gated):
    # Guard against the table itself drifting from the policy module.
    anon = AnonymousUser()
    for q in gated.questions:
        assert policy.can_read(anon, q) is (q.access in READS["anonymous"])


@pytest.mark.parametrize("tier", TIERS)
def test_graded_answers_keep_locked_numbers_steps_and_points(gated, client_for, tier):
    """Trying a variant is open to all; the right number, the worked steps and the key
    points of a question the viewer may not read never come back, in the page or the API.
    Try first: nobody sees them on a miss; the third miss shows them only to a reader of
    the answer."""
    client = client_for(None) if tier == "anonymous" else client_as(client_for, tier)
    for q in gated.questions:
        readable = q.access in READS[tier]
        for miss in range(1, 4):  # the page: nothing on a miss, the third shows it
            page = client.post(
                f"/practice/questions/{q.pk}/numbers/", {"value": "1", "unit": "GB", "attempt": 1}
            )
            assert page.status_code == 200, page
            html = page.content.decode()
            assert q.answer_marker not in html and q.points_marker not in html
            shown = readable and miss == 3
            assert ("Worked steps" in html) is shown, (tier, q.access, miss)
            assert ("the right answer" in html.lower()) is shown, (tier, q.access, miss)
            if not readable:  # no "too high" hunt for a locked number
                assert "too low" not in html.lower() and "too high" not in html.lower()
        api = client.post(  # the API after the answer was shown (to a reader of it)
            "/api/v1/practice/answers/",
            {"question": q.pk, "value": 1, "unit": "GB", "attempt": 1},
            content_type="application/json",
        )
        assert api.status_code == 200, api.content
        body = api.json()
        assert q.answer_marker not in api.content.decode()
        assert q.points_marker not in api.content.decode()
        assert (body["expected"] is not None) is readable
        assert bool(body["steps"]) is readable
        assert body["correct"] is False
        assert bool(body["direction"]) is readable
        variant = client.get(f"/api/v1/practice/questions/{q.pk}/variant/")
        assert variant.status_code == 200 and "{" not in variant.json()["prompt"]
        detail = client.get(f"/api/v1/questions/{q.pk}/").json()
        assert (q.points_marker in str(detail.get("key_points"))) is readable


# --- Corrections (issue 27) --------------------------------------------------------------

PRIVATE_NOTE = "PRIVATE-correction-note-9c1d"
CHANGE_NOTE = "CHANGE-NOTE-public-5e2a: the figure was corrected."


def reported_mistakes(gated):
    """A premium reader reports the locked answer of each premium question (quote: its
    marker sentence) with a private note; an author fixes each, with a public change note.
    A second, open report sits on the premium concept."""
    from inferview.community.corrections import services as corrections
    from questions.roles import ensure_authors_group

    reporter = UserFactory()
    services.grant_premium(user=reporter, granted_by=None, reason="leak test")
    author = UserFactory(is_staff=True)
    author.groups.add(ensure_authors_group())
    for q in (q for q in gated.questions if q.access == "premium"):
        reported = corrections.correction_report(
            user=reporter, target=q, quote=q.answer_marker, kind="wrong", note=PRIVATE_NOTE
        )
        corrections.correction_decide(
            user=author, correction=reported.correction, state="fixed", change_note=CHANGE_NOTE
        )
    concept = next(c for c in gated.concepts if c.access == "premium")
    corrections.correction_report(
        user=reporter, target=concept, quote=concept.body_marker, kind="unclear", note=PRIVATE_NOTE
    )


@pytest.mark.parametrize("tier", TIERS)
def test_reports_stay_with_their_reporters_and_what_changed_is_public(gated, client_for, tier):
    """The crawl covers the corrections API and "What changed": another reader's quote (here
    locked text) and note reach nobody else, while the authors' change note is public."""
    reported_mistakes(gated)
    crawl, _ = crawl_as(client_for, gated, tier)
    assert "/api/v1/corrections/" in crawl.api_paths
    assert not crawl.found(PRIVATE_NOTE)
    assert crawl.leaks(gated.hidden_from(tier)) == []
    assert crawl.found(CHANGE_NOTE), "the crawl never reached a 'What changed' section"
    expected = 401 if tier == "anonymous" else 200
    assert crawl.statuses["/api/v1/corrections/"] == expected
