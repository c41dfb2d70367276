"""Sessions read from the shared cache, kept in the database, and never a reason for a 500.

Every signed-in request loads its session. From the database that is one query (and the
ORM's work to build it) on every page, even on a page served whole from the page cache;
from Redis it is one small read. Django's ``cached_db`` backend does this: writes go to the
database and then the cache, reads try the cache first. Two things are changed here:

- **A cache that is away is a miss, not an error.** ``cached_db`` already falls back to
  the database when the read fails, but then writes the session back into the cache
  unguarded, which with ``inferview.cache`` raises ``CacheUnavailable``: every signed-in
  page would answer 503 while Redis is away. Here that write, and the existence check
  used when a new session key is drawn, skip the cache when it is unreachable.
- **A cached copy lives at most ``CACHE_SECONDS``**, not the session's two weeks. Ending
  a session deletes the row and then the cached copy; if Redis cannot be reached at that
  moment the request answers 503 (the delete raises, as in ``cached_db``) and the copy it
  could not delete serves that cookie for at most this long (plus the few seconds a
  process may keep a reply it read: ``inferview.cache.KEPT_SECONDS``).
"""

from __future__ import annotations

import logging
from typing import Any

from django.contrib.sessions.backends.cached_db import SessionStore as CachedDBStore

from inferview.cache import CacheUnavailable

logger = logging.getLogger(__name__)
CACHE_SECONDS = 600


class SessionStore(CachedDBStore):
    def load(self) -> dict[str, Any]:
        try:
            data = self._cache.get(self.cache_key)
        except Exception:  # unreachable, or a key the backend refuses (Django #17810)
            data = None
        if data is not None:
            return data
        row = self._get_session_from_db()
        if not row:
            return {}
        data = self.decode(row.session_data)
        self._cache_set(data, self.get_expiry_age(expiry=row.expire_date))
        return data

    def exists(self, session_key: str) -> bool:
        try:
            if session_key and (self.cache_key_prefix + session_key) in self._cache:
                return True
        except CacheUnavailable:
            pass
        return bool(super(CachedDBStore, self).exists(session_key))

    def save(self, must_create: bool = False) -> None:
        super(CachedDBStore, self).save(must_create)
        self._cache_set(self._session, self.get_expiry_age())

    def _cache_set(self, data: dict[str, Any], expiry_age: int) -> None:
        try:
            self._cache.set(self.cache_key, data, min(expiry_age, CACHE_SECONDS))
        except Exception:
            logger.warning("session not cached: cache unreachable", exc_info=True)
