"""Each tier sees exactly what the brief's table says on question, concept, track and
curriculum pages and in the API; the paywall's N and offers are right for the viewer."""

import re

import pytest
from django.contrib.auth.models import AnonymousUser

from inferview.access import services
from tests.factories import UserFactory

from .conftest import READS

TIERS = ["anonymous", "free", "premium", "staff"]


@pytest.fixture
def as_tier(client_for, db):
    def make(tier):
        if tier == "anonymous":
            return client_for(None), AnonymousUser()
        user = UserFactory(is_staff=(tier == "staff"))
        if tier == "premium":
            services.grant_premium(user=user, granted_by=None, reason="tier test")
        return client_for(user), user

    return make


def remaining_for(tier, gated):
    return sum(1 for q in gated.questions if q.access not in READS[tier])


@pytest.mark.parametrize("tier", TIERS)
def test_question_pages(gated, as_tier, tier):
    client, _ = as_tier(tier)
    for q in gated.questions:
        r = client.get(q.get_absolute_url())
        assert r.status_code == 200
        html = r.content.decode()
        readable = q.access in READS[tier]
        assert (q.answer_marker in html) is readable, (tier, q.access)
        assert ('class="paywall"' in html) is (not readable)
        if not readable:
            assert f'data-unlocking-tier="{q.access}"' in html
            n = remaining_for(tier, gated)
            assert f'data-remaining="{n}"' in html
            assert f"{n} remaining answers" in html
            if tier == "anonymous":
                # 3 open + 2 account answers in this track for a free account, 3 for a visitor
                assert "5 answers in this track instead of 3" in html
            else:
                assert "Create a free account" not in html.split('class="paywall"')[1]


@pytest.mark.parametrize("tier", TIERS)
def test_concept_pages(gated, as_tier, tier):
    client, _ = as_tier(tier)
    for c in gated.concepts:
        html = client.get(c.get_absolute_url()).content.decode()
        readable = c.access in READS[tier]
        assert (c.body_marker in html) is readable
        assert ('class="paywall"' in html) is (not readable)


@pytest.mark.parametrize("tier", TIERS)
def test_track_page_shows_per_item_readability(gated, as_tier, tier):
    client, _ = as_tier(tier)
    track = gated.tracks[0]
    html = client.get(track.get_absolute_url()).content.decode()
    rows = re.findall(r'<li class="question-row([^"]*)"', html)
    assert len(rows) == 7
    expected_locked = [
        q.access not in READS[tier] for q in gated.questions if q.track_id == track.pk
    ]
    assert ["is-locked" in r for r in rows] == expected_locked
    readable = expected_locked.count(False)
    assert f"{readable} answer{'s' if readable != 1 else ''} open to you" in html
    for q in gated.questions:
        assert q.answer_marker not in html  # lists never carry answers


@pytest.mark.parametrize("tier", TIERS)
def test_curriculum_shows_per_item_readability(gated, as_tier, tier):
    client, _ = as_tier(tier)
    html = client.get("/curriculum/").content.decode()
    for c in gated.concepts:
        card = html.split(f'href="{c.get_absolute_url()}"')[1].split("</li>")[0]
        locked = c.access not in READS[tier]
        shows_lock = "badge-lock" in card and "badge-unlocked" not in card
        assert shows_lock is locked, (tier, c.access)
    readable_per_track = sum(1 for q in gated.questions[:7] if q.access in READS[tier])
    assert html.count(f"{readable_per_track} open to you") >= 2


@pytest.mark.parametrize("tier", TIERS)
def test_api_question_detail_and_list(gated, as_tier, tier):
    client, _ = as_tier(tier)
    for q in gated.questions:
        data = client.get(f"/api/v1/questions/{q.pk}/").json()
        readable = q.access in READS[tier]
        assert (data["answer_markdown"] is not None) is readable
        assert (data["answer_html"] is not None) is readable
        assert data["locked"] == (
            None
            if readable
            else {"tier": q.access, "label": {"account": "Sign in", "premium": "Premium"}[q.access]}
        )
    listing = client.get("/api/v1/questions/").content.decode()
    for m in gated.hidden_from(tier):
        assert m not in listing


@pytest.mark.parametrize("tier", TIERS)
def test_api_concepts(gated, as_tier, tier):
    client, _ = as_tier(tier)
    for c in gated.concepts:
        data = client.get(f"/api/v1/concepts/{c.slug}/").json()
        assert (data["body_html"] is not None) is (c.access in READS[tier])
    listing = client.get("/api/v1/concepts/").content.decode()
    for m in gated.hidden_from(tier):
        assert m not in listing


@pytest.mark.parametrize("tier", TIERS)
def test_api_access_reports_tier_and_n(gated, as_tier, tier):
    client, _ = as_tier(tier)
    data = client.get("/api/v1/access/").json()
    assert data["tier"] == ("premium" if tier == "staff" else tier)
    assert data["remaining_answers"] == remaining_for(tier, gated)
    assert {p["currency"]: p["display"] for p in data["prices"]} == {"USD": "$25", "INR": "₹2,000"}


def test_paywall_currency_follows_the_viewers_choice(gated, client, free_user):
    q = next(q for q in gated.questions if q.access == "premium")
    client.force_login(free_user)
    # Both prices on one line, the viewer's currency first.
    assert (
        'for <strong class="paywall-price">$25 / ₹2,000</strong>'
        in client.get(q.get_absolute_url()).content.decode()
    )
    client.post("/premium/currency/", {"currency": "INR", "next": q.get_absolute_url()})
    html = client.get(q.get_absolute_url()).content.decode()
    assert 'for <strong class="paywall-price">₹2,000 / $25</strong>' in html
    free_user.refresh_from_db()
    assert free_user.preferred_currency == "INR"


def test_anonymous_currency_choice_lives_in_the_session(gated, client):
    q = next(q for q in gated.questions if q.access == "premium")
    client.post("/premium/currency/", {"currency": "INR", "next": "https://evil.example/"})
    assert "₹2,000" in client.get(q.get_absolute_url()).content.decode()


def test_currency_redirect_is_never_off_site(client, db):
    r = client.post("/premium/currency/", {"currency": "INR", "next": "https://evil.example/"})
    assert r["Location"] == "/premium/"


def test_premium_page_for_each_tier(gated, as_tier, settings):
    settings.STRIPE_SECRET_KEY = "sk_test_dummy"
    client, _ = as_tier("anonymous")
    html = client.get("/premium/").content.decode()
    assert "8 remaining answers" in html and "Create a free account" in html
    client, _ = as_tier("free")
    html = client.get("/premium/").content.decode()
    assert "4 remaining answers" in html and "Buy Premium for $25" in html
    client, _ = as_tier("premium")
    assert "You have Premium" in client.get("/premium/").content.decode()


def test_og_tags_and_meta_never_carry_answers(gated, client):
    for q in gated.questions:
        head = client.get(q.get_absolute_url()).content.decode().split("</head>")[0]
        assert q.answer_marker not in head


def test_server_error_page_carries_no_answer(gated, client_for, monkeypatch):
    """A view that fails after loading an answer still sends only the bare 500 page."""
    from inferview.community import pages as community_pages

    def boom(**kwargs):
        raise RuntimeError("failure after the answer was rendered")

    monkeypatch.setattr(community_pages, "question_page_context", boom)
    # a signed-in reader's page is their tier's shared part, then their own state
    monkeypatch.setattr(community_pages, "question_page_personal", boom)
    premium = UserFactory()
    services.grant_premium(user=premium, granted_by=None, reason="500 test")
    client = client_for(premium, raise_request_exception=False)
    q = next(q for q in gated.questions if q.access == "premium")
    r = client.get(q.get_absolute_url())
    assert r.status_code == 500
    assert q.answer_marker not in r.content.decode()


@pytest.mark.parametrize("tier", ["anonymous", "free"])
def test_paywall_adds_one_query_to_a_locked_page(gated, as_tier, tier):
    """The paywall's per-tier counts and its N come from one grouped query."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client, _ = as_tier(tier)
    q = next(q for q in gated.questions if q.access == "premium")
    with CaptureQueriesContext(connection) as ctx:
        html = client.get(q.get_absolute_url()).content.decode()
    assert 'class="paywall"' in html
    # The paywall's query counts questions and selects no question rows (up next also
    # counts, in a subquery, but it selects the rows it links to).
    paywall = [
        x["sql"]
        for x in ctx.captured_queries
        if 'FROM "questions_question"' in x["sql"]
        and "COUNT(" in x["sql"]
        and '"questions_question"."number"' not in x["sql"].split(" FROM ")[0]
    ]
    assert len(paywall) == 1, paywall


@pytest.mark.parametrize("tier", TIERS)
def test_work_through_the_numbers_is_gated_with_the_answer(gated, as_tier, tier):
    """A question's calculator results and worked steps are part of its answer ("Get my
    numbers" says so): a reader who may not read the answer gets neither, in the HTML, only
    the calculator's name and a link to it without the question's inputs. The walkthrough
    found Q22's best draft length and Q4's whole 12.78 s answer on their locked pages."""
    from questions.models import CalculatorEmbed

    # 12,345 as the steps print it: a comma no random token (CSRF, asset hash) holds
    inputs = {"ttft_ms": 317, "itl_ms": 23, "output_tokens": 12345}
    for q in gated.questions:
        CalculatorEmbed.objects.create(question=q, calculator="response_time", inputs=inputs)
    client, _ = as_tier(tier)
    for q in gated.questions:
        html = client.get(q.get_absolute_url()).content.decode()
        readable = q.access in READS[tier]
        assert ("calc-result" in html) is readable, (tier, q.access)
        assert ("12,345" in html) is readable, (tier, q.access)  # the steps quote it
        assert ('data-testid="embeds-locked"' in html) is (not readable)
        if not readable:
            locked = html.split('data-testid="embeds-locked"')[1].split("</div>")[0]
            assert 'href="/calculators/response_time/"' in locked  # no ?inputs


def test_an_author_previewing_a_tier_sees_the_numbers_as_that_tier_does(gated, admin_client):
    from questions.models import CalculatorEmbed

    q = next(q for q in gated.questions if q.access == "premium")
    CalculatorEmbed.objects.create(
        question=q,
        calculator="response_time",
        inputs={"ttft_ms": 317, "itl_ms": 23, "output_tokens": 12345},
    )
    url = f"/admin/questions/question/{q.pk}/preview/"
    free = admin_client.get(url, {"as": "free"}).content.decode()
    assert "calc-result" not in free and 'data-testid="embeds-locked"' in free
    staff = admin_client.get(url).content.decode()
    assert "calc-result" in staff
