"""The signed-in reader's row, with their tier, kept in the shared cache between requests.

Every signed-in request loads its user with the tier (``accounts.backends``: one query,
plus the connection's health-check ping before it). A page the reader is served from a
cache does nothing else with the database, so those two round trips were most of what a
signed-in request cost over an anonymous one. Here the loaded user (a model instance with
``_has_premium``) is kept in Redis under ``reader:<pk>`` and read back in one round trip.

Freshness is by invalidation, not by age: every write that can change what the row or the
tier says forgets the entry (``forget``):

- a ``save`` or ``delete`` of a user or an entitlement (signals, connected below);
- a queryset ``update`` of either (``ReaderQuerySet`` and ``EntitlementQuerySet``, the
  models' managers, forget every row they touch): signals do not see those.

A forget writes a *tombstone* for ``TOMBSTONE_SECONDS`` (again when the transaction
commits) rather than deleting the entry, and readers store with ``add``: a reader that
loaded the row just before the write cannot put the old row back while the tombstone
stands. The tombstone outlives any request, so after it the next load reads the committed
row. ``SECONDS`` bounds what remains: a write made outside Django (SQL by hand) shows
within that long (plus ``inferview.cache.KEPT_SECONDS``, what a process may keep a reply).
A cache that is away is a miss (the row is read from the database), and
a forget that cannot reach it is logged: the entry then lives at most ``SECONDS``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from django.core.cache import cache
from django.db import models, transaction

logger = logging.getLogger(__name__)

KEY = "reader:v1:{}"
SECONDS = 300
TOMBSTONE_SECONDS = 5
_TOMBSTONE = "forgotten"

#: What the session load read for ``KEY`` in the same round trip as the session
#: (``accounts.sessions``): (the user's pk as text, the entry or ``None``), set only around
#: the request's own ``auth.get_user`` (``accounts.middleware``).
_PREFETCHED: ContextVar[tuple[str, Any] | None] = ContextVar("prefetched_reader", default=None)


@contextmanager
def prefetched(found: tuple[str, Any] | None) -> Iterator[None]:
    """Within this block, ``get`` of that user answers from ``found``, not another read."""
    token = _PREFETCHED.set(found)
    try:
        yield
    finally:
        _PREFETCHED.reset(token)


def get(pk: Any) -> Any | None:
    """The cached user ``pk`` (with ``_has_premium``), or ``None``."""
    early = _PREFETCHED.get()
    if early is not None and early[0] == str(pk):
        found = early[1]
    else:
        try:
            found = cache.get(KEY.format(pk))
        except Exception:  # unreachable: read the database
            return None
    if found is None or isinstance(found, str):
        return None
    return found


def put(user: Any) -> None:
    """Keep ``user`` (loaded with ``_has_premium``) unless a forget is standing."""
    try:
        cache.add(KEY.format(user.pk), user, SECONDS)
    except Exception:
        logger.warning("reader not cached: cache unreachable", exc_info=True)


def _tombstone(pks: list[Any]) -> None:
    try:
        cache.set_many({KEY.format(pk): _TOMBSTONE for pk in pks}, TOMBSTONE_SECONDS)
    except Exception:
        logger.warning("reader not forgotten: cache unreachable", exc_info=True)


def forget(pks: Iterable[Any]) -> None:
    """The cached rows of these users are stale: now, and again once this commits."""
    pks = sorted({pk for pk in pks if pk is not None})
    if not pks:
        return
    _tombstone(pks)
    transaction.on_commit(lambda: _tombstone(pks))


class _ForgetsOnUpdate(models.QuerySet):
    """A queryset whose ``update`` forgets the cached rows of the users it touches
    (``owner``: the column naming them)."""

    owner = "pk"

    def update(self, **kwargs: Any) -> int:
        with transaction.atomic(using=self.db):
            pks = list(self.values_list(self.owner, flat=True))
            changed = super().update(**kwargs)
            forget(pks)
        return changed


class ReaderQuerySet(_ForgetsOnUpdate):
    """The users' queryset."""


class EntitlementQuerySet(_ForgetsOnUpdate):
    """The entitlements' queryset: an update moves the tier of their users."""

    owner = "user_id"


def forget_user(sender: Any, instance: Any, **kwargs: Any) -> None:
    forget([instance.pk])


def forget_owner(sender: Any, instance: Any, **kwargs: Any) -> None:
    forget([instance.user_id])
