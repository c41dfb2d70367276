"""The leak test: no locked answer or concept body reaches a viewer who may not read it,
anywhere the crawler can reach (sitemap, pages linked from it, every API endpoint in the
schema, search, error pages). Expectations come from the brief's table (``READS``), not
from the policy, so the second test can break the policy and watch the crawler catch it."""

import pytest
from django.contrib.auth.models import AnonymousUser

from inferview.access import policy, services
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


def search_terms(gated):
    # Words that occur only in guarded text. The markers themselves are not searched for,
    # because a results page rightly echoes the query back.
    return [item.needle for item in gated.items()] + [
        "worked answer separates",
        "concept body explains",
    ]


@pytest.mark.parametrize("tier", TIERS)
def test_no_locked_text_reaches_anyone_who_may_not_read_it(gated, client_for, tier):
    crawl = crawl_site(
        client_for(None) if tier == "anonymous" else client_as(client_for, tier),
        search_terms=search_terms(gated),
    )
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
    assert all(status < 500 for status in crawl.statuses.values()), {
        u: s for u, s in crawl.statuses.items() if s >= 500
    }


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


def test_anonymous_policy_matches_the_brief(gated):
    # Guard against the table itself drifting from the policy module.
    anon = AnonymousUser()
    for q in gated.questions:
        assert policy.can_read(anon, q) is (q.access in READS["anonymous"])


@pytest.mark.parametrize("tier", TIERS)
def test_graded_answers_keep_locked_numbers_steps_and_points(gated, client_for, tier):
    """Trying a variant is open to all; the right number, the worked steps and the key
    points of a question the viewer may not read never come back, in the page or the API."""
    client = client_for(None) if tier == "anonymous" else client_as(client_for, tier)
    for q in gated.questions:
        readable = q.access in READS[tier]
        page = client.post(
            f"/practice/questions/{q.pk}/numbers/", {"value": "1", "unit": "GB", "attempt": 1}
        )
        api = client.post(
            "/api/v1/practice/answers/",
            {"question": q.pk, "value": 1, "unit": "GB", "attempt": 1},
            content_type="application/json",
        )
        assert page.status_code == 200 and api.status_code == 200, (page, api.content)
        html, body = page.content.decode(), api.json()
        for text in (html, api.content.decode()):
            assert q.answer_marker not in text
            assert (q.points_marker in text) is False
        assert ("Worked steps" in html) is readable, (tier, q.access)
        assert ("The right answer" in html) is readable
        assert (body["expected"] is not None) is readable
        assert bool(body["steps"]) is readable
        assert body["correct"] is False
        assert bool(body["direction"]) is readable  # no "too high" hunt for a locked number
        assert ("too low" in html or "too high" in html) is readable
        variant = client.get(f"/api/v1/practice/questions/{q.pk}/variant/")
        assert variant.status_code == 200 and "{" not in variant.json()["prompt"]
        detail = client.get(f"/api/v1/questions/{q.pk}/").json()
        assert (q.points_marker in str(detail.get("key_points"))) is readable
