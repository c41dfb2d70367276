"""Rules of the access policy (``inferview.access.policy``) the matrix in test_policy.py
does not state, one per test. Mutation testing (docs/mutation.md) found them unstated."""

import pytest
from django.contrib.auth.models import AnonymousUser

from inferview.access import policy, services
from questions.selectors import published_questions
from tests.factories import QuestionFactory, UserFactory

Tier = policy.Tier


class Item:
    def __init__(self, access):
        self.access = access


def test_an_object_that_is_not_a_signed_in_user_is_anonymous():
    assert policy.viewer_tier(object()) == Tier.ANONYMOUS
    assert policy.viewer_tier(AnonymousUser()) == Tier.ANONYMOUS


@pytest.mark.django_db
def test_a_superuser_who_is_not_staff_reads_everything():
    user = UserFactory(is_staff=False, is_superuser=True)
    assert policy.viewer_tier(user) == Tier.PREMIUM


@pytest.mark.django_db
def test_the_tier_is_memoised_on_the_user_object_until_forgotten(django_assert_num_queries):
    user = UserFactory()
    with django_assert_num_queries(1):
        assert policy.viewer_tier(user) == Tier.FREE
        assert policy.viewer_tier(user) == Tier.FREE
    services.grant_premium(user=UserFactory.build(pk=user.pk), granted_by=None, reason="x")
    assert policy.viewer_tier(user) == Tier.FREE  # the memo still answers
    policy.forget_tier(user)
    assert policy.viewer_tier(user) == Tier.PREMIUM


def test_forgetting_a_tier_that_was_never_computed_is_harmless():
    policy.forget_tier(None)
    policy.forget_tier(object())


@pytest.mark.django_db
def test_only_a_premium_entitlement_makes_a_user_premium():
    from inferview.access.models import Entitlement

    user = UserFactory()
    Entitlement.objects.create(user=user, plan="team", source="staff", reason="other plan")
    assert policy.viewer_tier(user) == Tier.FREE


@pytest.mark.parametrize("tier", [Tier.FREE, Tier.PREMIUM])
def test_a_preview_reader_is_an_unsaved_user_fixed_at_its_tier(tier):
    reader = policy.preview_reader(tier)
    assert reader.pk is None and reader.is_authenticated
    assert reader.email == f"{tier.name.lower()}-preview@inferview.invalid"
    assert policy.viewer_tier(reader) == tier  # no entitlement query: no database here
    assert policy.can_read(reader, Item("premium")) is (tier == Tier.PREMIUM)


def test_the_anonymous_preview_reader_is_not_signed_in():
    reader = policy.preview_reader(Tier.ANONYMOUS)
    assert not reader.is_authenticated
    assert policy.viewer_tier(reader) == Tier.ANONYMOUS


@pytest.mark.parametrize(
    "access, label", [("open", ""), ("account", "Sign in"), ("premium", "Premium")]
)
def test_the_lock_label_of_each_level_is_the_same_for_every_viewer(access, label):
    assert policy.lock_label(Item(access)) == label


@pytest.mark.parametrize(
    "tier, levels",
    [
        (Tier.ANONYMOUS, ("open",)),
        (Tier.FREE, ("open", "account")),
        (Tier.PREMIUM, ("open", "account", "premium")),
    ],
)
def test_each_tier_reads_exactly_its_levels(tier, levels):
    assert policy.readable_levels(policy.preview_reader(tier)) == levels
    for access in ("open", "account", "premium"):
        assert policy.can_read(policy.preview_reader(tier), Item(access)) is (access in levels)


@pytest.mark.parametrize(
    "tier, access, unlocking, label",
    [
        (Tier.ANONYMOUS, "account", Tier.FREE, "Sign in"),
        (Tier.ANONYMOUS, "premium", Tier.PREMIUM, "Premium"),
        (Tier.FREE, "premium", Tier.PREMIUM, "Premium"),
    ],
)
def test_a_lock_names_the_lowest_tier_that_unlocks_the_item(tier, access, unlocking, label):
    lock = policy.locked_reason(policy.preview_reader(tier), Item(access))
    assert (lock.unlocking_tier, lock.label) == (unlocking, label)
    assert lock.code == ("account" if unlocking == Tier.FREE else "premium")


@pytest.mark.django_db
def test_a_level_with_no_answers_adds_nothing_to_the_paywall_counts():
    """Counts come from a grouped query, which has no row for a level with no answers."""
    track_open = [QuestionFactory(access="open") for _ in range(2)]
    locked = QuestionFactory(track=track_open[0].track, number=50, access="premium")
    figures = policy.paywall_figures(
        policy.preview_reader(Tier.ANONYMOUS), locked, answers=published_questions()
    )
    assert figures.scope_readable == {Tier.ANONYMOUS: 2, Tier.FREE: 2, Tier.PREMIUM: 3}
    assert figures.remaining == 1
    assert figures.viewer == Tier.ANONYMOUS and figures.lock.unlocking_tier == Tier.PREMIUM


@pytest.mark.django_db
def test_the_paywall_scope_limits_the_offer_counts_but_not_n():
    from django.db.models import Q

    locked = QuestionFactory(access="account")
    QuestionFactory(track=locked.track, number=60, access="open")
    QuestionFactory(access="premium")  # another track
    figures = policy.paywall_figures(
        policy.preview_reader(Tier.ANONYMOUS),
        locked,
        answers=published_questions(),
        scope=Q(track=locked.track),
    )
    assert figures.scope_readable == {Tier.ANONYMOUS: 1, Tier.FREE: 2, Tier.PREMIUM: 2}
    assert figures.remaining == 2  # the account answer here and the premium one elsewhere


@pytest.mark.django_db
def test_the_paywall_counts_each_answer_once_whatever_its_ordering():
    """The grouped count clears the queryset's ordering, so ordering by title does not
    split the groups."""
    locked = QuestionFactory(access="premium", title="B")
    QuestionFactory(track=locked.track, number=70, access="premium", title="A")
    figures = policy.paywall_figures(
        policy.preview_reader(Tier.FREE), locked, answers=published_questions().order_by("title")
    )
    assert figures.scope_readable[Tier.PREMIUM] == 2 and figures.remaining == 2


@pytest.mark.django_db
def test_no_paywall_for_a_reader_who_may_read():
    item = QuestionFactory(access="account")
    reader = policy.preview_reader(Tier.FREE)
    assert policy.paywall_figures(reader, item, answers=published_questions()) is None


@pytest.mark.django_db
def test_the_premium_expression_marks_exactly_the_users_with_an_active_premium_entitlement():
    """The annotation the auth backend loads the reader with: an active premium
    entitlement of that user, not a revoked one, not another plan, not someone else's."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from inferview.access.models import Entitlement

    premium, revoked, team, nobody = (UserFactory() for _ in range(4))
    Entitlement.objects.create(user=premium, plan="premium", source="staff", reason="a")
    Entitlement.objects.create(
        user=revoked, plan="premium", source="staff", reason="b", revoked_at=timezone.now()
    )
    Entitlement.objects.create(user=team, plan="team", source="staff", reason="c")
    marked = dict(
        get_user_model().objects.annotate(p=policy.has_premium_expression()).values_list("pk", "p")
    )
    assert marked == {premium.pk: True, revoked.pk: False, team.pk: False, nobody.pk: False}


@pytest.mark.django_db
@pytest.mark.parametrize(("staff", "superuser"), [(True, False), (False, True)])
def test_staff_and_superusers_read_everything_without_an_entitlement_query(
    staff, superuser, django_assert_num_queries
):
    user = UserFactory(is_staff=staff, is_superuser=superuser)
    with django_assert_num_queries(0):
        assert policy.viewer_tier(user) == Tier.PREMIUM
