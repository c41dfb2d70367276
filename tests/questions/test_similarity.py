"""Up next: TF-IDF and cosine in NumPy, precomputed after content changes and only read
on page views; closest neighbours share concepts; confident questions are skipped."""

import numpy as np
import pytest

from inferview.community import discovery as discovery_selectors
from inferview.community.practice import services as practice_services
from questions import services as content_services
from questions import similarity, tasks
from questions.models import Question, QuestionSimilarity
from tests.factories import ConceptFactory, QuestionFactory, TrackFactory

# --- pure NumPy parts: no database ---------------------------------------------------------


def test_tfidf_rows_are_unit_vectors_and_identical_documents_have_cosine_one():
    m = similarity.tfidf_matrix(
        ["kv cache memory per token", "kv cache memory per token", "pipeline bubbles in training"]
    )
    assert np.allclose(np.linalg.norm(m, axis=1), 1.0)
    sims = similarity.cosine_matrix(m)
    assert sims[0, 1] == pytest.approx(1.0) and sims[0, 2] == pytest.approx(0.0)
    assert np.all(np.diag(sims) == 0)


def test_rare_shared_words_weigh_more_than_common_ones():
    docs = [
        "gpu memory bandwidth",
        "gpu memory latency",
        "gpu tensor cores",
        "memory bandwidth roofline",
    ]
    sims = similarity.cosine_matrix(similarity.tfidf_matrix(docs))
    # doc 0 shares "memory bandwidth" with doc 3 and "gpu memory" with doc 1; bandwidth is rarer than gpu
    assert sims[0, 3] > sims[0, 1] > sims[0, 2]


def test_nearest_orders_by_score_and_drops_zeros():
    sims = np.array([[0, 0.2, 0.9, 0.0], [0.2, 0, 0.1, 0], [0.9, 0.1, 0, 0], [0, 0, 0, 0]])
    assert similarity.nearest(sims, keep=3)[0] == [(2, 0.9), (1, 0.2)]
    assert similarity.nearest(sims)[3] == []


def test_stop_words_and_empty_input():
    assert similarity.tokenise("Why is the KV-cache so big?") == ["kv-cache", "big"]
    assert similarity.tfidf_matrix([]).shape == (0, 0)


# --- stored neighbours ----------------------------------------------------------------------


@pytest.fixture
def corpus(db):
    track = TrackFactory()
    kv, batching, parallel = (
        ConceptFactory(title="KV cache"),
        ConceptFactory(title="Continuous batching"),
        ConceptFactory(title="Tensor parallelism"),
    )
    q = {
        "kv1": QuestionFactory(
            track=track,
            number=1,
            title="How big is the KV cache per token?",
            summary="Bytes per token per layer.",
        ),
        "kv2": QuestionFactory(
            track=track,
            number=2,
            title="Why does a long context run out of KV cache memory?",
            summary="Cache grows with tokens.",
        ),
        "kv3": QuestionFactory(
            track=track,
            number=3,
            title="Paged attention and KV cache fragmentation",
            summary="Blocks for the cache.",
        ),
        "tp": QuestionFactory(
            track=track,
            number=4,
            title="When does tensor parallelism stop scaling?",
            summary="All-reduce per layer.",
        ),
        "batch": QuestionFactory(
            track=track,
            number=5,
            title="Continuous batching versus static batching",
            summary="Throughput and latency.",
        ),
        "textual": QuestionFactory(
            track=TrackFactory(),
            number=1,
            title="KV cache tokens cache memory per token bytes",
            summary="Cache token bytes.",
        ),
    }
    q["kv1"].concepts.set([kv, batching])
    q["kv2"].concepts.set([kv, batching])
    q["kv3"].concepts.set([kv])
    q["tp"].concepts.set([parallel])
    q["batch"].concepts.set([batching])
    return q


def test_recompute_stores_neighbours_for_every_published_question(corpus):
    QuestionFactory(published=False, title="Draft about KV cache")
    assert similarity.recompute() == len(corpus)
    row = QuestionSimilarity.objects.get(question=corpus["kv1"])
    ids = [qid for qid, _ in row.neighbours]
    assert ids[0] in {corpus["textual"].pk, corpus["kv2"].pk}
    assert corpus["kv1"].pk not in ids
    scores = [s for _, s in row.neighbours]
    assert scores == sorted(scores, reverse=True)


def _fresh(question):
    from questions.selectors import question_detail

    return question_detail(question.track.slug, question.slug)


def test_closest_neighbours_share_the_questions_concepts(corpus, anonymous):
    similarity.recompute()
    nxt, closest = discovery_selectors.up_next(_fresh(corpus["kv3"]), anonymous)
    assert nxt.pk == corpus["tp"].pk
    concept_ids = set(corpus["kv3"].concepts.values_list("pk", flat=True))
    assert closest, "expected neighbours"
    for q in closest[:2]:
        linked = Question.objects.get(pk=q.pk).concepts.values_list("pk", flat=True)
        assert concept_ids & set(linked), q
    # Shared concepts rank first; the text-only match may follow but never leads.
    assert closest[0].shared >= closest[-1].shared
    assert closest[0].pk in {corpus["kv1"].pk, corpus["kv2"].pk}


def test_text_similarity_breaks_ties_and_finds_questions_without_shared_concepts(corpus, anonymous):
    similarity.recompute()
    nxt, closest = discovery_selectors.up_next(_fresh(corpus["kv2"]), anonymous, limit=5)
    ids = [q.pk for q in closest]
    assert nxt.pk == corpus["kv3"].pk and nxt.pk not in ids  # next in track is not repeated
    assert ids[0] == corpus["kv1"].pk  # shares both concepts
    assert corpus["textual"].pk in ids  # no concepts, found by TF-IDF cosine
    assert ids.index(corpus["textual"].pk) > ids.index(corpus["batch"].pk)  # below a shared one


def test_up_next_skips_confident_questions(corpus, free_user):
    similarity.recompute()
    practice_services.progress_set(user=free_user, question=corpus["kv2"], status="confident")
    practice_services.progress_set(user=free_user, question=corpus["tp"], status="confident")
    nxt, closest = discovery_selectors.up_next(_fresh(corpus["kv1"]), free_user, limit=5)
    assert nxt.pk == corpus["kv3"].pk  # number 2 is confident, so the next one after it
    ids = [q.pk for q in closest]
    assert corpus["kv2"].pk not in ids and corpus["tp"].pk not in ids


def test_page_view_reads_the_stored_matrix_and_never_computes(corpus, client, monkeypatch):
    similarity.recompute()

    def boom(*args, **kwargs):
        raise AssertionError("similarity computed during a page view")

    monkeypatch.setattr(similarity, "recompute", boom)
    monkeypatch.setattr(similarity, "tfidf_matrix", boom)
    monkeypatch.setattr(tasks.recompute_similarity, "delay", boom)
    html = client.get(corpus["kv1"].get_absolute_url()).content.decode()
    assert corpus["kv2"].title in html
    assert client.get(corpus["kv1"].get_absolute_url()).status_code == 200


def test_content_change_queues_a_recompute_after_commit(
    corpus, monkeypatch, django_capture_on_commit_callbacks
):
    similarity.recompute()
    queued = []
    monkeypatch.setattr(
        tasks.recompute_similarity, "delay", lambda: queued.append(tasks.recompute_similarity())
    )
    new = QuestionFactory.build(
        track=corpus["kv1"].track,
        number=9,
        slug="kv-eviction",
        title="Evicting KV cache blocks under memory pressure",
        published=True,
    )
    with django_capture_on_commit_callbacks(execute=True):
        content_services.save_content(new)
    assert len(queued) == 1  # the task ran once the transaction committed
    neighbours = [
        qid for qid, _ in QuestionSimilarity.objects.get(question=corpus["kv1"]).neighbours
    ]
    assert new.pk in neighbours and QuestionSimilarity.objects.filter(question=new).exists()


def test_publishing_and_unpublishing_queue_a_recompute(
    corpus, monkeypatch, django_capture_on_commit_callbacks
):
    calls = []
    monkeypatch.setattr(tasks.recompute_similarity, "delay", lambda: calls.append(1))
    from questions.models import Question

    with django_capture_on_commit_callbacks(execute=True):
        content_services.set_published(Question.objects.filter(pk=corpus["tp"].pk), published=False)
    assert calls == [1]


def test_the_task_recomputes_and_returns_the_count(corpus):
    assert tasks.recompute_similarity() == len(corpus)
    assert QuestionSimilarity.objects.count() == len(corpus)


def test_a_queue_burst_is_deduplicated(db, monkeypatch):
    calls = []
    monkeypatch.setattr(tasks.recompute_similarity, "delay", lambda: calls.append(1))
    tasks._enqueue()
    tasks._enqueue()
    assert calls == [1]


def test_broker_down_does_not_break_the_save(db, monkeypatch):
    def down():
        raise ConnectionError("broker down")

    monkeypatch.setattr(tasks.recompute_similarity, "delay", down)
    tasks._enqueue()  # logged, not raised
    from django.core.cache import cache

    assert cache.get(tasks.PENDING_KEY) is None


# --- through a real Celery worker -------------------------------------------------------------

CREATE_CONTENT = """
from questions import services
from questions.models import Concept, Question, Track
t = Track(slug="serving", title="Serving", category="serving", summary="s", published=True)
services.save_content(t)
kv = Concept(slug="kv", title="KV cache", category="serving", summary="s", body="b", published=True)
services.save_content(kv)
for n, title in enumerate(["How big is the KV cache per token?", "Why does the KV cache run out of memory?", "When does tensor parallelism stop scaling?"], 1):
    q = Question(track=t, number=n, slug=f"q{n}", title=title, summary="s", answer="a", difficulty="easy", kind="explain", published=True)
    services.save_content(q)
"""
EDIT_CONTENT = """
from questions import services
from questions.models import Question, Track
q = Question(track=Track.objects.get(), number=4, slug="q4", title="Tensor parallelism all-reduce cost per layer", summary="s", answer="a", difficulty="easy", kind="explain", published=True)
services.save_content(q)
"""


@pytest.mark.worker
def test_a_content_change_recomputes_the_matrix_in_a_real_worker(tmp_path):
    import sqlite3
    import subprocess
    import time

    from tests.calculators.stack import PYTHON, ROOT, _stop, stack_env

    env = stack_env(tmp_path, redis_url=None)
    db = tmp_path / "stack.sqlite3"
    subprocess.run(
        [PYTHON, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=300,
    )
    subprocess.run(
        [PYTHON, "manage.py", "createcachetable"], cwd=ROOT, env=env, check=True, timeout=60
    )
    worker = subprocess.Popen(
        [
            PYTHON,
            "-m",
            "celery",
            "-A",
            "inferview",
            "worker",
            "-Q",
            "default",
            "-c",
            "1",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "-l",
            "warning",
            "-n",
            f"similarity-test-{tmp_path.name}@%h",
        ],
        cwd=ROOT,
        env=env,
        stdout=open(tmp_path / "worker.log", "w"),
        stderr=subprocess.STDOUT,
    )

    def rows():
        with sqlite3.connect(db) as conn:
            return dict(
                conn.execute(
                    "SELECT question_id, neighbours FROM questions_questionsimilarity"
                ).fetchall()
            )

    def wait_for(predicate, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            current = rows()
            if predicate(current):
                return current
            time.sleep(0.2)
        raise AssertionError(
            f"similarity not recomputed: {rows()}; worker log: {(tmp_path / 'worker.log').read_text()[-2000:]}"
        )

    try:
        subprocess.run(
            [PYTHON, "manage.py", "shell", "-c", CREATE_CONTENT],
            cwd=ROOT,
            env=env,
            check=True,
            timeout=120,
        )
        first = wait_for(lambda r: len(r) == 3)
        subprocess.run(
            [PYTHON, "manage.py", "shell", "-c", EDIT_CONTENT],
            cwd=ROOT,
            env=env,
            check=True,
            timeout=120,
        )
        second = wait_for(lambda r: len(r) == 4)
        assert first.keys() < second.keys()
    finally:
        _stop(worker)


def test_cache_down_does_not_break_the_save(db, monkeypatch):
    from django.core.cache import cache

    calls = []

    def broken(*args, **kwargs):
        raise RuntimeError("cache table missing")

    monkeypatch.setattr(cache, "add", broken)
    monkeypatch.setattr(tasks.recompute_similarity, "delay", lambda: calls.append(1))
    tasks._enqueue()
    assert calls == [1]
