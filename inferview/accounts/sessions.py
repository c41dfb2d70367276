"""Session loads that bring the signed-in reader's cached row in the same round trip.

A signed-in request reads its session from Redis, then its reader's row
(``inferview.access.readers``): two round trips in a row, as the row's key needs the
user's id, which is in the session. Here each process remembers which user a session key
belongs to, and once it knows, reads the session and the reader's row with one ``MGET``.

The memo decides only *which keys are read together*, never who is signed in: the session
itself is read on every request as before (a signed-out session is gone, whatever the
memo says), and the row read with it is used only when the session names that same user.
A session's user cannot change without a new key (``login`` cycles it), so the memo is
never wrong for long; were it wrong, the cost is one wasted read.

Other apps may add keys of their own to that read (``register_prefetch``): the page cache
asks for the reader's page version and their copy of the page requested, so a signed-in
revisit costs one round trip in all. Those values are offered (``prefetched``) only when
the session names the user the keys were built for, as the row is.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Callable
from typing import Any

from django.contrib.auth import SESSION_KEY
from django.http import HttpRequest

from inferview import sessions
from inferview.access import readers

logger = logging.getLogger(__name__)

#: session key -> the user's pk as text, in this process; cleared whole when full.
_OWNERS: dict[str, str] = {}
OWNERS_MAX = 50_000

#: (request, the session owner's pk as text) -> more cache keys to read with the session.
Prefetch = Callable[[HttpRequest, str], list[str]]
_PREFETCH: list[Prefetch] = []


def register_prefetch(keys: Prefetch) -> Prefetch:
    """Read the keys ``keys(request, owner)`` names with every signed-in request's session
    (the page cache registers one as it loads). The function must be cheap and must not
    read the session or the user: it runs while the session is being loaded."""
    if keys not in _PREFETCH:
        _PREFETCH.append(keys)
    return keys


def prefetched(request: HttpRequest, keys: list[str]) -> dict[str, Any] | None:
    """The values of ``keys`` read with this request's session (a key the cache did not
    hold is absent), or ``None`` when they were not all read with it."""
    session = getattr(request, "session", None)
    found = getattr(session, "prefetched_extra", None)
    if found is None or not set(keys) <= found[0]:
        return None
    return {k: found[1][k] for k in keys if k in found[1]}


class SessionStore(sessions.SessionStore):
    #: (pk as text, the reader's cached entry or None), when read with the session.
    prefetched_reader: tuple[str, Any] | None = None
    #: (the extra keys read, {key: value} of those the cache held)
    prefetched_extra: tuple[frozenset[str], dict[str, Any]] | None = None
    #: the request this session belongs to (weakly: the request holds the session), set
    #: by ``ReaderAuthenticationMiddleware`` so the registered prefetches can name keys
    request_ref: weakref.ref[HttpRequest] | None = None

    def _extra_keys(self, owner: str) -> list[str]:
        request = self.request_ref() if self.request_ref is not None else None
        if request is None:
            return []
        try:
            return [k for keys in _PREFETCH for k in keys(request, owner)]
        except Exception:  # a prefetch must never cost the reader their page
            logger.warning("session prefetch failed; reading the session alone", exc_info=True)
            return []

    def load(self) -> dict[str, Any]:
        key = self.session_key
        owner = _OWNERS.get(key) if key else None
        data = None
        if owner is not None:
            reader_key = readers.KEY.format(owner)
            extra = self._extra_keys(owner)
            try:
                found = self._cache.get_many([self.cache_key, reader_key, *extra])
            except Exception:  # unreachable, or a key the backend refuses: as a miss
                found = {}
            data = found.get(self.cache_key)
            if data is not None and str(data.get(SESSION_KEY)) == owner:
                self.prefetched_reader = (owner, found.get(reader_key))
                if extra:
                    self.prefetched_extra = (
                        frozenset(extra),
                        {k: found[k] for k in extra if k in found},
                    )
        if data is None:
            data = super().load()
        user = data.get(SESSION_KEY)
        if key and user is not None:
            if len(_OWNERS) >= OWNERS_MAX:
                _OWNERS.clear()
            _OWNERS[key] = str(user)
        return data
