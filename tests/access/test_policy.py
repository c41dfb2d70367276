"""The access policy in one table: viewer tier x item access level (the brief's tiers)."""

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db.models import Q

from inferview.access import policy, services
from inferview.access.models import Entitlement
from questions.selectors import published_questions
from tests.factories import ConceptFactory, QuestionFactory, UserFactory

MATRIX = [
    # tier,       access,    can read, unlocking tier code
    ("anonymous", "open", True, None),
    ("anonymous", "account", False, "account"),
    ("anonymous", "premium", False, "premium"),
    ("free", "open", True, None),
    ("free", "account", True, None),
    ("free", "premium", False, "premium"),
    ("premium", "open", True, None),
    ("premium", "account", True, None),
    ("premium", "premium", True, None),
    ("staff", "open", True, None),
    ("staff", "account", True, None),
    ("staff", "premium", True, None),
]


@pytest.fixture
def viewer(request, db):
    def make(tier):
        if tier == "anonymous":
            return AnonymousUser()
        if tier == "staff":
            return UserFactory(is_staff=True)
        user = UserFactory()
        if tier == "premium":
            services.grant_premium(user=user, granted_by=None, reason="matrix")
        return user

    return make


@pytest.mark.parametrize("tier,access,readable,unlock", MATRIX)
@pytest.mark.parametrize("kind", ["question", "concept"])
def test_matrix(viewer, tier, access, readable, unlock, kind):
    user = viewer(tier)
    item = QuestionFactory(access=access) if kind == "question" else ConceptFactory(access=access)
    assert policy.can_read(user, item) is readable
    lock = policy.locked_reason(user, item)
    assert (lock.code if lock else None) == unlock
    if lock:
        assert lock.label == {"account": "Sign in", "premium": "Premium"}[unlock]


def test_tier_of_each_viewer(viewer):
    assert policy.viewer_tier(None) == policy.Tier.ANONYMOUS
    assert policy.viewer_tier(viewer("anonymous")) == policy.Tier.ANONYMOUS
    assert policy.viewer_tier(viewer("free")) == policy.Tier.FREE
    assert policy.viewer_tier(viewer("premium")) == policy.Tier.PREMIUM
    assert policy.viewer_tier(viewer("staff")) == policy.Tier.PREMIUM


def test_revoked_entitlement_is_free_again(free_user):
    e = services.grant_premium(user=free_user, granted_by=None, reason="gift")
    assert policy.viewer_tier(free_user) == policy.Tier.PREMIUM
    services.revoke_entitlement(entitlement=e, revoked_by=None, reason="mistake")
    policy.forget_tier(free_user)
    assert policy.viewer_tier(free_user) == policy.Tier.FREE
    assert Entitlement.objects.filter(pk=e.pk).exists()  # revoked, never deleted


def test_tier_is_memoised_one_query_for_many_items(free_user, django_assert_num_queries):
    items = [QuestionFactory(access=a) for a in ("open", "account", "premium") * 10]
    with django_assert_num_queries(1):
        [policy.can_read(free_user, q) for q in items]


@pytest.mark.parametrize(
    "tier,expected", [("anonymous", 8), ("free", 4), ("premium", 0), ("staff", 0)]
)
def test_remaining_count_is_n_for_this_viewer(gated, viewer, tier, expected):
    # gated: 2 tracks x (3 open, 2 account, 2 premium) questions
    assert policy.remaining_count(viewer(tier), published_questions()) == expected


def test_paywall_figures_for_anonymous_on_account_question(gated, anonymous):
    q = next(q for q in gated.questions if q.access == "account")
    figures = policy.paywall_figures(
        anonymous,
        q,
        answers=published_questions(),
        scope=Q(track=q.track),
    )
    assert figures.lock.code == "account"
    assert figures.next_tier == policy.Tier.FREE
    assert (figures.anonymous_reads, figures.free_reads, figures.scope_total) == (3, 5, 7)
    assert figures.remaining == 8
    assert figures.offers_free_account and figures.offers_premium


def test_paywall_figures_for_free_user_on_premium_question(gated, free_user):
    q = next(q for q in gated.questions if q.access == "premium")
    figures = policy.paywall_figures(free_user, q, answers=published_questions())
    assert figures.lock.code == "premium"
    assert figures.next_tier == policy.Tier.PREMIUM
    assert figures.remaining == 4
    assert not figures.offers_free_account and figures.offers_premium


def test_no_paywall_when_readable(gated, premium_user):
    q = next(q for q in gated.questions if q.access == "premium")
    assert policy.paywall_figures(premium_user, q, answers=published_questions()) is None


def test_drafts_are_not_counted_in_n(gated, anonymous):
    QuestionFactory(access="premium", published=False)
    assert policy.remaining_count(anonymous, published_questions()) == 8


def test_paywall_figures_cost_a_fixed_number_of_queries(
    gated, free_user, django_assert_max_num_queries
):
    from inferview.access.selectors import paywall_for

    q = next(q for q in gated.questions if q.access == "premium")
    with django_assert_max_num_queries(2):  # the tier; per-level counts and N in one
        figures = paywall_for(user=free_user, item=q)
    assert figures.remaining == 4
    # Ten times the content, the same queries.
    for i in range(30):
        QuestionFactory(track=q.track, number=100 + i, access="premium")
    policy.forget_tier(free_user)
    with django_assert_max_num_queries(2):
        assert paywall_for(user=free_user, item=q).remaining == 34
