"""A lesson body's ``##`` headings: its table of contents (public even when the body is
locked), read the same way by the model (for search), the pages and ``check_content``."""

from __future__ import annotations

import re

# fenced code (``` or ~~~), whose lines are not headings; as questions.content_check's
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,}).*?^ {0,3}\1", re.MULTILINE | re.DOTALL)
H2 = re.compile(r"^##\s+(.+?)\s*#*\s*$", re.MULTILINE)


def headings(markdown: str) -> list[str]:
    """The ``##`` headings outside code, in order."""
    return [m.group(1).strip() for m in H2.finditer(FENCE.sub(" ", markdown or ""))]
