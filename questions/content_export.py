"""Content to files: the inverse of ``content_io.import_content``.

Export is deterministic, so export, import, export gives byte-identical files: LF line
endings whatever the browser sent, front matter keys in a fixed order, lists sorted, one
trailing newline. Files of items that no longer exist (a question renumbered, a concept
deleted) are removed, so the folder holds exactly the database's content. Exported items
are marked synced: the files now hold what the database holds.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import yaml
from django.db import transaction
from django.db.models import F

from .content_format import ANSWER_SEPARATOR
from .content_lessons import export_lessons
from .models import Concept, Guide, Lesson, Part, Question, Track

SUBFOLDERS = ("concepts", "tracks", "guides", "lessons")
REFERENCE_FIELDS = ("title", "publisher", "year", "url")


def _references(refs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Fields in a fixed order: PostgreSQL's jsonb keeps keys in its own order."""
    return [{f: ref[f] for f in REFERENCE_FIELDS if f in ref} for ref in refs]


def _dt(value: dt.datetime | None) -> str | None:
    return value.astimezone(dt.UTC).isoformat() if value else None


def _checked(obj: Any) -> dict[str, str]:
    """``checked: YYYY-MM`` when the item has one (files without it stay without it)."""
    return {"checked": obj.checked} if obj.checked else {}


def _lf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n").strip()


def _write(path: Path, meta: dict, content: str, written: set[Path]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    header = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=1000).strip()
    data = f"---\n{header}\n---\n{_lf(content)}\n".encode()
    if not path.exists() or path.read_bytes() != data:
        path.write_bytes(data)
    written.add(path.resolve())


def _question_meta(q: Question) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "key": q.key, "number": q.number, "slug": q.slug, "title": q.title,
        "summary": q.summary, "difficulty": q.difficulty, "kind": q.kind, "access": q.access,
        "concepts": sorted(c.slug for c in q.concepts.all()),
        "published": q.published, "published_at": _dt(q.published_at),
        "updated_at": _dt(q.updated_at), **_checked(q),
    }  # fmt: skip
    embeds = [
        {
            "calculator": e.calculator,
            "preset": e.preset or None,
            "inputs": e.inputs,
            **({"label": e.label} if e.label else {}),
        }
        for e in q.calculator_embeds.all()
    ]
    if embeds:
        meta["calculators"] = embeds
    meta.update(q.practice or {})
    if q.key_points:
        meta["key_points"] = list(q.key_points)
    if q.references:
        meta["references"] = _references(q.references)
    return meta


@transaction.atomic
def export_content(root: Path) -> int:
    """Write every track, question, concept and guide under ``root`` and remove content
    files there that no item wrote; returns the number of files written."""
    root = Path(root)
    written: set[Path] = set()
    for c in Concept.objects.order_by("slug"):
        meta = {
            "slug": c.slug, "title": c.title, "category": c.category, "level": c.level,
            "access": c.access, "summary": c.summary, "published": c.published,
            "published_at": _dt(c.published_at), "updated_at": _dt(c.updated_at),
            **_checked(c),
        }  # fmt: skip
        if c.references:
            meta["references"] = _references(c.references)
        _write(root / "concepts" / f"{c.slug}.md", meta, c.body, written)
    for t in Track.objects.order_by("order", "slug"):
        d = root / "tracks" / t.slug
        meta = {
            "slug": t.slug, "title": t.title, "category": t.category, "icon": t.icon,
            "order": t.order, "summary": t.summary, "published": t.published,
            "published_at": _dt(t.published_at), "updated_at": _dt(t.updated_at),
        }  # fmt: skip
        _write(d / "_track.md", meta, t.description, written)
        questions = t.questions.order_by("number").prefetch_related("concepts", "calculator_embeds")
        for q in questions:
            text = f"{_lf(q.body)}\n\n{ANSWER_SEPARATOR}\n\n{_lf(q.answer)}"
            _write(d / f"{q.number:02d}-{q.slug}.md", _question_meta(q), text, written)
    for g in Guide.objects.order_by("slug"):
        d = root / "guides" / g.slug
        meta = {
            "slug": g.slug, "title": g.title, "summary": g.summary, "published": g.published,
            "published_at": _dt(g.published_at), "updated_at": _dt(g.updated_at),
            **_checked(g),
        }  # fmt: skip
        _write(d / "_guide.md", meta, g.intro, written)
        sections = g.sections.order_by("order", "id").prefetch_related("concepts", "items")
        for n, s in enumerate(sections, start=1):
            items = "\n\n".join(f"## {i.kind}: {i.title}\n\n{_lf(i.body)}" for i in s.items.all())
            meta = {
                "order": s.order, "slug": s.slug, "title": s.title,
                "concepts": sorted(c.slug for c in s.concepts.all()), **_checked(s),
            }  # fmt: skip
            body = f"{_lf(s.intro)}\n\n{items}" if s.intro else items
            _write(d / f"{n:02d}-{s.slug}.md", meta, body, written)
    export_lessons(root, lambda path, meta, body: _write(path, meta, body, written))
    _remove_stale(root, written)
    for model in (Track, Concept, Question, Guide, Part, Lesson):
        model.objects.exclude(synced_hash=F("content_hash")).update(synced_hash=F("content_hash"))
    return len(written)


def _remove_stale(root: Path, written: set[Path]) -> None:
    """Delete content files no item wrote (and folders left empty), only inside the three
    content subfolders, and only Markdown: diagrams and READMEs stay."""
    for sub in SUBFOLDERS:
        base = root / sub
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*.md")):
            if path.resolve() not in written:
                path.unlink()
        for folder in sorted((p for p in base.rglob("*") if p.is_dir()), reverse=True):
            if not any(folder.iterdir()):
                folder.rmdir()
