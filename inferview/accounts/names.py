"""Display names that cannot pass for another learner's.

Two names clash when they look alike, not only when they are equal: ``Ａｌｉｃｅ``
(fullwidth), ``Аlice`` (a Cyrillic А) and ``ALICE`` all read as ``Alice`` beside a comment.
Names are therefore compared by their confusable skeleton (Unicode Technical Standard #39,
section 4) of the NFKC form, case-folded, computed by ICU's ``SpoofChecker`` (PyICU): the
reference implementation of UTS #39 and its confusables data, not a table of our own. The
skeleton is stored beside the name with a unique index, so the rule is the database's and
holds the same on SQLite and PostgreSQL (whose ``lower()`` SQLite applies to ASCII only).

A name that mixes scripts the way lookalikes do (Latin with Cyrillic or Greek, digits of two
numbering systems, invisible characters) is refused outright, as ICU's "moderately
restrictive" level says: Latin with one other script, or the Han/Kana/Hangul combinations of
CJK names, are fine."""

from __future__ import annotations

import unicodedata
from functools import cache

import icu


def normalise(name: str) -> str:
    """NFKC (fullwidth and compatibility forms become the letters they stand for), without
    surrounding spaces. This is the form stored and shown."""
    return unicodedata.normalize("NFKC", name or "").strip()


@cache
def _checker() -> icu.SpoofChecker:
    checker = icu.SpoofChecker()
    checker.setRestrictionLevel(icu.URestrictionLevel.MODERATELY_RESTRICTIVE)
    checker.setChecks(
        icu.USpoofChecks.RESTRICTION_LEVEL
        | icu.USpoofChecks.INVISIBLE
        | icu.USpoofChecks.MIXED_NUMBERS
    )
    return checker


def skeleton(name: str) -> str:
    """What ``name`` looks like: equal skeletons are names a reader cannot tell apart."""
    if not name:
        return ""
    return _checker().getSkeleton(0, normalise(name).casefold())


def script_problem(name: str) -> str:
    """Why the name's mix of characters could imitate another name, or ""."""
    failed = _checker().check(normalise(name))
    if failed & icu.USpoofChecks.MIXED_NUMBERS:
        return "Use the digits of one numbering system."
    if failed:
        return (
            "Use letters of one script (with Latin, at most one other): a name mixing, "
            "say, Latin and Cyrillic letters can imitate another learner's."
        )
    return ""
