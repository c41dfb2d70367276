"""A calculator page, cached whole for every reader.

The page (``calculators.views.calculator``) carries no CSRF token: its form is a GET to
the permalink, which computes the result on the server, so it works without JavaScript;
calculators.js posts it instead, with the token read from the CSRF cookie. This wrapper,
routed ahead of the calculators app's own URL (``inferview.urls``; the app sits on a lower
floor than the page cache), serves the page from the anonymous cache or, for a signed-in
reader, from their tier's shared part (``pages.shared``: nothing of theirs in it but the
header's marks), and sets the CSRF cookie on a response to a browser that has none, the
cookie only: the body stays the one every reader gets.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token

from calculators import views

from . import shared
from .cache import anonymous_page


@anonymous_page(filler=shared.no_parts)
def _page(request: HttpRequest, slug: str) -> HttpResponse:
    response = views.calculator(request, slug)
    if shared.is_shared_render(request):
        response.shared_data = {}  # type: ignore[attr-defined]
    return response


def calculator(request: HttpRequest, slug: str) -> HttpResponse:
    response = _page(request, slug)
    if request.method == "GET" and settings.CSRF_COOKIE_NAME not in request.COOKIES:
        get_token(request)  # the middleware sets the cookie; the script reads it
    return response


# The page cache asks the resolved view whether it keeps copies per reader (it does not).
calculator.keeps_personal_copies = _page.keeps_personal_copies  # type: ignore[attr-defined]
