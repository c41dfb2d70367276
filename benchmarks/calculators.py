"""Calculator benchmarks: prints figures and ratios from one run.

    python benchmarks/calculators.py            # kernel half, then the API half
    python benchmarks/calculators.py --kernel   # kernel half only

Kernel half: a 10^6-point sweep of decode_bound and roofline in one NumPy kernel call
against the same points computed one by one in a pure-Python loop (target >= 50x).

Also a 100 × 100 grid of serving_estimate (concurrency × prompt length) in one kernel
call against a Python loop over the same 10^4 cells (target >= 50x; --grid runs only it),
each allocator setting in a fresh child process: glibc's default, and the worker's
(calculators.runtime.keep_freed_memory, which the Celery worker applies at start-up).

Also the memory floor: NumPy reading the same inputs and writing as many outputs
(target: kernel within 3x of it).

API half: POST /api/v1/calculators/<slug>/runs/ until the result is stored, with a real
worker, against a no-op Celery task's round trip (p50 and p95; target: p50 within 1.5x),
on the embedded filesystem queue (target: under 150 ms) and, when REDIS_URL is set, on
Redis (with PostgreSQL too when DATABASE_URL names one: the production pair). It also
prints where the API round trip goes: request to row, row to worker, worker to result,
result to client.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

N = 1_000_000


def _best(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def python_decode(params_b, bpp, bw, batch, kv, peak, be, ce):
    """decode_bound for one point in plain Python (the loop baseline)."""
    weight = params_b * bpp
    step = weight + batch * kv
    memory_ms = step / (bw * be)
    compute_ms = 2.0 * params_b * batch / (peak * ce)
    ms = (memory_ms**4 + compute_ms**4) ** 0.25  # composed as the kernel does (STEP_P = 4)
    per_user = 1000.0 / ms
    return weight, step, memory_ms, compute_ms, ms, per_user, per_user * batch


def python_roofline(peak, bw, flops, nbytes):
    ai = flops / nbytes
    ridge = peak / bw
    attainable = min(peak, ai * bw)
    compute_s, memory_s = flops / (peak * 1e12), nbytes / (bw * 1e12)
    return ridge, ai, "compute" if ai >= ridge else "memory", attainable, max(compute_s, memory_s)


def kernel_half() -> None:
    from calculators.kernels import decode_bound, roofline
    from calculators.runtime import keep_freed_memory

    rng = np.random.default_rng(0)
    batch = rng.integers(1, 1024, N)
    bw = rng.uniform(0.3, 8.0, N)
    params = rng.uniform(1, 400, N)
    flops = rng.uniform(1e6, 1e12, N)
    nbytes = rng.uniform(1e6, 1e10, N)
    peak = rng.uniform(100, 2500, N)

    def decode_kernel():
        return decode_bound(
            params_b=params,
            bytes_per_param=2,
            bandwidth_tbs=bw,
            batch_size=batch,
            kv_gb_per_seq=0.001,
            peak_tflops=peak,
            bandwidth_efficiency=0.7,
            compute_efficiency=0.8,
        )

    py_args = list(zip(params.tolist(), bw.tolist(), batch.tolist(), peak.tolist(), strict=True))

    def decode_loop():
        return [python_decode(p, 2.0, b, n, 0.001, pk, 0.7, 0.8) for p, b, n, pk in py_args]

    def roof_kernel():
        return roofline(peak_tflops=peak, bandwidth_tbs=bw, flops=flops, bytes=nbytes)

    roof_args = list(zip(peak.tolist(), bw.tolist(), flops.tolist(), nbytes.tolist(), strict=True))

    def roof_loop():
        return [python_roofline(*a) for a in roof_args]

    # Same numbers both ways, or the comparison means nothing.
    k, loop = decode_kernel(), decode_loop()
    assert np.allclose(k["tokens_per_s_total"][:1000], [r[6] for r in loop[:1000]])
    r, rloop = roof_kernel(), roof_loop()
    assert np.allclose(r["attainable_tflops"][:1000], [x[3] for x in rloop[:1000]])

    # The memory floor: NumPy reading the same inputs and writing as many outputs, one
    # np.add per output (each reads an input array and writes a fresh one).
    decode_inputs, decode_outputs = [params, bw, batch.astype(float), peak], len(k)
    roof_inputs, roof_outputs = [peak, bw, flops, nbytes], len(r)

    def floor(inputs, n_out):
        return lambda: [np.add(inputs[i % len(inputs)], 1.0) for i in range(n_out)]

    floors = {
        "decode_bound": _best(floor(decode_inputs, decode_outputs), repeat=5),
        "roofline": _best(floor(roof_inputs, roof_outputs), repeat=5),
    }
    print(
        f"Kernel half: {N:,}-point sweeps, one kernel call against a pure-Python loop "
        "over the same points (best of 5 and 2), and against the memory floor"
    )
    loops = {}
    for label, tuned in (("default allocator", False), ("worker allocator", True)):
        if tuned:
            # The Celery worker makes this call at start-up (calculators.runtime).
            print(f"  -- {label}: keep_freed_memory() = {keep_freed_memory()}")
        else:
            print(f"  -- {label} (each fresh 8 MB array is faulted in page by page)")
        for name, kern, py in (
            ("decode_bound", decode_kernel, decode_loop),
            ("roofline", roof_kernel, roof_loop),
        ):
            tk = _best(kern, repeat=5)
            if name not in loops:
                loops[name] = _best(py, repeat=2)
            tp = loops[name]
            print(
                f"  {name:13s} kernel {tk * 1000:8.1f} ms   python loop {tp * 1000:8.1f} ms"
                f"   ratio {tp / tk:6.1f}x  (target >= 50x)   memory floor "
                f"{floors[name] * 1000:6.1f} ms: kernel / floor {tk / floors[name]:4.2f}x "
                "(target <= 3x)"
            )


SERVING = dict(
    params_b=70.6,
    layers=80,
    heads=64,
    kv_heads=8,
    head_dim=128,
    device_memory_gb=80.0,
    bandwidth_tbs=3.35,
    peak_tflops=989.0,
    output_tokens=500,
    tp=2,
    bandwidth_efficiency=0.8,
    compute_efficiency=0.5,
    gpu_memory_utilization=0.9,
    gpu_cost_per_hour=2.5,
)
WEIGHT_BYTES, KV_BYTES = 1.0, 1.0  # fp8 weights and KV cache


def python_serving(concurrency, prompt, *, params_b, layers, heads, kv_heads, head_dim,
                   device_memory_gb, bandwidth_tbs, peak_tflops, output_tokens, tp,
                   bandwidth_efficiency, compute_efficiency, gpu_memory_utilization,
                   gpu_cost_per_hour):  # fmt: skip
    """serving_estimate for one cell in plain Python (the loop baseline)."""
    weights_gb = params_b * WEIGHT_BYTES
    per_gpu = weights_gb / tp
    pool_gb = max(device_memory_gb * gpu_memory_utilization - per_gpu, 0.0) * tp
    kv_bpt = 2.0 * layers * kv_heads * head_dim * KV_BYTES
    capacity = math.floor(pool_gb * 1e9 / kv_bpt)
    max_conc = math.floor(capacity / (prompt + output_tokens / 2))  # paged: mean resident
    fits = per_gpu <= device_memory_gb * gpu_memory_utilization and concurrency <= max_conc
    context = prompt + output_tokens / 2
    bw = tp * bandwidth_tbs * 1e12 * bandwidth_efficiency
    flops = tp * peak_tflops * 1e12 * compute_efficiency
    memory_ms = (weights_gb * 1e9 + concurrency * context * kv_bpt) / bw * 1e3
    compute_ms = concurrency * (2 * params_b * 1e9 + 4 * layers * context * heads * head_dim)
    compute_ms = compute_ms / flops * 1e3
    itl = (memory_ms**4 + compute_ms**4) ** 0.25  # composed as the kernel does (STEP_P = 4)
    prefill_flops = 2 * params_b * 1e9 * prompt + 2 * layers * prompt**2 * heads * head_dim
    prefill = ((prefill_flops / flops * 1e3) ** 4 + (weights_gb * 1e9 / bw * 1e3) ** 4) ** 0.25
    request_ms = concurrency * prefill + output_tokens * itl
    total = concurrency * output_tokens / request_ms * 1e3
    cost = gpu_cost_per_hour * tp / 3600 / total * 1e6
    return per_gpu, kv_bpt, pool_gb, capacity, max_conc, fits, prefill, itl, 1e3 / itl, total, cost


def serving_grid(allocator: str, n: int = 100) -> None:
    """serving_estimate over an n × n grid (concurrency × prompt length) in one kernel
    call, against a pure-Python loop over the same n² cells (target >= 50x).

    With glibc's default thresholds every fresh 80 KB output array comes from memory the
    heap just handed back (trimmed), so a call spends more on page faults than on
    arithmetic; the worker's setting keeps freed memory for the next call."""
    from calculators.kernels import serving_estimate
    from calculators.runtime import keep_freed_memory

    if allocator == "worker":
        assert keep_freed_memory(), "mallopt refused: the worker setting cannot be measured"

    concurrency = np.unique(np.geomspace(1, 4096, n).round()).astype(float)
    concurrency = np.linspace(1, 4096, n).round() if concurrency.size < n else concurrency
    prompt = np.linspace(128, 32768, n).round()

    def kernel():
        return serving_estimate(
            **SERVING,
            weight_precision="fp8",
            kv_precision="fp8",
            concurrency=concurrency.reshape(-1, 1),
            prompt_tokens=prompt.reshape(1, -1),
        )

    cells = [(c, q) for c in concurrency.tolist() for q in prompt.tolist()]

    def loop():
        return [python_serving(c, q, **SERVING) for c, q in cells]

    out, rows = kernel(), loop()
    # Same numbers both ways, or the comparison means nothing.
    assert np.allclose(out["tokens_per_s_total"].reshape(-1), [r[9] for r in rows])
    assert (out["max_concurrency"].reshape(-1) == [r[4] for r in rows]).all()
    assert (out["fits"].reshape(-1) == [r[5] for r in rows]).all()
    # Interleaved rounds, so a noisy spell on the machine hits both sides of a ratio: a
    # kernel call of under a millisecond is timed as the mean of 50 back-to-back calls (as
    # timeit does), the loop, tens of milliseconds, as one call. Medians of 9 rounds.
    kernels, loops, ratios = [], [], []
    for _ in range(9):
        tk = _best(lambda: [kernel() for _ in range(50)], repeat=1) / 50
        tp = _best(loop, repeat=1)
        kernels.append(tk)
        loops.append(tp)
        ratios.append(tp / tk)
    tk, tp, ratio = (_percentile(x, 0.5) for x in (kernels, loops, ratios))
    print(
        f"  {allocator + ' allocator:':18s} {len(concurrency)} × {len(prompt)} = "
        f"{len(cells):,} cells, one kernel call {tk * 1000:.2f} ms, "
        f"python loop {tp * 1000:.1f} ms, ratio {ratio:.0f}x "
        f"(rounds {min(ratios):.0f}-{max(ratios):.0f}x; target >= 50x)"
    )


def serving_grids() -> None:
    """The grid under each allocator setting, each in a fresh process (mallopt cannot be
    undone within one)."""
    import subprocess

    print(
        "serving_estimate grid, one kernel call against a Python loop over the same cells "
        "(median of 9 interleaved rounds):"
    )
    for allocator in ("default", "worker"):
        subprocess.run([sys.executable, __file__, "--grid-child", allocator], check=True)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = math.floor(k), math.ceil(k)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def _epoch(stamp: str) -> float:
    """Seconds since the epoch of an API timestamp (same machine, same clock as time.time)."""
    from datetime import datetime

    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def api_half(samples: int, redis_url: str | None, database_url: str | None) -> None:
    """One transport per process (the broker settings are read once): main() runs this
    script again for the second transport. On Redis with a PostgreSQL DATABASE_URL the
    stack runs on a scratch database next to it (the production pair); otherwise on
    its own SQLite file. DEBUG is off (benchmarks.settings) either way."""
    import tempfile

    import requests

    from tests.calculators.stack import running_stack, stack_env

    workdir = Path(tempfile.mkdtemp(prefix="calc-bench-"))
    scratch = None
    if redis_url and database_url:
        from urllib.parse import urlparse, urlunparse

        from benchmarks.pages import recreate_database

        parts = urlparse(database_url)
        name = parts.path.strip("/") + "_calcbench"
        scratch = urlunparse(parts._replace(path="/" + name))
        recreate_database(database_url, name)
    settings_module = "benchmarks.settings"
    # This process talks to the same broker and result store as the stack it starts.
    os.environ.pop("REDIS_URL", None)
    os.environ.pop("DATABASE_URL", None)
    os.environ.update(
        stack_env(workdir, redis_url, database_url=scratch, settings_module=settings_module)
    )
    import django

    django.setup()
    from inferview.celery import app

    with running_stack(
        workdir,
        redis_url=redis_url,
        web_workers=2,
        concurrency=2,
        database_url=scratch,
        settings_module=settings_module,
    ) as stack:
        session = requests.Session()

        def noop_round_trip() -> float:
            t0 = time.perf_counter()
            # A short polling interval: the file result backend is polled, not pushed.
            app.send_task("calculators.noop", queue="calculators").get(timeout=30, interval=0.002)
            return time.perf_counter() - t0

        counter = iter(range(10**9))
        #: per round trip: (sent -> row created, created -> worker started,
        #: started -> result written, written -> client has it), in seconds
        segments: list[tuple[float, float, float, float]] = []

        def api_round_trip() -> float:
            # Distinct inputs every time, or the stored result would answer without a task.
            body = {
                "inputs": {
                    "params_b": 1 + next(counter) / 1000,
                    "bytes_per_param": 2,
                    "batch_size": [1, 8, 32],
                },
                "preset": "h100-sxm",
            }
            sent, t0 = time.time(), time.perf_counter()
            response = session.post(
                stack.api("decode_bound/runs/") + "?wait=5", json=body, timeout=30
            )
            run = response.json()
            while run["status"] not in ("done", "failed"):
                time.sleep(0.001)
                run = session.get(run["url"], timeout=30).json()
            elapsed = time.perf_counter() - t0
            received = time.time()
            assert run["status"] == "done", run
            created, started, finished = (
                _epoch(run[k]) for k in ("created_at", "started_at", "finished_at")
            )
            segments.append(
                (created - sent, started - created, finished - started, received - finished)
            )
            return elapsed

        for _ in range(10):  # warm both paths: worker children, connections, imports
            noop_round_trip()
            api_round_trip()
        del segments[:]
        noop, api = [], []
        for _ in range(samples):  # interleaved, so drift affects both alike
            noop.append(noop_round_trip())
            api.append(api_round_trip())

    transport = "Celery + Redis" if redis_url else "Celery + embedded filesystem queue"
    database = "PostgreSQL" if scratch else "SQLite"
    print(
        f"API half: {samples} round trips each, {transport}, {database}, "
        "prefork worker (2 processes), gunicorn (2 workers), DEBUG off"
    )
    for label, xs in (("no-op task (send + result)", noop), ("POST run -> stored result", api)):
        print(
            f"  {label:28s} p50 {_percentile(xs, 0.5) * 1000:7.1f} ms   "
            f"p95 {_percentile(xs, 0.95) * 1000:7.1f} ms"
        )
    names = (
        "request in -> row created (HTTP, validation, insert)",
        "row created -> worker started (commit, publish, broker)",
        "worker started -> result written (kernel, steps, write)",
        "result written -> client has it (notice, serialise, HTTP)",
    )
    print("  where the API round trip goes (p50 of each part):")
    for i, name in enumerate(names):
        part = _percentile([seg[i] for seg in segments], 0.5)
        print(f"    {name:58s} {part * 1000:6.1f} ms")
    ratio50 = _percentile(api, 0.5) / _percentile(noop, 0.5)
    ratio95 = _percentile(api, 0.95) / _percentile(noop, 0.95)
    print(f"  ratio API / no-op: p50 {ratio50:.2f}x (target <= 1.5x), p95 {ratio95:.2f}x")
    if not redis_url:
        print(f"  POST -> result p50 {_percentile(api, 0.5) * 1000:.1f} ms (target < 150 ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernel", action="store_true", help="kernel half only")
    parser.add_argument("--api", action="store_true", help="API half only")
    parser.add_argument("--grid", action="store_true", help="serving_estimate grid only")
    parser.add_argument("--samples", type=int, default=100, help="API round trips per case")
    parser.add_argument("--transport", choices=["redis", "embedded"], help=argparse.SUPPRESS)
    parser.add_argument("--grid-child", choices=["default", "worker"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.transport:  # a child run for one transport
        on_redis = args.transport == "redis"
        database_url = os.environ.get("DATABASE_URL", "")
        api_half(
            args.samples,
            os.environ.get("REDIS_URL") if on_redis else None,
            database_url if on_redis and database_url.startswith("postgres") else None,
        )
        return
    if args.grid_child:  # one grid measurement in a fresh process
        serving_grid(args.grid_child)
        return
    if args.grid:
        serving_grids()
        return
    if not args.api:
        kernel_half()
        serving_grids()
    if not args.kernel:
        import subprocess

        transports = ["embedded"] + (["redis"] if os.environ.get("REDIS_URL") else [])
        if "redis" not in transports:
            print("API half on Redis: skipped (set REDIS_URL=redis://host:port/db)")
        for transport in transports:
            subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--transport",
                    transport,
                    "--samples",
                    str(args.samples),
                ],
                check=True,
            )


if __name__ == "__main__":
    main()
