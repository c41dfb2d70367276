"""Whole-page caching for anonymous readers, safe for the paywall.

A page is cached only for a reader who is not signed in, so it can only ever hold what
the anonymous tier may read, and it is only ever served to a reader who is not signed in.
The entry is keyed by the viewer's currency (the paywall's price), and the scheme, the
validated host with its port and the full path with its query string (``_where``), and holds the content version it was rendered at
(``questions.content_version``: any publish, edit, import, reorder or comment retires
every cached page); an entry from an older version is a miss. Each process also keeps the
entries it served in its own memory (the ``local`` cache) and checks them against the
version it read at most a second ago (``content_version.recent``), so a hit usually costs
no round trip at all: measured with wrk against gunicorn, reading Redis on every hit held
cached pages near 0.6x a bare view. The price is that another process's bump reaches this
one within that second, during which it may still serve the page as it was before the
change; a bump made in this process is seen at once. A response is stored only when
it is a plain 200 that sets no cookie and used no CSRF token (so no visitor's token is
handed to another), and never while a flash message waits for the visitor.

Signed-in readers get their own copies (``personal``): keyed by the user and a hash of
their CSRF cookie (so the form tokens in the page stay valid for the browser it is served
to), holding the tier, currency and staff status they were rendered for (a copy for
another is a miss) and two versions: the content version and the reader's own
version, which ``PersonalVersionMiddleware`` moves after every unsafe request the reader
makes (a bookmark, a rating, a comment, a graded answer, a setting: whatever they wrote,
their next page is rendered afresh). Writes that do not come from the reader reach the
page another way: a tier change through the copy's tier, a moderator's
or another reader's comment through the content version. What only time changes (a review
falling due) is bounded by PERSONAL_SECONDS. The two versions and the copy are read with
the reader's session (``accounts.sessions.register_prefetch``), so a revisit costs one
round trip to Redis in all.

A reader's miss on a page that has a *filler* (question and calculator pages) is not
rendered for them alone: it is their tier's shared part (``pages.shared``) with their own
parts filled in, and that filled page becomes their copy. A page whose filler is
``shared.no_parts`` (calculators, guides) keeps no copy per reader: filling its shared part
costs less than reading one.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable
from functools import lru_cache, wraps
from typing import Any

from django.conf import settings
from django.core.cache import cache, caches
from django.core.exceptions import DisallowedHost
from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.http import HttpRequest, HttpResponse
from django.urls import Resolver404, resolve

from inferview.access import policy, pricing
from inferview.accounts import sessions
from questions import content_version

from . import shared

logger = logging.getLogger(__name__)
PAGE_SECONDS = 600  # also bounds how late a "New" badge can appear or go
PERSONAL_SECONDS = 300  # also bounds how late a review falling due shows on a page
USER_VERSION = "user-version:{}"


def _where(request: HttpRequest) -> str:
    """A hash of the scheme, the validated host *with its port* and the full path.

    Pages print absolute links built from the request (canonical, share and permalink
    URLs). Django checks ALLOWED_HOSTS without the port, so ``Host: example.com:6666``
    passes; were the host left out of the key, that request's page, with its links to port
    6666, would be served to every reader of the path. Keyed on it, such a copy is only
    ever served to requests that name the same host and port."""
    where = f"{request.scheme}://{request.get_host()}{request.get_full_path()}"
    return hashlib.sha256(where.encode()).hexdigest()[:32]


def _key(request: HttpRequest) -> str:
    # v4 (and the reader's v4): pages from before a locked question's numbers were gated
    return f"page:v4:{pricing.viewer_currency(request)}:{_where(request)}"


def _has_pending_messages(request: HttpRequest) -> bool:
    if "messages" in request.COOKIES:
        return True
    session = getattr(request, "session", None)
    return bool(session is not None and session.session_key and session.get("_messages"))


def _cacheable(request: HttpRequest, response: HttpResponse, personal: bool = False) -> bool:
    """A plain 200 that sets no cookie. An anonymous copy must not hold a CSRF token (it is
    shared); a personal one may, since it only goes back to the browser whose cookie the
    token belongs to, unless the token was (re)issued by this response."""
    plain = (
        response.status_code == 200
        and not response.cookies
        and not getattr(response, "streaming", False)
    )
    if personal:
        # get_token() flags the cookie for renewal on every page with a form; what matters
        # is that the secret is the one the browser already holds (not rotated by a login)
        cookie = request.COOKIES.get(settings.CSRF_COOKIE_NAME)
        return plain and bool(cookie) and request.META.get("CSRF_COOKIE") == cookie
    return (
        plain
        and not request.META.get("CSRF_COOKIE_NEEDS_UPDATE")
        and not request.META.get("CSRF_COOKIE_USED")
    )


def _new_version() -> int:
    """A reader's page version: never the same twice (a counter restarts when its key
    expires or is evicted, and would bring back copies stored under its old numbers)."""
    return time.time_ns()


def bump_user(user_pk: Any) -> None:
    """Retire every page cached for this reader (their own writes changed what it shows)."""
    try:
        cache.set(USER_VERSION.format(user_pk), _new_version(), timeout=PERSONAL_SECONDS * 4)
    except Exception:  # cached copies then expire on PERSONAL_SECONDS
        logger.warning("reader's page version not moved: cache unreachable", exc_info=True)


class PersonalVersionMiddleware:
    """After any unsafe request by a signed-in reader, retire their cached pages; signing
    in or out does the same (the user seen before or after the request)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method in ("GET", "HEAD", "OPTIONS", "TRACE"):
            return self.get_response(request)
        before = getattr(request, "user", None)
        before_pk = before.pk if before is not None and before.is_authenticated else None
        response = self.get_response(request)
        after = getattr(request, "user", None)
        after_pk = after.pk if after is not None and after.is_authenticated else None
        for pk in {before_pk, after_pk} - {None}:
            bump_user(pk)
        return response


def _bump_owner(sender: Any, instance: Any, **kwargs: Any) -> None:
    owner = getattr(instance, "user_id", None) or getattr(instance, "author_id", None)
    if owner is not None:
        bump_user(owner)
        # and again once the write commits: a page rendered between the two read the
        # rows as they were before it, and stored what it made under the first bump
        transaction.on_commit(lambda: bump_user(owner))


# Writes that do not come through a request of the reader (the shell, admin, a service
# called from a task) retire their pages too. Connected when this module loads, which the
# middleware setting makes happen as a web process starts.
for _model in (
    "community.Bookmark",
    "community.Progress",
    "community.ReviewCard",
    "community.Attempt",
    "community.DifficultyVote",
    "community.Comment",
    "community.Draw",
    "community.KeyPointScore",
    "community.MockSession",
    "community.CramPlan",
    "questions.LessonProgress",
):
    post_save.connect(_bump_owner, sender=_model, dispatch_uid=f"personal-page:{_model}")
    post_delete.connect(_bump_owner, sender=_model, dispatch_uid=f"personal-page-d:{_model}")


def _personal_key(request: HttpRequest, user_pk: Any) -> str | None:
    """The key of this reader's copy of the page: their id, a hash of their CSRF cookie
    and the page's place. Their tier and currency are checked against the copy's own, so
    the key can be named before the reader's row is read (``_prefetch``)."""
    csrf = request.COOKIES.get(settings.CSRF_COOKIE_NAME)
    if not csrf:
        return None  # the page would set the cookie: render live
    token = hashlib.sha256(csrf.encode()).hexdigest()[:16]
    return f"page:user:v4:{user_pk}:{token}:{_where(request)}"


@sessions.register_prefetch
def _prefetch(request: HttpRequest, owner: str) -> list[str]:
    """What a signed-in page request reads with its session (one round trip): the content
    version, the reader's page version and their copy of this page."""
    if request.method != "GET" or "messages" in request.COOKIES:
        return []
    if not _keeps_copies(request.path_info):
        return []
    try:
        key = _personal_key(request, owner)
    except DisallowedHost:
        return []  # refused later by the host check, with its own response
    return [content_version.KEY, USER_VERSION.format(owner), *([key] if key else [])]


def _keeps_copies(path: str) -> bool:
    """Whether the view at ``path`` may keep a reader's copy of its page: not one whose
    signed-in pages are its tier's shared part alone (``shared.no_parts``: calculators,
    guides, search). Those read nothing with the session, so the session's read (its
    key, the reader's row) stays the same from page to page and is answered from the
    thread's kept reply (``inferview.cache``'s client tracking). Staff do keep copies of
    those pages: theirs are read by a command of their own. A path that resolves to no
    view is not remembered (any path can be asked for)."""
    try:
        return _view_keeps_copies(path)
    except Resolver404:
        return False


@lru_cache(maxsize=2048)
def _view_keeps_copies(path: str) -> bool:
    return getattr(resolve(path).func, "keeps_personal_copies", True)


def _personal(
    view: Callable[..., HttpResponse],
    filler: shared.Filler | None,
    request: HttpRequest,
    *args: Any,
    **kwargs: Any,
):
    tier = int(policy.viewer_tier(request.user))

    def render() -> HttpResponse:
        """A miss: the tier's shared part with this reader's parts filled in, where the
        page has one (``shared``), else the page rendered for this reader alone."""
        if filler is not None and not request.user.is_staff:
            parts = (tier, _where(request), pricing.viewer_currency(request))
            response = shared.serve(view, filler, request, parts, *args, **kwargs)
            if response is not None:
                return response
        return view(request, *args, **kwargs)

    if filler is shared.no_parts and not request.user.is_staff:
        # Nothing of the reader's but what ``shared.fill`` puts in (form tokens, theme):
        # the shared part, from this process's memory, is cheaper than a copy of their own.
        return render()
    key = _personal_key(request, request.user.pk)
    if key is None:
        return render()
    user_key = USER_VERSION.format(request.user.pk)
    currency = pricing.viewer_currency(request)
    try:
        wanted = [content_version.KEY, user_key, key]
        found = sessions.prefetched(request, wanted)
        if found is None:
            found = cache.get_many(wanted)
        if user_key not in found:
            cache.add(user_key, _new_version(), timeout=PERSONAL_SECONDS * 4)
            found[user_key] = cache.get(user_key)
    except Exception:
        logger.warning("personal page cache read failed; rendering live", exc_info=True)
        return view(request, *args, **kwargs)
    versions = (found.get(content_version.KEY) or content_version.current(), found[user_key])
    if not versions[0] or not versions[1]:
        return view(request, *args, **kwargs)
    hit = found.get(key)
    made_for = (*versions, tier, currency, request.user.is_staff)
    if hit is not None and hit[:5] == made_for:
        response = HttpResponse(hit[6], content_type=hit[5])
        response["X-Page-Cache"] = "hit"
        return response
    # the reader's page version, for the parts that are kept under it (a question page's
    # reader summary: community.reader_summary)
    request.reader_page_version = versions[1]  # type: ignore[attr-defined]
    response = render()
    if _cacheable(request, response, personal=True):
        entry = (*made_for, response["Content-Type"], response.content)
        try:
            cache.set(key, entry, PERSONAL_SECONDS)
        except Exception:
            logger.warning("personal page cache write failed", exc_info=True)
    return response


def anonymous_page(
    view: Callable[..., HttpResponse] | None = None, *, filler: shared.Filler | None = None
) -> Any:
    """Serve and store whole pages for GET requests: one copy per tier for anonymous
    readers, one per reader for signed-in ones (see the module docstring). With a
    ``filler``, a signed-in reader's miss is served from the tier's shared part
    (``pages.shared``) with their own parts filled in."""
    if view is None:
        return lambda v: anonymous_page(v, filler=filler)

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.method != "GET" or _has_pending_messages(request):
            return view(request, *args, **kwargs)
        if request.user.is_authenticated:
            return _personal(view, filler, request, *args, **kwargs)
        key = _key(request)
        version = content_version.recent()
        if not version:  # the cache is unreachable: serve live pages
            return view(request, *args, **kwargs)
        local = caches["local"]
        hit = local.get(key)
        if hit is None or hit[0] != version:
            try:
                hit = cache.get(key)
            except Exception:
                logger.warning("page cache read failed; rendering live", exc_info=True)
                return view(request, *args, **kwargs)
            if hit is not None and hit[0] == version:
                local.set(key, hit, PAGE_SECONDS)
        if hit is not None and hit[0] == version:
            _, content_type, content = hit
            response = HttpResponse(content, content_type=content_type)
            response["X-Page-Cache"] = "hit"
            return response
        response = view(request, *args, **kwargs)
        if _cacheable(request, response):
            entry = (version, response["Content-Type"], response.content)
            local.set(key, entry, PAGE_SECONDS)
            try:
                cache.set(key, entry, PAGE_SECONDS)
            except Exception:
                logger.warning("page cache write failed", exc_info=True)
        return response

    wrapped.keeps_personal_copies = filler is not shared.no_parts  # type: ignore[attr-defined]
    return wrapped
