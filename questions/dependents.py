"""What points at a content item: shown before an author unpublishes or deletes it.

Content knows its own links (answers that link a concept or a question's URL, questions
and guide sections that use a concept). Readers' data lives in apps above this one, so
they register a provider here (``register``) instead of this module importing them: the
dependency keeps pointing down.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db.models import Q

from .models import Concept, GuideSection, Question

Provider = Callable[[Any], list[str]]
_providers: list[Provider] = []


def register(provider: Provider) -> Provider:
    """Add a provider: item -> lines such as "12 readers' bookmarks"."""
    if provider not in _providers:
        _providers.append(provider)
    return provider


def _titles(qs, limit: int = 5) -> str:
    items = [str(o.title) for o in qs[:limit]]
    more = qs.count() - len(items)
    return "; ".join(items) + (f"; and {more} more" if more > 0 else "")


def dependents(item: Any) -> list[str]:
    """Human-readable lines, one per kind of thing that points at ``item``."""
    lines: list[str] = []
    if isinstance(item, Concept):
        using = Question.objects.filter(concepts=item, published=True).order_by("track", "number")
        if using.exists():
            lines.append(f"Used by {using.count()} published question(s): {_titles(using)}")
        sections = GuideSection.objects.filter(concepts=item)
        if sections.exists():
            lines.append(f"Named by {sections.count()} guide section(s): {_titles(sections)}")
        href = f"/concepts/{item.slug}/"
    elif isinstance(item, Question):
        href = f"/tracks/{item.track.slug}/{item.number}/"
    else:
        href = None
    if href:
        linking = Question.objects.filter(
            Q(answer__contains=href) | Q(body__contains=href), published=True
        ).exclude(pk=item.pk if isinstance(item, Question) else None)
        if linking.exists():
            lines.append(f"Linked from {linking.count()} answer(s): {_titles(linking)}")
        concepts = Concept.objects.filter(body__contains=href, published=True).exclude(
            pk=item.pk if isinstance(item, Concept) else None
        )
        if concepts.exists():
            lines.append(f"Linked from {concepts.count()} concept(s): {_titles(concepts)}")
    for provider in _providers:
        lines.extend(provider(item))
    return lines
