"""The access policy: the one place that decides who may read what.

Views, the API, search, feeds and sitemaps call these functions; nothing else decides.

=============  ====================================  =====================================
viewer tier    reads (answers and concept bodies)    how the tier is reached
=============  ====================================  =====================================
anonymous      ``open``                              not signed in
free           ``open``, ``account``                 signed in, no active entitlement
premium        everything                            an active premium entitlement
staff          everything                            ``is_staff`` (authors and moderators)
=============  ====================================  =====================================

Titles, summaries and question bodies are public for published content; the *answer*
of a question and the *body* of a concept are what the access level guards.

The paywall's figures come from here too (``paywall_figures``): the tier that unlocks an
item, the next tier up for this viewer, how many answers each tier reads in the item's
scope, and N, the answers this viewer cannot read yet ("unlock all N remaining answers").

The viewer's tier is computed once per user object and memoised on it, so a page that
checks fifty items runs one entitlement query, not fifty.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Protocol

from django.db.models import Count, Exists, OuterRef, Q, QuerySet

from questions.models import AccessLevel


class Tier(enum.IntEnum):
    ANONYMOUS = 0
    FREE = 1
    PREMIUM = 2


#: The lowest tier that may read each access level.
REQUIRED_TIER: dict[str, Tier] = {
    AccessLevel.OPEN: Tier.ANONYMOUS,
    AccessLevel.ACCOUNT: Tier.FREE,
    AccessLevel.PREMIUM: Tier.PREMIUM,
}

#: The access levels a tier may read, for filtering querysets.
READABLE_LEVELS: dict[Tier, tuple[str, ...]] = {
    Tier.ANONYMOUS: (AccessLevel.OPEN,),
    Tier.FREE: (AccessLevel.OPEN, AccessLevel.ACCOUNT),
    Tier.PREMIUM: (AccessLevel.OPEN, AccessLevel.ACCOUNT, AccessLevel.PREMIUM),
}


class Gated(Protocol):
    access: str


_TIER_ATTR = "_inferview_tier"


def viewer_tier(user: Any) -> Tier:
    """The tier of ``user`` (an ``AnonymousUser`` or ``None`` is anonymous)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return Tier.ANONYMOUS
    cached = getattr(user, _TIER_ATTR, None)
    if cached is not None:
        return cached
    has_premium = not (user.is_staff or user.is_superuser) and (
        _active_premium().filter(user=user).exists()
    )
    return remember_tier(user, has_premium=has_premium)


def _active_premium() -> QuerySet:
    from inferview.access.models import Entitlement

    return Entitlement.objects.filter(plan="premium", revoked_at__isnull=True)


def has_premium_expression() -> Exists:
    """Whether the outer user row has an active premium entitlement, for ``annotate``: the
    signed-in reader is loaded with it (``inferview.accounts.backends``), so a page does
    not run a second query for the tier."""
    return Exists(_active_premium().filter(user=OuterRef("pk")))


def remember_tier(user: Any, *, has_premium: bool) -> Tier:
    """Memoise the tier of a signed-in ``user`` whose entitlement is already known."""
    tier = Tier.PREMIUM if user.is_staff or user.is_superuser or has_premium else Tier.FREE
    setattr(user, _TIER_ATTR, tier)
    return tier


def preview_reader(tier: Tier) -> Any:
    """A stand-in reader of ``tier`` for an author's preview ("the page as a free reader
    sees it"): an unsaved user whose tier is fixed, so every policy call answers for that
    tier without touching entitlements."""
    if tier == Tier.ANONYMOUS:
        from django.contrib.auth.models import AnonymousUser

        return AnonymousUser()
    from django.contrib.auth import get_user_model

    reader = get_user_model()(email=f"{tier.name.lower()}-preview@inferview.invalid")
    setattr(reader, _TIER_ATTR, tier)
    return reader


def forget_tier(user: Any) -> None:
    """Drop the memoised tier after a grant or revocation on this user object."""
    if user is not None and hasattr(user, _TIER_ATTR):
        delattr(user, _TIER_ATTR)


def can_read(user: Any, item: Gated) -> bool:
    """May ``user`` read the guarded text (answer or concept body) of ``item``?"""
    return viewer_tier(user) >= REQUIRED_TIER[item.access]


def required_tier(item: Gated) -> Tier:
    return REQUIRED_TIER[item.access]


def readable_levels(user: Any) -> tuple[str, ...]:
    return READABLE_LEVELS[viewer_tier(user)]


@dataclass(frozen=True)
class Lock:
    """Why an item is locked for a viewer, and what unlocks it."""

    unlocking_tier: Tier
    label: str  # "Sign in" or "Premium": the lock label on cards and lists

    @property
    def code(self) -> str:
        return "account" if self.unlocking_tier == Tier.FREE else "premium"


def locked_reason(user: Any, item: Gated) -> Lock | None:
    """``None`` when ``user`` may read ``item``; otherwise the tier that unlocks it."""
    if can_read(user, item):
        return None
    needed = required_tier(item)
    return Lock(unlocking_tier=needed, label="Sign in" if needed == Tier.FREE else "Premium")


def lock_label(item: Gated) -> str:
    """The label a card shows for an item's access level regardless of viewer."""
    return {"open": "", "account": "Sign in", "premium": "Premium"}[item.access]


def remaining_count(user: Any, queryset: QuerySet) -> int:
    """How many items of ``queryset`` this viewer cannot read yet (the paywall's N)."""
    return queryset.exclude(access__in=readable_levels(user)).count()


def _readable_by_tier(per_level: dict[str, int]) -> dict[Tier, int]:
    """How many items each tier reads, given how many there are per access level."""
    return {
        tier: sum(per_level.get(level, 0) for level in levels)
        for tier, levels in READABLE_LEVELS.items()
    }


@dataclass(frozen=True)
class PaywallFigures:
    """What the paywall panel says to this viewer about this item."""

    lock: Lock
    viewer: Tier
    #: answers in the item's scope (its track, or the site for a concept) readable per tier
    scope_readable: dict[Tier, int]
    #: N: the answers this viewer cannot read yet anywhere on the site
    remaining: int

    @property
    def next_tier(self) -> Tier | None:
        """The tier above this viewer's, or ``None`` for premium and staff."""
        return Tier(self.viewer + 1) if self.viewer < Tier.PREMIUM else None

    @property
    def scope_total(self) -> int:
        return self.scope_readable[Tier.PREMIUM]

    @property
    def offers_free_account(self) -> bool:
        return self.viewer == Tier.ANONYMOUS

    @property
    def offers_premium(self) -> bool:
        return self.remaining > 0 and self.viewer < Tier.PREMIUM

    @property
    def anonymous_reads(self) -> int:
        return self.scope_readable[Tier.ANONYMOUS]

    @property
    def free_reads(self) -> int:
        return self.scope_readable[Tier.FREE]


def paywall_figures(
    user: Any, item: Gated, *, answers: QuerySet, scope: Q | None = None
) -> PaywallFigures | None:
    """The paywall for ``item``, or ``None`` when ``user`` may read it.

    ``answers`` is every answer a purchase would unlock (published questions); ``scope``
    a filter on them for the ones the free-account offer counts in (the item's track;
    ``None`` for all of ``answers``). Both are counted in one grouped query.
    """
    lock = locked_reason(user, item)
    if lock is None:
        return None
    rows = list(
        answers.order_by()
        .values("access")
        .annotate(n=Count("id"), in_scope=Count("id", filter=scope))
    )
    viewer = viewer_tier(user)
    everywhere = {row["access"]: row["n"] for row in rows}
    return PaywallFigures(
        lock=lock,
        viewer=viewer,
        scope_readable=_readable_by_tier({row["access"]: row["in_scope"] for row in rows}),
        remaining=sum(everywhere.values()) - _readable_by_tier(everywhere)[viewer],
    )
