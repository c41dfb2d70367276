"""Which questions a reader has anything of their own on, and each question's difficulty
tally, kept in the shared cache so that a signed-in first view of a question the reader
has never touched runs no query.

A question page's personal slots (bookmark, progress, review card, difficulty vote,
key-point score, the up-next choice that skips their confident questions) come from one
statement per page (``pages._reader_state``). Most first views are of questions the
reader has nothing on, and for those the statement only confirms that and counts the
question's votes. Here:

- **the reader's summary**: the ids of the questions they have a bookmark, progress, a
  review card, a vote or a key-point score on, and those they are confident in; one
  query, kept for ``SUMMARY_SECONDS`` under the reader's page version
  (``pages.cache.USER_VERSION``: a value never used twice), which every write of theirs
  moves (their unsafe requests, and saves or deletes of their community rows wherever
  they happen, again when those commit);
- **a question's tally**: its votes per answer, forgotten by every save or delete of a
  vote on it (signals below, connected in ``CommunityConfig.ready``), and kept at most
  ``TALLY_SECONDS`` in any case, so a tally stored by a request that counted just before
  a vote shows that vote within a minute to other readers (the voter's own page counts
  it at once: the question is in their summary, and their page runs the statement).

A question in the summary, or any cache failure, means the statement runs as before.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache
from django.db import connection, transaction

from .common import db_table
from .models import (
    Bookmark,
    DifficultyFelt,
    DifficultyVote,
    KeyPointScore,
    Progress,
    ProgressStatus,
    ReviewCard,
)

logger = logging.getLogger(__name__)

SUMMARY_SECONDS = 300  # the reader's page copies' life (pages.cache.PERSONAL_SECONDS)
TALLY_SECONDS = 60
SUMMARY_KEY = "reader-summary:v1:{}:{}"
TALLY_KEY = "difficulty-tally:v1:{}"


@dataclass(frozen=True)
class Summary:
    touched: frozenset[int]  # a bookmark, progress, card, vote or key-point score
    confident: frozenset[int]


def _summary_from_database(user_pk: int) -> Summary:
    statement = " UNION ALL ".join(
        [
            f"SELECT question_id, CASE WHEN status = %s THEN 1 ELSE 0 END"
            f" FROM {db_table(Progress)} WHERE user_id = %s",
            *(
                f"SELECT question_id, 0 FROM {db_table(model)} WHERE user_id = %s"
                for model in (Bookmark, ReviewCard, DifficultyVote, KeyPointScore)
            ),
        ]
    )
    with connection.cursor() as cursor:
        cursor.execute(statement, [ProgressStatus.CONFIDENT.value, *[user_pk] * 5])
        rows = cursor.fetchall()
    return Summary(
        touched=frozenset(int(q) for q, _ in rows if q is not None),
        confident=frozenset(int(q) for q, sure in rows if sure and q is not None),
    )


def _tally_from_database(question_id: int) -> dict[str, int]:
    counts = dict.fromkeys(DifficultyFelt.values, 0)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT felt, COUNT(*) FROM {db_table(DifficultyVote)} WHERE question_id = %s"
            " GROUP BY felt",
            [question_id],
        )
        for felt, n in cursor.fetchall():
            if felt in counts:
                counts[felt] = int(n)
    return counts


def blank_state(
    *, user_pk: int, user_version: Any, question_id: int
) -> tuple[dict[str, int], frozenset[int]] | None:
    """``(tally, confident question ids)`` when this reader has nothing of their own on
    the question, else ``None`` (also when their page version is unknown or the cache is
    away): then the caller reads their state with its statement."""
    if not user_version:
        return None
    summary_key = SUMMARY_KEY.format(user_pk, user_version)
    tally_key = TALLY_KEY.format(question_id)
    try:
        found = cache.get_many([summary_key, tally_key])
    except Exception:  # the cache is away: read the state instead
        logger.warning("reader summary unavailable; reading the state", exc_info=True)
        return None
    summary = found.get(summary_key)
    if summary is None:
        summary = _summary_from_database(user_pk)
        _store(summary_key, summary, SUMMARY_SECONDS)
    if question_id in summary.touched:
        return None
    tally = found.get(tally_key)
    if tally is None:
        tally = _tally_from_database(question_id)
        _store(tally_key, tally, TALLY_SECONDS)
    return tally, summary.confident


def _store(key: str, value: Any, seconds: int) -> None:
    try:
        cache.set(key, value, seconds)
    except Exception:  # the next page counts again
        logger.warning("reader summary not stored: cache unreachable", exc_info=True)


def _forget(question_id: int) -> None:
    try:
        cache.delete(TALLY_KEY.format(question_id))
    except Exception:  # then TALLY_SECONDS bounds it
        logger.warning("difficulty tally not forgotten: cache unreachable", exc_info=True)


def forget_tally(sender: Any, instance: DifficultyVote, **kwargs: Any) -> None:
    """A vote was saved or deleted: its question's tally is counted afresh, now and once
    the write commits (a count made in between saw the votes before it)."""
    question_id = instance.question_id
    _forget(question_id)
    transaction.on_commit(lambda: _forget(question_id))
