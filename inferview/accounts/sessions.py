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
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import SESSION_KEY

from inferview import sessions
from inferview.access import readers

#: session key -> the user's pk as text, in this process; cleared whole when full.
_OWNERS: dict[str, str] = {}
OWNERS_MAX = 50_000


class SessionStore(sessions.SessionStore):
    #: (pk as text, the reader's cached entry or None), when read with the session.
    prefetched_reader: tuple[str, Any] | None = None

    def load(self) -> dict[str, Any]:
        key = self.session_key
        owner = _OWNERS.get(key) if key else None
        data = None
        if owner is not None:
            reader_key = readers.KEY.format(owner)
            try:
                found = self._cache.get_many([self.cache_key, reader_key])
            except Exception:  # unreachable, or a key the backend refuses: as a miss
                found = {}
            data = found.get(self.cache_key)
            if data is not None and str(data.get(SESSION_KEY)) == owner:
                self.prefetched_reader = (owner, found.get(reader_key))
        if data is None:
            data = super().load()
        user = data.get(SESSION_KEY)
        if key and user is not None:
            if len(_OWNERS) >= OWNERS_MAX:
                _OWNERS.clear()
            _OWNERS[key] = str(user)
        return data
