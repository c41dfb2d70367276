"""Synthetic content for benchmarks/pages.py (run inside ``manage.py shell``)."""

from __future__ import annotations

import os
import random
from pathlib import Path

from django.db import transaction
from django.utils import timezone

WORDS = (
    "kv cache prefill decode batch latency throughput tensor parallel pipeline bubble "
    "bandwidth memory bound compute roofline kernel fusion attention flash paged block "
    "scheduler queue goodput percentile quantization fp8 int4 scale group expert router "
    "all reduce ring tree nvlink infiniband rail topology checkpoint shard optimizer state"
).split()


def _access(i: int, count: int) -> str:
    """10 open, 10 account, the rest premium, as the shipped tracks; thirds when short."""
    if count < 30:
        return ("open", "account", "premium")[i % 3]
    return "open" if i <= 10 else "account" if i <= 20 else "premium"


@transaction.atomic
def build(n: int, tracks: int = 6) -> None:
    """``n`` published questions over ``tracks`` tracks, with answers of about 450 words."""
    from questions.models import Concept, Question, Track

    rng = random.Random(n)
    now = timezone.now()
    concepts = [
        Concept.objects.create(
            slug=f"concept-{i}", title=f"Concept {i}", category="serving", summary="S.",
            body=" ".join(rng.choices(WORDS, k=400)), published=True, published_at=now,
        )
        for i in range(20)
    ]  # fmt: skip
    for t in range(tracks):
        track = Track.objects.create(
            slug=f"track-{t}", title=f"Track {t}", category="serving", summary="S.",
            order=t, published=True, published_at=now,
        )  # fmt: skip
        count = n // tracks + (1 if t < n % tracks else 0)
        Question.objects.bulk_create(
            Question(
                track=track, number=i, slug=f"q-{t}-{i}", key=f"k{t:02d}{i:05d}",
                title=" ".join(rng.choices(WORDS, k=9)).capitalize() + "?",
                summary=" ".join(rng.choices(WORDS, k=14)), body=" ".join(rng.choices(WORDS, k=60)),
                answer=" ".join(rng.choices(WORDS, k=450)), difficulty="medium", kind="explain",
                access=_access(i, count), published=True,
                published_at=now, updated_at=now,
            )
            for i in range(1, count + 1)
        )  # fmt: skip
        through = Question.concepts.through
        through.objects.bulk_create(
            through(question_id=q.pk, concept_id=concepts[(q.number + j) % 20].pk)
            for q in Question.objects.filter(track=track)
            for j in range(2)
        )


def targets() -> None:
    """Print the URLs the benchmark measures and a signed-in reader's session key."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    from questions.models import Concept, Question, Track

    track = Track.objects.filter(published=True).order_by("order").first()
    open_q = Question.objects.filter(track=track, access="open", published=True).first()
    locked = Question.objects.filter(track=track, access="premium", published=True).first()
    concept = Concept.objects.filter(published=True, access="open").first()
    client = Client()
    reader, _ = get_user_model().objects.get_or_create(
        username="bench-reader", defaults={"email": "bench-reader@inferview.invalid"}
    )
    client.force_login(reader)
    print("track", track.get_absolute_url())
    print("open", open_q.get_absolute_url())
    print("locked", locked.get_absolute_url())
    print("concept", concept.get_absolute_url())
    print("session", client.cookies["sessionid"].value)


def query_counts(session: str, rows: str) -> None:
    """Print ``queries <row> <n>`` for each ``row=path=mode`` (``;``-separated): the SQL
    queries one request runs, with the caches as the wrk rounds left them. Modes: ``first``
    (a signed-in browser that has not seen the page: a CSRF cookie of its own, the
    tier's shared part already rendered by another reader's visit), ``revisit`` (the same
    browser again) and ``anonymous`` (no cookie at all, after one visit)."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    def client(csrf: str | None) -> Client:
        c = Client(HTTP_HOST="127.0.0.1")
        if csrf:
            c.cookies["sessionid"] = session
            c.cookies["csrftoken"] = csrf
        return c

    for n, row in enumerate(rows.split(";")):
        name, path, mode = row.split("=", 2)
        first, second = f"countwarm{n:023d}", f"countread{n:023d}"
        if mode == "anonymous":
            client(None).get(path)
            reader = client(None)
        elif mode == "revisit":
            reader = client(first)
            reader.get(path)
        else:
            client(first).get(path)
            reader = client(second)
        with CaptureQueriesContext(connection) as ctx:
            status = reader.get(path).status_code
        print("queries", name, len(ctx.captured_queries) if status == 200 else f"status {status}")


def search_machine_ms(queries: str, repeat: int = 100) -> None:
    """Print ``search-ms <query> <python ms> <postgres ms>``: the CPU one computed search
    takes (``questions.search._run``: match, rank, snippets, hits; no page around it), in
    this process and in its PostgreSQL backend (``/proc/<pid>/stat``), each a median over
    ``repeat`` runs read 20 at a time. Signed-in free reader's levels; queries ``;``-separated."""
    import statistics
    import time

    from django.db import connection

    from inferview.access import policy
    from questions import search

    ticks = os.sysconf("SC_CLK_TCK")
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]

    def backend_cpu() -> float:
        fields = Path(f"/proc/{backend}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / ticks  # utime + stime

    levels = tuple(sorted(policy.readable_levels(policy.preview_reader(policy.Tier.FREE))))
    filters = search.SearchFilters()
    for query in queries.split(";"):

        def once(query: str = query) -> None:
            search._run(query, levels, filters, 1, search.PER_PAGE, True)

        once()
        python, postgres = [], []
        for _ in range(max(1, repeat // 20)):  # clock ticks are 10 ms: read 20 runs at a time
            p, g = time.process_time(), backend_cpu()
            for _ in range(20):
                once()
            python.append((time.process_time() - p) / 20 * 1e3)
            postgres.append((backend_cpu() - g) / 20 * 1e3)
        print(
            f"search-ms {query} {statistics.median(python):.3f} {statistics.median(postgres):.3f}"
        )
