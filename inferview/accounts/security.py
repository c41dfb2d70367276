"""Sign-in security: the second factor staff must have, and the reader's own sessions.

Two-factor sign-in is allauth's (``allauth.mfa``: an authenticator app, plus recovery
codes); sessions are listed from ``allauth.usersessions``, whose rows point at the
session the engine (``inferview.sessions``) keeps. What is ours is the rule that staff
need a second factor before the admin opens, and the "last seen" of a session, moved at
most every ``LAST_SEEN_EVERY`` seconds rather than with a write on every request.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from allauth.mfa.models import Authenticator
from allauth.mfa.utils import is_mfa_enabled
from allauth.usersessions.adapter import get_adapter as get_usersessions_adapter
from allauth.usersessions.models import UserSession
from django.db import transaction
from django.utils import timezone

#: How stale "last seen" may be. allauth's own tracking writes a row on every request.
LAST_SEEN_EVERY = 300
#: The session key holding when this session's "last seen" was last written.
SEEN_KEY = "_accounts_seen"


def needs_second_factor(user: Any) -> bool:
    """Staff (authors included) may use the admin only with an authenticator app: a
    staff account can change what every reader reads, so a password is not enough."""
    return bool(
        user.is_authenticated
        and user.is_staff
        and not is_mfa_enabled(user, [Authenticator.Type.TOTP])
    )


def has_second_factor(user: Any) -> bool:
    return bool(user.is_authenticated and is_mfa_enabled(user, [Authenticator.Type.TOTP]))


@dataclass(frozen=True)
class SessionRow:
    """One signed-in session as the reader sees it; never the session key."""

    id: int
    device: str
    ip: str
    created_at: datetime
    last_seen_at: datetime
    current: bool

    @property
    def just_now(self) -> bool:
        return (timezone.now() - self.last_seen_at).total_seconds() < 60


def describe_device(user_agent: str) -> str:
    """ "Chrome on Linux": enough to recognise a device, from the User-Agent alone."""
    ua = user_agent or ""
    browser = next(
        (
            name
            for token, name in (
                ("Edg/", "Edge"),
                ("OPR/", "Opera"),
                ("Firefox/", "Firefox"),
                ("Chrome/", "Chrome"),
                ("Chromium/", "Chromium"),
                ("Safari/", "Safari"),
                ("curl/", "curl"),
            )
            if token in ua
        ),
        "Unknown browser",
    )
    system = next(
        (
            name
            for token, name in (
                ("Android", "Android"),
                ("iPhone", "iPhone"),
                ("iPad", "iPad"),
                ("Windows", "Windows"),
                ("Mac OS X", "macOS"),
                ("CrOS", "ChromeOS"),
                ("Linux", "Linux"),
            )
            if token in ua
        ),
        "",
    )
    return f"{browser} on {system}" if system else browser


def sessions_of(*, user: Any, current_key: str | None) -> list[SessionRow]:
    """The reader's signed-in sessions, this one first, then the most recently seen.
    Rows whose session has ended (signed out, expired) are purged on the way."""
    rows = [
        SessionRow(
            id=s.pk,
            device=describe_device(s.user_agent),
            ip=s.ip,
            created_at=s.created_at,
            last_seen_at=s.last_seen_at,
            current=s.session_key == current_key,
        )
        for s in UserSession.objects.purge_and_list(user)
    ]
    return sorted(rows, key=lambda r: (not r.current, -r.last_seen_at.timestamp()))


@transaction.atomic
def end_session(*, user: Any, session_id: int, current_key: str | None) -> bool:
    """Sign out one of the reader's other sessions. False if it is not theirs, is gone,
    or is this one (signing out here is the sign-out button's job)."""
    session = (
        UserSession.objects.select_for_update()
        .filter(user=user, pk=session_id)
        .exclude(session_key=current_key or "")
        .first()
    )
    if session is None:
        return False
    get_usersessions_adapter().end_sessions([session])
    return True


@transaction.atomic
def end_other_sessions(*, user: Any, current_key: str | None) -> int:
    sessions = list(
        UserSession.objects.select_for_update()
        .filter(user=user)
        .exclude(session_key=current_key or "")
    )
    get_usersessions_adapter().end_sessions(sessions)
    return len(sessions)


def touch_last_seen(*, user: Any, session: Any, now: float | None = None) -> bool:
    """Move this session's "last seen" if it is older than ``LAST_SEEN_EVERY``. Only
    sessions begun by an allauth sign-in carry the mark; one write at most per period."""
    seen = session.get(SEEN_KEY)
    now = time.time() if now is None else now
    if seen is None or now - seen < LAST_SEEN_EVERY or not session.session_key:
        return False
    UserSession.objects.filter(user=user, session_key=session.session_key).update(
        last_seen_at=timezone.now()
    )
    session[SEEN_KEY] = now
    return True


def mark_seen(session: Any) -> None:
    session[SEEN_KEY] = time.time()
