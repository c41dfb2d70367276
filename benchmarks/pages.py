"""Page benchmark: gunicorn on PostgreSQL and Redis, driven by wrk, from one run.

    DATABASE_URL=postgres://... REDIS_URL=redis://... python benchmarks/pages.py
    python benchmarks/pages.py --rounds 5 --seconds 5 --sizes 72,2000

What it does, all in this process tree:
1. Creates a scratch database ``<name>_bench`` next to DATABASE_URL's, migrates it and
   imports the shipped content (the real pages, real sizes).
2. Starts gunicorn with production's ``gunicorn.conf.py`` (worker recycling, the
   application preloaded and warmed) as 2 sync workers with one thread each (gunicorn
   runs a "sync" worker with more than one thread as gthread, keeping connections alive
   in one process while the other idles) and settings as production runs
   them (DEBUG off), with the site's URLs plus ``/__bare__/``: a view that returns "ok"
   through the same middleware stack. That is the floor every page is compared with.
3. Runs wrk (c=8, 2 threads) against each page in interleaved rounds (a shuffled order per
   round, the bare view measured in every round) and prints, per page, the median
   requests/s, the ratio to the bare view of the same round, and p50/p99 latency.
4. Rebuilds the scratch database with N synthetic questions for each size in --sizes and
   prints, signed in, the search page (its shared result cache warm, and with a query never
   asked before on every request) and a track page at each size: the ratio to the bare
   view of the same round, the p50, and the p50's ratio to the smallest size. Then, at
   each size, the CPU one computed search takes on its own (Python and its PostgreSQL
   backend, no page) and the ceiling that puts on the "results computed" row: the ratio a
   search could reach if its page and the server cost nothing.

Needs wrk (Debian: apt-get install wrk), PostgreSQL and Redis. Prints figures only; the
targets are in the performance issue (pages at 0.6x the bare view with p99 within 3x
p50; signed-in question page 0.3x; search 0.3x; search and track p50 flat in size).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlparse, urlunparse

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


#: A CSRF cookie as a browser keeps it (any 32 letters are a valid secret).
BROWSER_CSRF = "benchcsrf" * 3 + "bench"
PORT = int(os.environ.get("BENCH_PORT") or _free_port())  # a fixed port may be taken
BASE = f"http://127.0.0.1:{PORT}"


def _die(message: str) -> None:
    print(message, file=sys.stderr)
    sys.exit(2)


def scratch_url(url: str) -> str:
    parts = urlparse(url)
    return urlunparse(parts._replace(path=parts.path.rstrip("/") + "_bench"))


def env_for(db_url: str) -> dict[str, str]:
    return {
        **os.environ,
        "DATABASE_URL": db_url,
        "DJANGO_SETTINGS_MODULE": "benchmarks.settings",
        "PYTHONPATH": str(ROOT),
    }


def manage(env: dict[str, str], *args: str) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )
    if result.returncode:
        _die(f"manage.py {' '.join(args)} failed:\n{result.stderr[-3000:]}")
    return result.stdout


def recreate_database(admin_url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def prepare(env: dict[str, str], synthetic: int | None) -> dict[str, str]:
    """Migrate, load content (shipped or synthetic) and return the URLs to measure."""
    manage(env, "migrate", "--noinput", "-v0")  # the scratch database only
    if synthetic is None:
        manage(env, "import_content", "-v0")
    else:
        manage(env, "shell", "-c", f"from benchmarks.synthetic import build; build({synthetic})")
    out = manage(env, "shell", "-c", "from benchmarks.synthetic import targets; targets()")
    return dict(
        line.split(" ", 1)
        for line in out.strip().splitlines()
        if line.startswith(("track ", "open ", "locked ", "concept ", "session "))
    )


def start_gunicorn(env: dict[str, str]) -> subprocess.Popen:
    gunicorn = Path(sys.executable).with_name("gunicorn")
    proc = subprocess.Popen(
        # production's gunicorn.conf.py (worker recycling, preloading, heartbeat in
        # /dev/shm), with the 2 sync workers: --threads 1, or gunicorn runs
        # gthread (the config's threads) whatever the worker class says
        [str(gunicorn), "-c", str(ROOT / "gunicorn.conf.py"), "benchmarks.wsgi",
         "--bind", f"127.0.0.1:{PORT}", "--workers", "2", "--worker-class", "sync", "--threads", "1",
         "--log-level", "warning"],
        cwd=ROOT, env=env, start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", PORT), timeout=0.5).close()
            return proc
        except OSError:
            time.sleep(0.2)
    _die("gunicorn did not start")
    raise AssertionError


def stop(proc: subprocess.Popen) -> None:
    os.killpg(proc.pid, signal.SIGTERM)
    proc.wait(timeout=20)


LATENCY = re.compile(r"^\s+(50|99)(?:\.0+)?%\s+([\d.]+)(us|ms|s)\s*$", re.MULTILINE)
RATE = re.compile(r"Requests/sec:\s+([\d.]+)")
UNIT = {"us": 1e-3, "ms": 1.0, "s": 1e3}


#: A browser that has never seen the page: every request carries a CSRF cookie of its own
#: (a new 32-digit secret per request and wrk thread), so no reader's own copy of the page
#: can answer it, only what is shared. ``{session}`` is the signed-in reader's session.
FIRST_VIEW_LUA = """
local n = 0
local id = 0
function setup(thread)
  id = id + 1
  thread:set("tid", id)
end
function request()
  n = n + 1
  local secret = string.format("%08d%024d", tid, n)
  return wrk.format(nil, nil, {["Cookie"] = "sessionid={session}; csrftoken=" .. secret})
end
"""
FIRST_VIEW = "first-view"


def wrk(url: str, seconds: int, cookie: str | None = None) -> tuple[float, float, float]:
    """(requests/s, p50 ms, p99 ms) from one wrk run; non-2xx answers abort the run.
    ``cookie`` ``first-view:<session>`` sends each request as a new browser's first view."""
    cmd = ["wrk", "-t2", "-c8", f"-d{seconds}s", "--latency", url]
    if cookie and cookie.startswith(FIRST_VIEW):
        script = Path(os.environ.get("TMPDIR", "/tmp")) / f"bench-first-view-{os.getpid()}.lua"
        session = cookie.split(":", 1)[1]
        script.write_text(FIRST_VIEW_LUA.replace("{session}", session))
        cmd[1:1] = ["-s", str(script)]
    elif cookie:
        cmd[1:1] = ["-H", f"Cookie: {cookie}"]
    return _run_wrk(cmd, url)


def _run_wrk(cmd: list[str], what: str) -> tuple[float, float, float]:
    """Run wrk and read (requests/s, p50 ms, p99 ms); non-2xx answers abort the run."""
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    if "Non-2xx" in out:
        _die(f"{what} answered non-2xx:\n{out}")
    lat = {p: float(v) * UNIT[u] for p, v, u in LATENCY.findall(out)}
    rate = RATE.search(out)
    if rate is None or set(lat) != {"50", "99"}:
        _die(f"could not read wrk's output for {what}:\n{out}")
    return float(rate.group(1)), lat["50"], lat["99"]


def rounds(
    pages: dict[str, tuple[str, str | None]],
    n: int,
    seconds: int,
    queries: Callable[[], dict[str, str]] | None = None,
    bare_seen: list[float] | None = None,
) -> None:
    """Measure each page against the bare view, round by round (``bare_seen`` collects the
    bare view's requests/s of each round); then count each row's
    queries (``queries``) with the caches as the rounds left them: the steady state a
    reader meets, not the first seconds after the benchmark's own sign-in (whose write
    the reader cache tombstones for a few seconds)."""
    results: dict[str, list[tuple[float, float, float, float]]] = {k: [] for k in pages}
    for r in range(n):
        order = list(pages)
        random.Random(r).shuffle(order)
        bare_rps, bare_p50, bare_p99 = wrk(f"{BASE}/__bare__/", seconds)
        if not bare_rps:
            _die("the bare view answered nothing in time: is the machine overloaded?")
        # its own tail too: what of a page's p99/p50 the machine and server add anyway
        results.setdefault("bare view", []).append((bare_rps, 1.0, bare_p50, bare_p99))
        for name in order:
            url, cookie = pages[name]
            rps, p50, p99 = wrk(url, seconds, cookie)
            results[name].append((rps, rps / bare_rps, p50, p99))
    counted = queries() if queries else {}
    if bare_seen is not None:
        bare_seen.extend(x[0] for x in results["bare view"])
    print(
        f"\n{'page':36} {'req/s':>8} {'/ bare':>7} {'p50 ms':>8} {'p99 ms':>8} {'p99/p50':>8}"
        f" {'queries':>8}"
    )
    for name, rows in results.items():
        rps = statistics.median(x[0] for x in rows)
        ratio = statistics.median(x[1] for x in rows)
        p50 = statistics.median(x[2] for x in rows)
        p99 = statistics.median(x[3] for x in rows)
        tail = f"{p99 / p50:8.2f}" if p50 else f"{'':>8}"
        print(
            f"{name:36} {rps:8.0f} {ratio:7.3f} {p50:8.1f} {p99:8.1f} {tail}"
            f" {counted.get(name, ''):>8}"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=4)
    parser.add_argument("--sizes", default="72,2000", help='"" skips the size table')
    parser.add_argument("--only-sizes", action="store_true", help="skip the page table")
    args = parser.parse_args()
    if not shutil.which("wrk"):
        _die("wrk not found (apt-get install wrk)")
    db_url, redis_url = os.environ.get("DATABASE_URL", ""), os.environ.get("REDIS_URL", "")
    if not db_url.startswith("postgres") or not redis_url:
        _die(
            "set DATABASE_URL (PostgreSQL) and REDIS_URL: the benchmark measures the production pair"
        )
    bench_url = scratch_url(db_url)
    name = urlparse(bench_url).path.lstrip("/")
    env = env_for(bench_url)

    if not args.only_sizes:
        page_table(db_url, name, env, args)
    if args.sizes:
        size_table(db_url, name, env, args)


def page_table(db_url: str, name: str, env: dict[str, str], args: argparse.Namespace) -> None:
    recreate_database(db_url, name)
    urls = prepare(env, None)
    proc = start_gunicorn(env)
    try:
        session = urls.pop("session")
        signed = f"sessionid={session}; csrftoken={BROWSER_CSRF}"
        first = f"{FIRST_VIEW}:{session}"
        calculator, search = "/calculators/decode_bound/", "/search/?q=kv+cache"
        pages = {
            "home": (f"{BASE}/", None),
            "track": (BASE + urls["track"], None),
            "open question (anonymous)": (BASE + urls["open"], None),
            "locked question (anonymous)": (BASE + urls["locked"], None),
            "concept": (BASE + urls["concept"], None),
            'search "kv cache"': (BASE + search, None),
            # the floor of every signed-in row: the same "ok", after the session and the
            # reader are loaded (one Redis round trip once a worker knows the session)
            "bare view (signed in)": (f"{BASE}/__bare__/", signed),
            # the rows: a signed-in free learner
            "question, first view (signed in)": (BASE + urls["open"], first),
            # a browser holds its CSRF cookie after its first page: the reader's own copy
            "question, revisit (signed in)": (BASE + urls["open"], signed),
            'search "kv cache" (signed in)': (BASE + search, first),
            "calculator (anonymous)": (BASE + calculator, None),
            "calculator (signed in)": (BASE + calculator, first),
        }
        counted = {
            "question, first view (signed in)": (urls["open"], "first"),
            "question, revisit (signed in)": (urls["open"], "revisit"),
            'search "kv cache" (signed in)': (search, "first"),
            "calculator (anonymous)": (calculator, "anonymous"),
            "calculator (signed in)": (calculator, "first"),
            "open question (anonymous)": (urls["open"], "anonymous"),
        }
        print(f"Shipped content; gunicorn 2 sync workers; wrk c=8 for {args.seconds} s; "
              f"{args.rounds} interleaved rounds; medians.")  # fmt: skip
        bare: list[float] = []
        rounds(pages, args.rounds, args.seconds, lambda: count_queries(env, session, counted), bare)
    finally:
        stop(proc)
    # the shipped content's computed search, as the size table does for synthetic questions
    search_ceiling([0], {0: bare}, {0: search_cpu(env)}, label="shipped content")


def count_queries(
    env: dict[str, str], session: str, rows: dict[str, tuple[str, str]]
) -> dict[str, str]:
    """The SQL queries of one request per row (``synthetic.query_counts``), with the caches
    the rounds are about to use."""
    spec = ";".join(f"{name}={path}={mode}" for name, (path, mode) in rows.items())
    code = f"from benchmarks.synthetic import query_counts; query_counts({session!r}, {spec!r})"
    out = manage(env, "shell", "-c", code)
    found = {}
    for line in out.splitlines():
        if line.startswith("queries "):
            name, _, n = line[len("queries ") :].rpartition(" ")
            found[name] = n
    return found


#: Each request of the "results computed" search row is a query no one asked before: the
#: same words with a suffix of punctuation (which search ignores) counting up per thread,
#: so the search's shared result cache never answers and every request ranks afresh.
COLD_SEARCH_LUA = """
local n, marks = 0, {"-", ".", "~", "!", "*", "(", ")", ","}
local id = 0
function setup(thread) thread:set("id", math.random(1, 1000000000)) end
function init(args) id = wrk.thread:get("id") end
request = function()
  n = n + 1
  local k, s = id * 100000 + n, ""
  while k > 0 do s = s .. marks[(k % 8) + 1]; k = math.floor(k / 8) end
  return wrk.format("GET", "/search/?q=kv+cache+" .. s, {["Cookie"] = "{cookie}"})
end
"""


def wrk_cold_search(seconds: int, cookie: str) -> tuple[float, float, float]:
    """As ``wrk``, for the search page with a query never seen before on every request."""
    script = Path(os.environ.get("TMPDIR", "/tmp")) / f"bench-cold-search-{os.getpid()}.lua"
    script.write_text(COLD_SEARCH_LUA.replace("{cookie}", cookie))
    cmd = ["wrk", "-t2", "-c8", f"-d{seconds}s", "--latency", "-s", str(script), BASE + "/"]
    return _run_wrk(cmd, "the search page (a new query each request)")


def warm_up(urls: list[str], cookie: str, deadline_s: float = 60) -> None:
    """One answered request per URL before measuring: gunicorn accepts connections before
    its workers have finished booting, and a wrk run in that gap measures nothing."""
    import urllib.request

    deadline = time.monotonic() + deadline_s
    for url in urls:
        while True:
            request = urllib.request.Request(url, headers={"Cookie": cookie})
            try:
                with urllib.request.urlopen(request, timeout=10) as response:
                    response.read()
                break
            except OSError:
                if time.monotonic() > deadline:
                    _die(f"{url} did not answer within {deadline_s:.0f} s")
                time.sleep(0.5)


def size_table(db_url: str, name: str, env: dict[str, str], args: argparse.Namespace) -> None:
    """Signed-in search and track page at each synthetic size, in interleaved rounds with
    the bare view: req/s ratio to the bare view of the same round, and p50."""
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = ("search", "search, results computed", "track")
    found: dict[int, dict[str, list[tuple[float, float]]]] = {}
    bare_rps: dict[int, list[float]] = {}
    search_ms: dict[int, dict[str, tuple[float, float]]] = {}
    for size in sizes:
        recreate_database(db_url, name)
        urls = prepare(env, size)
        proc = start_gunicorn(env)
        try:
            # Signed in, so the page cache cannot flatter the figure: this is the render.
            cookie = f"sessionid={urls['session']}"
            search_url, track_url = f"{BASE}/search/?q=kv+cache", BASE + urls["track"]
            found[size] = {row: [] for row in rows}
            warm_up([f"{BASE}/__bare__/", search_url, track_url], cookie)
            for _ in range(args.rounds):
                bare = wrk(f"{BASE}/__bare__/", args.seconds)[0]
                if not bare:
                    _die("the bare view answered nothing in time: is the machine overloaded?")
                bare_rps.setdefault(size, []).append(bare)
                for row, (rps, p50, _p99) in {
                    "search": wrk(search_url, args.seconds, cookie),
                    "search, results computed": wrk_cold_search(args.seconds, cookie),
                    "track": wrk(track_url, args.seconds, cookie),
                }.items():
                    found[size][row].append((rps / bare, p50))
        finally:
            stop(proc)
        search_ms[size] = search_cpu(env)
    base = sizes[0]
    print(f"\nSigned in; {args.rounds} rounds; medians; x = p50 / p50 at {base} questions.")
    print(f"{'synthetic questions':>20} {'page':26} {'/ bare':>7} {'p50 ms':>8} {'x':>6}")
    for size in sizes:
        for row in rows:
            ratio = statistics.median(r for r, _ in found[size][row])
            p50 = statistics.median(p for _, p in found[size][row])
            p50_base = statistics.median(p for _, p in found[base][row])
            print(f"{size:>20} {row:26} {ratio:7.3f} {p50:8.1f} {p50 / p50_base:6.2f}")
    search_ceiling(sizes, bare_rps, search_ms)


#: The queries whose computed search is timed on its own (``synthetic.search_machine_ms``).
CEILING_QUERIES = ("kv cache", "paged attention", "tensor parallel", "roofline")


def search_cpu(env: dict[str, str]) -> dict[str, tuple[float, float]]:
    """{query: (Python ms, PostgreSQL ms)}: the CPU of one computed search, no page."""
    code = (
        "from benchmarks.synthetic import search_machine_ms; "
        f"search_machine_ms({';'.join(CEILING_QUERIES)!r})"
    )
    found = {}
    for line in manage(env, "shell", "-c", code).splitlines():
        if line.startswith("search-ms "):
            query, python, postgres = line[len("search-ms ") :].rsplit(" ", 2)
            found[query] = (float(python), float(postgres))
    return found


def search_ceiling(
    sizes: list[int],
    bare_rps: dict[int, list[float]],
    search_ms: dict[int, dict[str, tuple[float, float]]],
    label: str = "synthetic questions",
) -> None:
    """An estimate of the most a computed search could reach against the bare view on this
    machine if its page, the server and the network cost nothing: the machine's cores are
    shared by wrk, gunicorn, PostgreSQL and Redis, so a bare request costs ``cores / bare
    req/s`` of CPU, and a search can run no more often than ``cores / (its own CPU)``. An
    estimate, not a bound: the search's CPU is measured in a shell process, one query
    repeated, PostgreSQL's in 10 ms clock ticks, and can run above what the same search
    costs inside the server (at 300 synthetic questions it equalled the measured ratio)."""
    cores = os.cpu_count() or 1
    print(
        f"\nComputed search's own CPU (questions.search._run: match, rank, snippets, hits; "
        f"no page), median per query; {cores} cores."
    )
    print(
        f"{label:>20} {'query':18} {'python ms':>10} {'postgres ms':>12}"
        f" {'bare CPU ms':>12} {'ceiling':>8}"
    )
    for size in sizes:
        bare_cpu = cores / statistics.median(bare_rps[size]) * 1e3
        for query, (python, postgres) in search_ms[size].items():
            ceiling = bare_cpu / (python + postgres)
            print(
                f"{size or '':>20} {query:18} {python:10.2f} {postgres:12.2f} {bare_cpu:12.2f}"
                f" {ceiling:7.3f}x"
            )


if __name__ == "__main__":
    main()
