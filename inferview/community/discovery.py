"""Up next: where a learner goes after a question."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce

from inferview.community.practice.selectors import (
    confident_question_ids,
)
from questions import selectors as question_selectors
from questions.models import Question, QuestionSimilarity


def up_next(
    question: Question, user: Any, *, limit: int = 3, pool: int = 50
) -> tuple[Question | None, list[Question]]:
    """Next in the track, and the closest questions elsewhere, skipping confident ones.

    "Closest" ranks by shared concepts first and TF-IDF cosine second; the cosine was
    precomputed by the ``questions.recompute_similarity`` task and is only read here. A
    question sharing no concept can still appear, below every one that shares some.
    Three queries: next in track, the stored neighbours, and one candidate query.
    """
    skip = confident_question_ids(user)
    nxt = question_selectors.next_in_track(question, exclude=skip)
    row = (
        QuestionSimilarity.objects.filter(question=question)
        .values_list("neighbours", flat=True)
        .first()
    )
    cosine = {int(qid): float(score) for qid, score in (row or [])}
    concept_ids = [c.pk for c in question.concepts.all()]
    if not concept_ids and not cosine:
        return nxt, []
    links = Question.concepts.through.objects.filter(concept_id__in=concept_ids)
    shared = Subquery(
        links.filter(question_id=OuterRef("pk"))
        .values("question_id")
        .annotate(n=Count("id"))
        .values("n")[:1]
    )
    candidates = (
        question_selectors.published_questions()
        .filter(Q(pk__in=links.values("question_id")) | Q(pk__in=list(cosine)))
        .exclude(pk=question.pk)
        .exclude(pk__in=skip)
        .annotate(shared=Coalesce(shared, 0))
        .select_related("track")
        .order_by("-shared", "track__order", "number")
    )
    if nxt is not None:
        candidates = candidates.exclude(pk=nxt.pk)
    found = list(candidates[:pool])
    for q in found:
        q.text_similarity = cosine.get(q.pk, 0.0)
    found.sort(key=lambda q: (-q.shared, -q.text_similarity, q.track.order, q.number))
    return nxt, found[:limit]
