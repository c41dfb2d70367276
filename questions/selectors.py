"""Reads of content. Each page's selector runs a fixed number of queries whatever its size."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Case, Count, Prefetch, Q, QuerySet, Value, When
from django.shortcuts import get_object_or_404

from .models import (
    AccessLevel,
    Category,
    Concept,
    Guide,
    GuideItem,
    GuideSection,
    Level,
    Question,
    Track,
)


def published_questions() -> QuerySet[Question]:
    return Question.objects.filter(published=True, track__published=True)


def level_count_name(level: str) -> str:
    return f"{level}_count"


def tracks_with_counts() -> QuerySet[Track]:
    """Published tracks with ``question_count`` and a count per access level, so a page can
    say how many answers each viewer reads without a query per track."""
    published = Q(questions__published=True)
    per_level = {
        level_count_name(level): Count("questions", filter=published & Q(questions__access=level))
        for level in AccessLevel
    }
    return (
        Track.objects.published()
        .annotate(question_count=Count("questions", filter=published), **per_level)
        .order_by("order", "title")
    )


#: Concepts from Foundations to Advanced (the stored values sort alphabetically otherwise).
LEVEL_ORDER = Case(
    *(When(level=value, then=Value(i)) for i, value in enumerate(Level.values)),
    default=Value(len(Level.values)),
)


@dataclass
class CategoryGroup:
    key: str
    label: str
    tracks: list[Track] = field(default_factory=list)
    concepts: list[Concept] = field(default_factory=list)


def curriculum(*, track: str = "", level: str = "", access: str = "") -> list[CategoryGroup]:
    """Tracks and concepts grouped by category, optionally narrowed: ``track`` (a slug) to
    that track and the concepts its questions use; ``level`` and ``access`` to concepts of
    that level or access level. Filters are applied in the two queries, never per item."""
    groups = {key: CategoryGroup(key, label) for key, label in Category.choices}
    tracks = tracks_with_counts()
    concepts = Concept.objects.published()
    if track:
        tracks = tracks.filter(slug=track)
        concepts = concepts.filter(
            questions__track__slug=track,
            questions__published=True,
            questions__track__published=True,
        )
    if level:
        concepts = concepts.filter(level=level)
    if access:
        concepts = concepts.filter(access=access)
    for t in tracks:
        groups[t.category].tracks.append(t)
    chosen = Concept.objects.filter(pk__in=concepts.values("pk"))  # the track join repeats rows
    for concept in chosen.annotate(
        question_count=Count("questions", filter=Q(questions__published=True))
    ).order_by(LEVEL_ORDER, "title"):
        groups[concept.category].concepts.append(concept)
    return [g for g in groups.values() if g.tracks or g.concepts]


def track_detail(slug: str) -> tuple[Track, QuerySet[Question]]:
    """The published track and its published questions in order, as a queryset: the page
    counts them in one query and loads only the rows it shows."""
    track = get_object_or_404(Track.objects.published(), slug=slug)
    questions = (
        Question.objects.filter(track=track, published=True)
        .only(
            "id",
            "track_id",
            "number",
            "slug",
            "title",
            "summary",
            "difficulty",
            "kind",
            "access",
            "published_at",
            "updated_at",
        )
        .order_by("number")
    )
    return track, questions


def track_counts(
    questions: QuerySet[Question], readable_levels: tuple[str, ...]
) -> tuple[int, int]:
    """(questions, answers this viewer may read) in one query."""
    counts = questions.order_by().aggregate(
        total=Count("id"), readable=Count("id", filter=Q(access__in=readable_levels))
    )
    return counts["total"], counts["readable"]


def prepare_rows(track: Track, questions: list[Question]) -> None:
    """Attach what a list row shows (``url``, ``updated_iso``, ``updated_label``,
    ``new``) computed in one pass: the URL from the track's prefix, not a reverse() per
    row, and the dates formatted once."""
    from django.conf import settings
    from django.utils import timezone

    prefix = track.get_absolute_url()
    now = timezone.now()
    for q in questions:
        updated = timezone.localtime(q.updated_at)
        row = {
            "url": f"{prefix}{q.number}/{q.slug}/",
            "updated_iso": updated.strftime("%Y-%m"),
            "updated_label": updated.strftime("%b %Y"),
            "new": bool(q.published_at and (now - q.published_at).days < settings.NEW_BADGE_DAYS),
        }
        for name, value in row.items():  # display attributes, like annotate_access's
            setattr(q, name, value)


def question_detail(track_slug: str, slug: str) -> Question:
    """The published question with this slug in this track (404 otherwise)."""
    return get_object_or_404(
        published_questions()
        .select_related("track")
        .prefetch_related(
            Prefetch("concepts", queryset=Concept.objects.published().order_by("title")),
            "calculator_embeds",
        ),
        track__slug=track_slug,
        slug=slug,
    )


def question_by_old_address(
    track_slug: str, *, slug: str | None = None, number: int | None = None
) -> Question | None:
    """Where an address that is not a current canonical URL points, by identity only.

    A slug the question had before (its slug history) finds it; a bare number finds the
    question holding that number now (the short "Track / number" form). Drafts included,
    so the caller can answer 410 for an unpublished question.
    """
    questions = Question.objects.select_related("track").filter(track__slug=track_slug)
    if slug is not None:
        return (
            questions.filter(slug=slug).first()
            or questions.filter(old_slugs__slug=slug, old_slugs__track__slug=track_slug).first()
        )
    return questions.filter(number=number).first()


def next_in_track(question: Question, *, exclude=()) -> Question | None:
    """The next published question in the track; ``exclude`` (ids or a subquery) skips some."""
    return (
        published_questions()
        .filter(track=question.track, number__gt=question.number)
        .exclude(pk__in=exclude)
        .select_related("track")
        .order_by("number")
        .first()
    )


def previous_in_track(question: Question) -> Question | None:
    """The published question before this one in its track (keyboard "previous")."""
    return (
        published_questions()
        .filter(track=question.track, number__lt=question.number)
        .select_related("track")
        .order_by("-number")
        .first()
    )


def concept_detail(slug: str) -> Concept:
    return get_object_or_404(Concept.objects.published(), slug=slug)


def questions_for_concept(concept: Concept) -> list[Question]:
    return list(
        published_questions()
        .filter(concepts=concept)
        .select_related("track")
        .order_by("track__order", "number")
    )


def guide_detail(slug: str) -> Guide:
    return get_object_or_404(
        Guide.objects.published().prefetch_related(
            Prefetch(
                "sections",
                queryset=GuideSection.objects.order_by("order", "id").prefetch_related(
                    Prefetch("concepts", queryset=Concept.objects.published().order_by("title")),
                    Prefetch("items", queryset=GuideItem.objects.order_by("order", "id")),
                ),
            )
        ),
        slug=slug,
    )


def numbered_sections(guide: Guide) -> list[tuple[GuideSection, list[tuple[int, GuideItem]]]]:
    """Sections with their items numbered across the whole guide."""
    out = []
    n = 0
    for section in guide.sections.all():
        items = []
        for item in section.items.all():
            n += 1
            items.append((n, item))
        out.append((section, items))
    return out
