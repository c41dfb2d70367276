"""Signed-in pages from shared parts.

A signed-in reader's first view of a question or guide page used to be rendered whole for
them alone. Almost all of it depends only on the item, the reader's *tier*, the currency
and the content version, so that part is now rendered once per key and shared by every
reader of the same tier (``_shared_key``: tier, currency, scheme, host and full path, the
content version held inside the entry). Only a few spots differ between two readers of
one tier; in the shared part each is a *mark*, a name between two private-use characters
(U+E000, U+E001) that neither Markdown, nh3 nor autoescaping produce or touch:

- ``csrf``: every form token (the view passes the mark as ``csrf_token``, which the
  template context gives precedence over the CSRF context processor); filled with a token
  for this browser's own secret;
- ``theme``: the header's saved theme (the stand-in reader's ``theme``);
- page slots (``tools``, ``practice``, ``fold``, ``keypoints``, ``rating``, ``upnext``):
  each filled by rendering one small include with the reader's state, which the page's
  *filler* reads in a few indexed queries;
- ``own:<comment>:<author>``: a comment's actions, Edit and Delete for its author, Report
  for anyone else (no query: the author is in the mark).

The shared part is rendered by the page's own view with ``request.user`` swapped for a
stand-in reader of the tier (``policy.preview_reader``: unsaved, tier fixed), so every
policy call, and so the paywall, answers for that tier; the entry's key holds the tier,
so a part rendered for one tier is only ever served to readers of that tier. A render
that touched the real CSRF secret, set a cookie or answered anything but a plain 200 is
not stored (the page is then rendered live for the reader). Staff readers (author tools)
are never served from shared parts.

Entries live in Django's cache (Redis in production) and, as anonymous pages do, in each
process's ``local`` memory, checked against the content version read at most a second ago
(``content_version.recent``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

from django.core.cache import cache, caches
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape, format_html

from inferview.access import policy
from questions import content_version

logger = logging.getLogger(__name__)

OPEN, CLOSE = "\ue000", "\ue001"
SHARED_SECONDS = 600
MARK = re.compile(OPEN + r"([a-z]+)(?::(\d+):(\d+))?" + CLOSE)

#: A page's filler: (request, the data its view stored with the shared part) -> the HTML
#: of each named slot for this reader.
Filler = Callable[[HttpRequest, dict[str, Any]], dict[str, str]]


def no_parts(request: HttpRequest, data: dict[str, Any]) -> dict[str, str]:
    """The filler of a page whose shared part differs between readers of a tier only in
    what ``fill`` puts in itself (form tokens, the header's theme): guides, calculators."""
    return {}


class Unfillable(Exception):
    """The shared HTML holds a mark ``fill`` has no value for: it came from somewhere
    other than the page's own templates (text that held the mark characters), so the
    page is rendered live for the reader instead."""


def mark(name: str) -> str:
    return f"{OPEN}{name}{CLOSE}"


def strip_marks(text: str) -> str:
    """``text`` without the two mark characters, for what a reader types that a shared
    part echoes (a search query): a mark there must never be taken for the page's own."""
    return text.replace(OPEN, "").replace(CLOSE, "")


def is_shared_render(request: HttpRequest) -> bool:
    return bool(getattr(request, "_shared_render", False))


def context(request: HttpRequest, slots: tuple[str, ...] = ()) -> dict[str, Any]:
    """What a view adds to its template context: in a shared render the CSRF mark and the
    slot marks (``slots.tools`` ...; ``slots.own`` and ``slots.end`` wrap a comment's
    ``pk:author``), otherwise nothing (the templates then include the parts themselves)."""
    if not is_shared_render(request):
        return {}
    marks = {name: mark(name) for name in slots}
    return {
        "csrf_token": mark("csrf"),
        "slots": {**marks, "own": OPEN + "own:", "end": CLOSE},
    }


def stand_in(tier: policy.Tier, currency: str) -> Any:
    """A reader of ``tier`` with no identity: the tier's page, nobody's state. It holds
    the key's currency as its own choice, so the page's prices are the key's (the real
    reader's may come from their profile, which the stand-in does not have)."""
    reader = policy.preview_reader(tier)
    reader.theme = mark("theme")
    reader.preferred_currency = currency
    return reader


def _shared_key(request: HttpRequest, tier: int, where: str, currency: str) -> str:
    # v2: a locked question's numbers left the page (parts made before are not served)
    return f"page:shared:v2:{tier}:{currency}:{where}"


def render_shared(
    view: Callable[..., HttpResponse],
    request: HttpRequest,
    tier: policy.Tier,
    currency: str,
    *args: Any,
    **kwargs: Any,
) -> tuple[str, dict[str, Any]] | None:
    """Render the tier's shared part with the page's view; ``None`` if it cannot be shared."""
    real = request.user
    used = request.META.pop("CSRF_COOKIE_USED", None)
    request.user = stand_in(tier, currency)
    request._shared_render = True  # type: ignore[attr-defined]
    try:
        # in the site's zone, as an anonymous page is: not in the time zone the accounts
        # middleware activated for the reader who happens to render it
        with timezone.override(None):
            response = view(request, *args, **kwargs)
    finally:
        request.user = real
        request._shared_render = False  # type: ignore[attr-defined]
        touched = request.META.pop("CSRF_COOKIE_USED", None)
        if used is not None:
            request.META["CSRF_COOKIE_USED"] = used
    data = getattr(response, "shared_data", None)
    if (
        touched
        or data is None
        or response.status_code != 200
        or response.cookies
        or getattr(response, "streaming", False)
    ):
        return None
    return response.content.decode(response.charset), data


def shared_part(
    view: Callable[..., HttpResponse],
    request: HttpRequest,
    key_parts: tuple[int, str, str],
    *args: Any,
    **kwargs: Any,
) -> tuple[str, dict[str, Any]] | None:
    """The tier's shared part of this page: from this process's memory, the shared cache,
    or rendered now (and stored)."""
    tier, where, currency = key_parts
    key = _shared_key(request, tier, where, currency)
    version = content_version.recent()
    local = caches["local"]
    hit = local.get(key) if version else None
    if version and (hit is None or hit[0] != version):
        try:
            hit = cache.get(key)
        except Exception:
            logger.warning("shared part read failed; rendering it", exc_info=True)
            hit = None
        if hit is not None and hit[0] == version:
            local.set(key, hit, SHARED_SECONDS)
    if hit is not None and hit[0] == version:
        return hit[1], hit[2]
    rendered = render_shared(view, request, policy.Tier(tier), currency, *args, **kwargs)
    if rendered is not None and version:
        entry = (version, *rendered)
        local.set(key, entry, SHARED_SECONDS)
        try:
            cache.set(key, entry, SHARED_SECONDS)
        except Exception:
            logger.warning("shared part write failed", exc_info=True)
    return rendered


def _own_actions(comment_pk: int, author_pk: int, reader_pk: int) -> str:
    if author_pk == reader_pk:
        return format_html(
            '<a href="{}">Edit</a>\n          <a href="{}">Delete</a>',
            reverse("community:comment-edit", args=[comment_pk]),
            reverse("community:comment-delete", args=[comment_pk]),
        )
    return format_html(
        '<a href="{}">Report</a>', reverse("community:comment-report", args=[comment_pk])
    )


def fill(request: HttpRequest, html: str, parts: dict[str, str]) -> str:
    """Put this reader's parts into the shared HTML, and their form token wherever the
    HTML or a part holds its mark. An unknown mark raises ``Unfillable`` (``serve`` then
    renders the page live), never a blank: a page must never go out with a hole in it."""
    token = get_token(request)  # this browser's own secret, masked afresh
    csrf = mark("csrf")  # parts may hold it too (parts shared between readers do)
    parts = {name: part.replace(csrf, token) for name, part in parts.items()}
    values = {"csrf": token, "theme": escape(getattr(request.user, "theme", "") or ""), **parts}
    reader_pk = request.user.pk

    def replace(m: re.Match[str]) -> str:
        name, comment, author = m.groups()
        if name == "own" and comment is not None:
            return _own_actions(int(comment), int(author), reader_pk)
        if name not in values:
            raise Unfillable(name)
        return values[name]

    return MARK.sub(replace, html)


def serve(
    view: Callable[..., HttpResponse],
    filler: Filler,
    request: HttpRequest,
    key_parts: tuple[int, str, str],
    *args: Any,
    **kwargs: Any,
) -> HttpResponse | None:
    """This reader's page from the tier's shared part, or ``None`` to render it live."""
    found = shared_part(view, request, key_parts, *args, **kwargs)
    if found is None:
        return None
    html, data = found
    try:
        filled = fill(request, html, filler(request, data))
    except Unfillable as exc:
        logger.warning("shared part holds an unknown mark %r; rendering live", str(exc))
        return None
    response = HttpResponse(filled)
    response["X-Page-Cache"] = "shared"
    return response
