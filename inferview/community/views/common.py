"""What the HTML views of learners' tools share: the published question or concept a POST
is about, sending a signed-out visitor to sign in first (or a 401 to a script that asked
for JSON), a safe ``next``, and service errors onto a form's fields."""

from __future__ import annotations

import datetime as dt
import functools
import zoneinfo
from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.views.decorators.http import require_POST

from inferview.api.errors import error_body
from questions.models import Concept, Question
from questions.selectors import published_questions

#: The cookie community.js sets to the browser's IANA time zone ("Europe/Paris").
TIME_ZONE_COOKIE = "tz"


def reader_zone(request: HttpRequest) -> dt.tzinfo:
    """The reader's time zone as their browser reported it, or UTC. Only for what is
    rendered for this reader alone (a flash message): cached pages are shared, so their
    <time> elements are rewritten in the browser instead. A signed-in reader's profile
    zone (``accounts.profile.zone_to_show``) comes first."""
    name = getattr(getattr(request, "user", None), "time_zone", "") or request.COOKIES.get(
        TIME_ZONE_COOKIE, ""
    )
    if 0 < len(name) <= 64:
        try:
            return zoneinfo.ZoneInfo(name)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            pass
    return dt.UTC


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def _safe_next(request: HttpRequest, fallback: str) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return fallback


def _login_redirect(request: HttpRequest, back: str) -> HttpResponse:
    if _wants_json(request):
        return JsonResponse(error_body("not_authenticated", "Sign in first."), status=401)
    messages.info(
        request, "Sign in (or create a free account) to keep bookmarks, progress and comments."
    )
    return redirect(f"{reverse('account_login')}?{urlencode({'next': back})}")


def _question(pk: int) -> Question:
    return get_object_or_404(published_questions().select_related("track"), pk=pk)


def _question_action(view: Callable[[HttpRequest, Question], HttpResponse]):
    """A POST on a published question; a signed-out visitor is sent to sign in first."""

    @require_POST
    @functools.wraps(view)
    def wrapper(request: HttpRequest, pk: int) -> HttpResponse:
        question = _question(pk)
        if not request.user.is_authenticated:
            return _login_redirect(request, question.get_absolute_url())
        return view(request, question)

    return wrapper


def _concept(pk: int) -> Concept:
    return get_object_or_404(Concept.objects.published(), pk=pk)


def _target(kind: str, pk: int) -> dict[str, Any]:
    if kind == "question":
        return {"question": _question(pk)}
    if kind == "concept":
        return {"concept": _concept(pk)}
    raise Http404("No such discussion.")


def _apply_errors(form, exc: ValidationError) -> None:
    if hasattr(exc, "error_dict"):
        for name, errors in exc.message_dict.items():
            form.add_error(name if name in form.fields else None, errors)
    else:
        form.add_error(None, exc.messages)
