"""Staff without a second factor are kept out of the admin; "last seen" of a session; a
signed-in learner's time zone is activated for the request (``profile.zone_to_show``)."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.contrib import auth
from django.contrib.auth.middleware import AuthenticationMiddleware
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import get_script_prefix, reverse
from django.utils import timezone
from django.utils.functional import SimpleLazyObject

from inferview.access import readers

from . import profile, security, sessions

#: The cookie static/js/community.js sets to the browser's IANA zone (the same name as
#: ``community.views.common.TIME_ZONE_COOKIE``; importing that views module here would
#: load the API's parsers while middleware is being built).
TIME_ZONE_COOKIE = "tz"


class AccountSecurityMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        # Without a session cookie nobody is signed in: the user (and the session, which
        # would add Vary: Cookie to pages cached whole for anonymous readers) stays unread.
        if settings.SESSION_COOKIE_NAME not in request.COOKIES:
            return self.get_response(request)
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            if request.path.startswith(_admin_prefix(get_script_prefix())) and (
                security.needs_second_factor(user)
            ):
                # Refused here rather than in each admin view, so no admin page, API or
                # action is reachable; the page says why and leads to the setup.
                return render(request, "accounts/two_factor_required.html", status=403)
            security.touch_last_seen(user=user, session=request.session)
            zone = profile.zone_to_show(
                user=user, browser_zone=request.COOKIES.get(TIME_ZONE_COOKIE, "")
            )
            if zone:
                # A signed-in reader's pages are cached under their own key, never
                # shared, so they may be rendered in the reader's zone.
                timezone.activate(zone)
                try:
                    return self.get_response(request)
                finally:
                    timezone.deactivate()
        return self.get_response(request)


@lru_cache(maxsize=8)
def _admin_prefix(script_prefix: str) -> str:
    """The admin's path (reversed once per script prefix: a reverse on every signed-in
    request cost more than the rest of this middleware)."""
    return reverse("admin:index")


class ReaderAuthenticationMiddleware(AuthenticationMiddleware):
    """Django's, except that the lazy ``request.user`` is loaded with the reader's row the
    session load read beside the session (``accounts.sessions``), not with a read of its
    own. The row is offered only to this request's ``auth.get_user``."""

    def process_request(self, request: HttpRequest) -> None:
        super().process_request(request)
        if isinstance(request.session, sessions.SessionStore):  # SESSION_ENGINE's
            request.session.request_ref = weakref.ref(request)
        request.user = SimpleLazyObject(lambda: _get_user(request))  # type: ignore[assignment]


def _get_user(request: HttpRequest) -> Any:
    if not hasattr(request, "_cached_user"):
        session = request.session
        session.get(auth.SESSION_KEY)  # load it now, and the row with it
        with readers.prefetched(getattr(session, "prefetched_reader", None)):
            request._cached_user = auth.get_user(request)  # type: ignore[attr-defined]
    return request._cached_user  # type: ignore[attr-defined]
