"""Reads for access: receipts and the paywall's figures for a page."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q, QuerySet

from questions.selectors import level_count_name

from . import policy
from .models import Entitlement, Purchase


def purchases_of(*, user: Any) -> QuerySet[Purchase]:
    """The owner's purchases (receipts). Anyone else's are simply not in the queryset,
    so a lookup by id for another user's purchase is a 404, not a 403."""
    if not getattr(user, "is_authenticated", False):
        return Purchase.objects.none()
    return Purchase.objects.filter(user=user).order_by("-created_at", "-id")


def receipts_of(*, user: Any) -> QuerySet[Purchase]:
    """Purchases that took money (paid, or paid and then refunded or disputed); abandoned
    and expired checkouts are not receipts, nor a refused payment for something else."""
    return purchases_of(user=user).exclude(
        status__in=[Purchase.Status.PENDING, Purchase.Status.EXPIRED, Purchase.Status.REFUSED]
    )


def paywall_for(*, user: Any, item: Any) -> policy.PaywallFigures | None:
    """Paywall figures for a question (scoped to its track) or a concept (the site)."""
    from questions.selectors import published_questions

    track_id = getattr(item, "track_id", None)
    scope = Q(track_id=track_id) if track_id else None
    return policy.paywall_figures(user, item, answers=published_questions(), scope=scope)


def remaining_answers(*, user: Any) -> int:
    from questions.selectors import published_questions

    return policy.remaining_count(user, published_questions())


def reads_per_track() -> dict[str, str]:
    """How many answers each tier reads per track, from the data: "10" when every track
    agrees, "8-10" when they differ, keyed by tier name (anonymous, free, premium)."""
    from questions.selectors import published_questions

    per_track: dict[int, dict[str, int]] = {}
    rows = published_questions().order_by().values("track_id", "access").annotate(n=Count("id"))
    for row in rows:
        per_track.setdefault(row["track_id"], {})[row["access"]] = row["n"]
    figures = {}
    for tier in policy.Tier:
        counts = [
            sum(levels.get(level, 0) for level in policy.READABLE_LEVELS[tier])
            for levels in per_track.values()
        ] or [0]
        low, high = min(counts), max(counts)
        figures[tier.name.lower()] = str(low) if low == high else f"{low}–{high}"
    return figures


def staff_grants_of(*, user: Any) -> list[Entitlement]:
    """Premium granted by staff (no payment, so no receipt), newest first."""
    return list(
        Entitlement.objects.filter(user=user, source=Entitlement.Source.STAFF).order_by(
            "-granted_at"
        )
    )


def readable_count(track: Any, user: Any) -> int:
    """How many of the track's questions ``user`` can read, from the per-level counts that
    ``questions.selectors.tracks_with_counts`` annotates; the policy says which levels."""
    return sum(getattr(track, level_count_name(level)) for level in policy.readable_levels(user))


def annotate_access(user: Any, items: Any) -> None:
    """Attach ``viewer_can_read`` and ``lock_label`` (the access policy's) to each item."""
    for item in items:
        item.viewer_can_read = policy.can_read(user, item)
        item.lock_label = policy.lock_label(item)
