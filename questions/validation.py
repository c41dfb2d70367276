"""Problems in authored Markdown that a reader would see: one list, two callers.

The admin forms check against the database and ``manage.py check_content`` against the
files, each passing its own resolvers, so a directive, diagram or internal link is judged
by the same rules on both paths.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from calculators.directive import find_directive_errors

from .practice import key_point_problems, practice_problems, practice_spec

__all__ = ["key_point_problems", "markdown_problems", "practice_problems", "practice_spec"]

IMAGE = re.compile(r"!\[(?P<alt>[^\]]*)\]\((?P<src>[^)\s]+)(?:\s+\"(?P<caption>[^\"]*)\")?\)")
DIAGRAM_SRC = re.compile(r"^diagrams/[a-z0-9][a-z0-9-]*\.(?:svg|png)$")
INTERNAL_LINK = re.compile(r"\]\((?P<href>/(?:concepts|tracks|guides)/[^)\s]*)")

Exists = Callable[[str], bool]


def markdown_problems(
    text: str,
    *,
    concept_exists: Exists,
    track_exists: Exists,
    guide_exists: Exists,
    diagram_exists: Exists,
) -> list[tuple[str, str]]:
    """(rule, message) pairs; rules are ``directive``, ``diagram`` and ``reference``."""
    problems = [("directive", p) for p in find_directive_errors(text)]
    for m in IMAGE.finditer(text):
        src, alt, caption = m.group("src"), (m.group("alt") or "").strip(), m.group("caption")
        if not DIAGRAM_SRC.match(src):
            problems.append(
                (
                    "diagram",
                    f"image {src}: only our own diagrams/<name>.svg or .png files are allowed",
                )
            )
        elif not diagram_exists(src):
            problems.append(("reference", f"diagram {src} does not exist"))
        if not alt:
            problems.append(("diagram", f"image {src}: alternative text is required"))
        if not (caption or "").strip():
            problems.append(("diagram", f'image {src}: add a caption: ![alt]({src} "Caption")'))
    for m in INTERNAL_LINK.finditer(text):
        href = m.group("href")
        parts = [p for p in href.split("#")[0].split("/") if p]
        if parts[0] == "concepts":
            ok = len(parts) == 2 and concept_exists(parts[1])
        elif parts[0] == "guides":
            ok = len(parts) == 1 or (len(parts) == 2 and guide_exists(parts[1]))
        else:  # question URLs carry numbers that change: link the track or a concept
            ok = len(parts) == 2 and track_exists(parts[1])
        if not ok:
            problems.append(("reference", f"link {href} does not resolve"))
    return problems


def database_problems(text: str) -> list[str]:
    """``markdown_problems`` against published content in the database (admin forms)."""
    from django.contrib.staticfiles import finders

    from .models import Concept, Guide, Track

    found = markdown_problems(
        text,
        concept_exists=lambda s: Concept.objects.published().filter(slug=s).exists(),
        track_exists=lambda s: Track.objects.published().filter(slug=s).exists(),
        guide_exists=lambda s: Guide.objects.published().filter(slug=s).exists(),
        diagram_exists=lambda src: finders.find(src) is not None,
    )
    return [message for _, message in found]
