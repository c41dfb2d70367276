"""The text a reader can read on an item, which a reported quote must come from.

A quote is checked against the plain text of the item as this reader sees it rendered:
title, summary and question body always, the answer or concept body only when the access
policy lets the reader read it. So a quote cannot probe locked text ("is this sentence in
the premium answer?") and locked text is never stored in a report.

Matching ignores whitespace altogether: a browser's selection joins paragraphs, list items
and table cells with newlines or tabs that the HTML does not hold, and inline tags split
words differently from how they read. Both sides are NFKC-normalised for the same reason.
"""

from __future__ import annotations

import unicodedata
from html import unescape
from typing import Any

import nh3

from inferview.access import policy
from questions.markdown import render_markdown
from questions.models import Concept, GuideItem, Question


def normalise(text: str) -> str:
    """Whitespace collapsed to single spaces, NFKC: how a quote is stored and shown."""
    return " ".join(unicodedata.normalize("NFKC", text or "").split())


def match_key(text: str) -> str:
    """The form two texts are compared in: ``normalise`` without any whitespace."""
    return "".join(normalise(text).split())


def _html_text(markdown: str) -> str:
    return unescape(nh3.clean(str(render_markdown(markdown)), tags=set()))


def parts(
    item: Question | Concept | GuideItem, *, user: Any, everything: bool = False
) -> list[str]:
    """The plain-text parts of ``item`` that ``user`` can read (all of them for an author
    looking at the admin queue: ``everything``)."""
    if isinstance(item, Question):
        out = [item.title, item.summary, _html_text(item.body)]
        if everything or policy.can_read(user, item):
            out.append(_html_text(item.answer))
        return out
    if isinstance(item, Concept):
        out = [item.title, item.summary]
        if everything or policy.can_read(user, item):
            out.append(_html_text(item.body))
        return out
    # Guides are open to everyone: the item's title and its short answer.
    return [item.title, _html_text(item.body)]


def quote_in(item: Question | Concept | GuideItem, *, user: Any, quote: str) -> bool:
    """Whether ``quote`` occurs in one part of the text ``user`` can read on ``item``."""
    key = match_key(quote)
    return bool(key) and any(key in match_key(part) for part in parts(item, user=user))


def in_context(
    item: Question | Concept | GuideItem, *, quote: str, around: int = 240
) -> tuple[str, str, str] | None:
    """(before, quote, after) from the item's full text, for the authors' queue; None when
    the quote is no longer there (the item was edited since)."""
    for part in parts(item, user=None, everything=True):
        text = normalise(part)
        at = text.find(normalise(quote))
        if at >= 0:
            end = at + len(normalise(quote))
            before = text[max(0, at - around) : at]
            after = text[end : end + around]
            return (
                ("…" if at > around else "") + before,
                text[at:end],
                after + ("…" if end + around < len(text) else ""),
            )
    return None
