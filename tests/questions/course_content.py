"""A small content folder with a course in it, built by the tests (never the writers'
files): two concepts, one track of three questions, two parts of lessons and the
lessons' diagrams. ``lesson_file`` writes one lesson that passes every lesson rule;
a test breaks one thing at a time through its keyword arguments."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import yaml

CONCEPTS = ("roofline-model", "kv-cache")
TRACK = "inference-serving"
QUESTIONS = ("why-decode-is-slow", "ttft-vs-itl", "kv-cache-size")
DIAGRAM = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 640 200">'
    '<rect width="640" height="200" fill="#fff"/><text x="20" y="40" font-size="16">'
    "prefill then decode</text></svg>\n"
)
WORDS = (
    "decode reads every weight once per step while prefill multiplies a whole prompt "
    "through the same matrices so its arithmetic intensity climbs with the prompt length "
    "and the tensor cores stay busy memory bandwidth sets the ceiling for small batches "
    "the scheduler packs requests together the cache grows with context each sequence "
    "keeps keys and values for every layer latency budgets split into first token and "
    "steady streaming throughput rises until compute saturates"
).split()
SECRET = "ZEBRAQUOKKA"  # a word only lesson bodies hold, for leak checks


def _front(meta: dict[str, Any], body: str) -> str:
    header = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=1000).strip()
    return f"---\n{header}\n---\n{body.strip()}\n"


def body_text(slug: str, *, words: int = 1700, sections: int = 5, calc: bool = True,
              diagram: str | None = "default", summary: bool = True) -> str:  # fmt: skip
    """A lesson body of about ``words`` words in ``sections`` ``##`` sections, with a
    worked-steps block and the lesson's own diagram; sentences differ between slugs."""
    rng = random.Random(slug)
    names = [f"Section {n} of {slug}" for n in range(1, sections)]
    names.append("Summary" if summary else f"Section {sections} of {slug}")
    per = words // sections
    parts = []
    for n, name in enumerate(names):
        sentences = []
        for _ in range(per // 10):
            sentences.append(" ".join(rng.choice(WORDS) for _ in range(10)).capitalize() + ".")
        text = " ".join(sentences)
        if n == 0:
            text = f"{SECRET} {slug} opens here. " + text
            if calc:
                text += (
                    "\n\n{{calc kv_cache model=llama-3.1-8b batch_size=1 seq_len=8192}}\n\n"
                    "That is the cache of one sequence: {{calc kv_cache model=llama-3.1-8b "
                    "batch_size=1 seq_len=8192 -> total_gb}}."
                )
            if diagram:
                src = f"diagrams/lesson-{slug}-phases.svg" if diagram == "default" else diagram
                text += f'\n\n![Prefill then decode on a timeline]({src} "The two phases")'
        parts.append(f"## {name}\n\n{text}")
    return "\n\n".join(parts)


CHECK = [
    {
        "kind": "choice",
        "prompt": "Which phase is memory-bound at batch 1?",
        "choices": ["Prefill", "Decode", "Both equally"],
        "answer": 1,
        "explain": "Decode reads every weight for one token.",
    },
    {
        "kind": "number",
        "prompt": "KV cache of one 8k sequence of Llama 3.1 8B in BF16, in GB?",
        "calculator": "kv_cache",
        "inputs": {"model": "llama-3.1-8b", "batch_size": 1, "seq_len": 8192},
        "output": "total_gb",
        "unit": "GB",
        "tolerance": 0.05,
        "explain": "About {{calc kv_cache model=llama-3.1-8b batch_size=1 seq_len=8192 -> total_gb}}.",
    },
    {
        "kind": "choice",
        "prompt": "What grows with context length?",
        "choices": ["The weights", "The KV cache", "The vocabulary"],
        "answer": 1,
        "explain": "Keys and values are kept per token.",
    },
]


def lesson_meta(slug: str, number: int, *, access: str, **overrides: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "number": number,
        "slug": slug,
        "title": f"Lesson {slug}",
        "summary": f"After {slug} you can size a decode step.",
        "level": "foundations",
        "access": access,
        "minutes": 9,
        "prerequisites": [],
        "concepts": list(CONCEPTS),
        "questions": [f"{TRACK}/{q}" for q in QUESTIONS],
        "published": True,
        "published_at": "2026-12-01",
        "checked": "2026-12",
        "references": [
            {
                "title": "PagedAttention",
                "publisher": "arXiv:2309.06180",
                "year": 2023,
                "url": "https://arxiv.org/abs/2309.06180",
            },
            {
                "title": "FlashAttention",
                "publisher": "arXiv:2205.14135",
                "year": 2022,
                "url": "https://arxiv.org/abs/2205.14135",
            },
        ],  # fmt: skip
        "check": [dict(item) for item in CHECK],
    }
    for key, value in overrides.items():
        if value is None:
            meta.pop(key, None)
        else:
            meta[key] = value
    return meta


def lesson_file(root: Path, part_dir: str, slug: str, number: int, *, access: str,
                body: str | None = None, **meta: Any) -> Path:  # fmt: skip
    path = root / "lessons" / part_dir / f"{number:02d}-{slug}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        _front(lesson_meta(slug, number, access=access, **meta), body or body_text(slug))
    )
    diagram = root / "diagrams" / f"lesson-{slug}-phases.svg"
    diagram.parent.mkdir(parents=True, exist_ok=True)
    diagram.write_text(DIAGRAM)
    return path


def part_file(root: Path, number: int, slug: str) -> str:
    folder = f"{number:02d}-{slug}"
    path = root / "lessons" / folder / "_part.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        _front(
            {
                "number": number,
                "slug": slug,
                "title": f"Part {slug}",
                "summary": f"What {slug} covers.",
            },
            f"Introducing {slug}.",
        )  # fmt: skip
    )
    return folder


def base_content(root: Path) -> None:
    """Concepts and a track of questions the lessons link."""
    for slug in CONCEPTS:
        (root / "concepts").mkdir(parents=True, exist_ok=True)
        (root / "concepts" / f"{slug}.md").write_text(
            _front(
                {
                    "slug": slug,
                    "title": slug.replace("-", " ").title(),
                    "category": "serving",
                    "level": "foundations",
                    "access": "open",
                    "summary": f"About {slug}.",
                    "checked": "2026-12",
                },
                f"The {slug} explained.",
            )  # fmt: skip
        )
    track = root / "tracks" / TRACK
    track.mkdir(parents=True, exist_ok=True)
    (track / "_track.md").write_text(
        _front(
            {
                "slug": TRACK,
                "title": "Inference and serving",
                "category": "serving",
                "icon": "serving",
                "order": 1,
                "summary": "Serving.",
            },
            "Serving questions.",
        )  # fmt: skip
    )
    for n, slug in enumerate(QUESTIONS, start=1):
        (track / f"{n:02d}-{slug}.md").write_text(
            _front(
                {
                    "number": n,
                    "slug": slug,
                    "title": f"Question {slug}?",
                    "summary": "Separates things.",
                    "difficulty": "medium",
                    "kind": "explain",
                    "access": "open",
                    "concepts": list(CONCEPTS),
                    "published": True,
                    "published_at": "2026-11-01",
                },
                f"The scenario of {slug}.\n\n<!-- answer -->\n\nThe answer of {slug}.",
            )  # fmt: skip
        )


def course(root: Path) -> Path:
    """Base content and a course of two parts: part 1 (foundations) with three lessons
    (open, account, account), part 2 (hardware, number 3) with two (open, premium)."""
    base_content(root)
    one = part_file(root, 1, "foundations")
    lesson_file(root, one, "how-a-request-flows", 1, access="open")
    lesson_file(root, one, "prefill-and-decode", 2, access="account",
                prerequisites=["how-a-request-flows"])  # fmt: skip
    lesson_file(root, one, "batching-basics", 3, access="account")
    three = part_file(root, 3, "hardware")
    lesson_file(root, three, "inside-a-gpu", 1, access="open")
    lesson_file(root, three, "memory-walls", 2, access="premium",
                prerequisites=["inside-a-gpu", "prefill-and-decode"])  # fmt: skip
    return root
