"""Staff without a second factor are kept out of the admin; "last seen" of a session."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from . import security


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
            if request.path.startswith(reverse("admin:index")) and security.needs_second_factor(
                user
            ):
                # Refused here rather than in each admin view, so no admin page, API or
                # action is reachable; the page says why and leads to the setup.
                return render(request, "accounts/two_factor_required.html", status=403)
            security.touch_last_seen(user=user, session=request.session)
        return self.get_response(request)
