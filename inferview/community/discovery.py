"""Up next: where a learner goes after a question.

The candidates are the same for every reader, so they are computed once per content
version and shared through the cache (``questions.content_version.cached``): the
questions after this one in its track, and the closest questions elsewhere, ranked. A
request then only asks which of those few the learner is already confident in (one query,
none when signed out) and picks from the lists.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce

from inferview.community.common import signed_in
from inferview.community.models import Progress, ProgressStatus
from inferview.community.practice.selectors import confident_question_ids
from questions import content_version
from questions import selectors as question_selectors
from questions.models import Question, QuestionSimilarity

#: How many following questions to keep as "next in track" candidates. A learner
#: confident in all of them gets the next one from the database instead.
FOLLOWING = 10
#: How many closest candidates to rank, and how many of the best to keep.
POOL = 50
KEPT = 20
#: What the up-next links show, so cached rows carry no answer or body text.
BRIEF_FIELDS = (
    "id",
    "number",
    "title",
    "slug",
    "difficulty",
    "kind",
    "access",
    "track__slug",
    "track__title",
    "track__order",
)


@dataclass(frozen=True)
class TrackBrief:
    slug: str
    title: str
    order: int


@dataclass(frozen=True)
class QuestionBrief:
    """What an up-next link shows: plain data, so the cached lists stay small and quick to
    load (model instances cost far more to unpickle), and no answer text rides along."""

    id: int
    track: TrackBrief
    number: int
    slug: str
    title: str
    difficulty: str
    kind: str
    access: str
    url: str
    shared: int = 0  # concepts shared with the question it was ranked for
    text_similarity: float = 0.0  # TF-IDF cosine with it

    @property
    def pk(self) -> int:
        return self.id

    def get_absolute_url(self) -> str:
        return self.url

    @classmethod
    def of(cls, q: Question) -> QuestionBrief:
        track = TrackBrief(q.track.slug, q.track.title, q.track.order)
        return cls(
            q.pk,
            track,
            q.number,
            q.slug,
            q.title,
            q.difficulty,
            q.kind,
            q.access,
            q.get_absolute_url(),
            getattr(q, "shared", 0),
            getattr(q, "text_similarity", 0.0),
        )


@dataclass
class Neighbours:
    following: list[QuestionBrief] = field(default_factory=list)  # in track order
    closest: list[QuestionBrief] = field(default_factory=list)  # best first


def neighbours(question: Question) -> Neighbours:
    """The up-next candidates of ``question`` for every reader, cached per content version."""
    return content_version.cached(f"up-next:v2:{question.pk}", lambda: _compute(question))


def _brief(queryset: Any) -> Any:
    return queryset.select_related("track").only(*BRIEF_FIELDS)


def _compute(question: Question) -> Neighbours:
    """ "Closest" ranks by shared concepts first and TF-IDF cosine second; the cosine was
    precomputed by the ``questions.recompute_similarity`` task and is only read here. A
    question sharing no concept can still appear, below every one that shares some."""
    following = [
        QuestionBrief.of(q)
        for q in _brief(question_selectors.published_questions())
        .filter(track=question.track_id, number__gt=question.number)
        .order_by("number")[:FOLLOWING]
    ]
    row = (
        QuestionSimilarity.objects.filter(question=question)
        .values_list("neighbours", flat=True)
        .first()
    )
    cosine = {int(qid): float(score) for qid, score in (row or [])}
    concept_ids = [c.pk for c in question.concepts.all()]
    if not concept_ids and not cosine:
        return Neighbours(following=following)
    links = Question.concepts.through.objects.filter(concept_id__in=concept_ids)
    shared = Subquery(
        links.filter(question_id=OuterRef("pk"))
        .values("question_id")
        .annotate(n=Count("id"))
        .values("n")[:1]
    )
    candidates = (
        _brief(question_selectors.published_questions())
        .filter(Q(pk__in=links.values("question_id")) | Q(pk__in=list(cosine)))
        .exclude(pk=question.pk)
        .annotate(shared=Coalesce(shared, 0))
        .order_by("-shared", "track__order", "number")
    )
    found = list(candidates[:POOL])
    for q in found:
        q.text_similarity = cosine.get(q.pk, 0.0)
    found.sort(key=lambda q: (-q.shared, -q.text_similarity, q.track.order, q.number))
    return Neighbours(following=following, closest=[QuestionBrief.of(q) for q in found[:KEPT]])


def up_next(
    question: Question,
    user: Any,
    *,
    limit: int = 3,
    found: Neighbours | None = None,
    skip: set[int] | None = None,
) -> tuple[QuestionBrief | Question | None, list[QuestionBrief]]:
    """Next in the track, and the closest questions elsewhere, skipping confident ones
    (``found``: the candidates, and ``skip``: the confident among them, when the caller
    already holds them)."""
    found = found if found is not None else neighbours(question)
    if skip is None and signed_in(user):
        ids = [q.pk for q in found.following] + [q.pk for q in found.closest]
        skip = set(
            Progress.objects.filter(
                user=user, status=ProgressStatus.CONFIDENT, question_id__in=ids
            ).values_list("question_id", flat=True)
        )
    skip = skip or set()
    nxt = next((q for q in found.following if q.pk not in skip), None)
    if nxt is None and len(found.following) == FOLLOWING:
        # Confident in every candidate: the database knows what comes after them.
        nxt = question_selectors.next_in_track(question, exclude=confident_question_ids(user))
    closest = [q for q in found.closest if q.pk not in skip and (nxt is None or q.pk != nxt.pk)]
    return nxt, closest[:limit]
