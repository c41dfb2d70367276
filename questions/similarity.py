"""Text similarity between published questions: TF-IDF vectors and cosine, in NumPy.

The matrix is computed over every published question at once by the
``questions.recompute_similarity`` task after a content change, and each question's best
neighbours are stored in ``QuestionSimilarity``; a page view only reads its stored row.

Only public text is used (title, summary, the scenario as posed, and the titles of the
linked concepts), never the answer, so a locked answer cannot leak through which
questions are shown as close to it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
from django.db import transaction
from django.utils import timezone

from . import content_version

TOKEN = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")
STOP_WORDS = frozenset(
    """a an and are as at be but by can do does for from has have how i if in into is it its
    of on or so than that the their then there these they this to was what when where which
    while who why will with would you your not no does did we our""".split()
)
NEIGHBOURS_KEPT = 20


def tokenise(text: str) -> list[str]:
    return [t for t in TOKEN.findall(text.lower()) if t not in STOP_WORDS and len(t) > 1]


def tfidf_matrix(documents: Sequence[str]) -> np.ndarray:
    """Rows are L2-normalised TF-IDF vectors (sublinear tf, smoothed idf), one per document."""
    tokenised = [tokenise(d) for d in documents]
    vocabulary: dict[str, int] = {}
    for tokens in tokenised:
        for t in tokens:
            vocabulary.setdefault(t, len(vocabulary))
    counts = np.zeros((len(documents), len(vocabulary)), dtype=np.float64)
    for row, tokens in enumerate(tokenised):
        for t in tokens:
            counts[row, vocabulary[t]] += 1.0
    if counts.size == 0:
        return counts
    tf = np.zeros_like(counts)
    nonzero = counts > 0
    tf[nonzero] = 1.0 + np.log(counts[nonzero])
    df = nonzero.sum(axis=0)
    idf = np.log((1.0 + len(documents)) / (1.0 + df)) + 1.0
    weighted = tf * idf
    norms = np.linalg.norm(weighted, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return weighted / norms


def cosine_matrix(vectors: np.ndarray) -> np.ndarray:
    """Pairwise cosine similarity of L2-normalised rows, with the diagonal zeroed."""
    sims = vectors @ vectors.T
    np.fill_diagonal(sims, 0.0)
    return sims


def nearest(sims: np.ndarray, *, keep: int = NEIGHBOURS_KEPT) -> list[list[tuple[int, float]]]:
    """For each row, the indices and scores of its ``keep`` most similar rows (score > 0)."""
    out = []
    for row in sims:
        order = np.argsort(-row, kind="stable")[:keep]
        out.append([(int(j), float(row[j])) for j in order if row[j] > 0])
    return out


def question_documents() -> tuple[list[int], list[str]]:
    from .models import Question
    from .selectors import published_questions

    ids: list[int] = []
    docs: dict[int, list[str]] = {}
    for qid, title, summary, body in (
        published_questions().order_by("pk").values_list("pk", "title", "summary", "body")
    ):
        ids.append(qid)
        docs[qid] = [title, title, summary, body]  # the title twice: it is the question itself
    links = Question.concepts.through.objects.filter(question_id__in=ids, concept__published=True)
    for qid, concept_title in links.values_list("question_id", "concept__title"):
        docs[qid].append(concept_title)
    return ids, [" ".join(docs[qid]) for qid in ids]


@transaction.atomic
def recompute() -> int:
    """Recompute every published question's neighbours and store them. Returns the count."""
    from .models import QuestionSimilarity

    ids, documents = question_documents()
    now = timezone.now()
    rows = []
    if ids:
        neighbours = nearest(cosine_matrix(tfidf_matrix(documents)))
        rows = [
            QuestionSimilarity(
                question_id=qid,
                neighbours=[[ids[j], round(score, 6)] for j, score in neighbours[i]],
                computed_at=now,
            )
            for i, qid in enumerate(ids)
        ]
    QuestionSimilarity.objects.all().delete()
    QuestionSimilarity.objects.bulk_create(rows)
    # Up-next candidates are cached per content version: new neighbours retire them.
    transaction.on_commit(content_version.bump)
    return len(rows)
