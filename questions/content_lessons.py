"""The course as files: ``content/lessons/<NN>-<part>/_part.md`` and ``<NN>-<lesson>.md``
(format in ``var/briefs/lesson-spec.md`` and content/README.md), read and written.

Import follows the questions' rules (``content_apply._save``): a lesson is matched by its
``key`` (else its slug), only a real change is written, a lesson edited in admin since its
last sync is kept and reported unless ``force``, and ``only_new`` creates what is missing.
Numbers are a lesson's place in its part, not its identity: a lesson that moves is parked
on a free number first, so a reorder never collides. Links (prerequisites, concepts,
questions) are set after every lesson exists, since a prerequisite may be read later.

Export is deterministic (fixed key order, sorted links, LF, one trailing newline), so
export, import, export gives byte-identical files.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db.models import Q

from .content_apply import ImportOptions, ImportReport, Skip, _concepts, _save, _set_m2m
from .content_format import (
    ContentError,
    _as_datetime,
    _check_choices,
    _checked,
    _load,
    _references,
    _require,
    _whole_number,
)
from .lesson_checks import CHOICE_KEYS, NUMBER_KEYS, check_item_problems
from .models import AccessLevel, Concept, Lesson, Level, Part, Question, QuestionSlugHistory

PARKED = 100_000  # numbers from here up are a moving lesson's temporary place


@dataclass
class _LessonFile:
    path: Path
    part: Part
    meta: dict[str, Any]
    body: str
    lesson: Lesson | None = None
    skipped: bool = False
    old_number: int | None = None


def _slug_list(meta: dict, key: str, where: str) -> list[str]:
    value = meta.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ContentError(f"{where}: {key}: a list of slugs")
    return list(value)


def normalise_check(raw: Any, where: str) -> list[dict[str, Any]]:
    """The ``check:`` items with their keys in the spec's order (so the stored JSON, and
    the exported YAML, do not depend on the file's order); a check the server cannot grade
    stops the import, naming the file and the item."""
    if problems := check_item_problems(raw if raw is not None else []):
        raise ContentError(f"{where}: {problems[0]}")
    items = []
    for item in raw:
        order = CHOICE_KEYS if item["kind"] == "choice" else NUMBER_KEYS
        clean = {k: item[k] for k in order if k in item}
        if "inputs" in clean:
            clean["inputs"] = {k: clean["inputs"][k] for k in sorted(clean["inputs"])}
        items.append(clean)
    return items


def _part_dirs(root: Path) -> list[Path]:
    return sorted(p for p in (root / "lessons").glob("*") if p.is_dir())


def import_lessons(root: Path, options: ImportOptions, report: ImportReport) -> None:
    concepts = {c.slug: c for c in Concept.objects.all()}
    files: list[_LessonFile] = []
    for part_dir in _part_dirs(root):
        part = _import_part(part_dir, options, report)
        for path in sorted(part_dir.glob("[0-9]*.md")):
            post = _load(path)
            files.append(_LessonFile(path, part, dict(post.metadata), post.content.strip()))
    _match_and_park(files)
    for f in files:
        _import_lesson(f, options, report)
    by_slug = {le.slug: le for le in Lesson.objects.all()}
    for f in files:
        if f.lesson is None or f.skipped:
            continue
        _link(f, by_slug, concepts)


def _import_part(part_dir: Path, options: ImportOptions, report: ImportReport) -> Part:
    path = part_dir / "_part.md"
    if not path.exists():
        raise ContentError(f"{part_dir}: missing _part.md")
    post = _load(path)
    m = dict(post.metadata)
    where = str(path)
    slug = str(_require(m, "slug", where))
    number = _whole_number(m, "number", where, minimum=1)
    part = Part.objects.filter(slug=slug).first() or Part(slug=slug)
    taken = Part.objects.filter(number=number).exclude(slug=slug).first()
    if taken is not None:
        Part.objects.filter(pk=taken.pk).update(number=PARKED + taken.pk)
    values = {
        "number": number,
        "title": str(_require(m, "title", where)),
        "summary": str(_require(m, "summary", where)),
        "intro": post.content.strip(),
        "published": bool(m.get("published", True)),
        "published_at": _as_datetime(m.get("published_at"), f"{where}: published_at"),
    }
    updated_at = _as_datetime(m.get("updated_at"), f"{where}: updated_at")
    try:
        report.add("parts", *_save(part, values, updated_at, where, options=options, report=report))
    except Skip:
        report.add("parts", False, False)
    return part


def _match_and_park(files: list[_LessonFile]) -> None:
    """Find each file's lesson and move every lesson whose place the files change (or whose
    place a file claims) to a parked number, so the saves below never collide."""
    seen: dict[str, Path] = {}
    for f in files:
        where = str(f.path)
        slug = str(_require(f.meta, "slug", where))
        key = f.meta.get("key")
        for ident in (slug, f"key:{key}" if key else None):
            if ident is None:
                continue
            if ident in seen:
                raise ContentError(f"{where}: {ident!r} is also used by {seen[ident].name}")
            seen[ident] = f.path
        lesson = Lesson.objects.filter(key=str(key)).first() if key else None
        f.lesson = lesson or Lesson.objects.filter(slug=slug).first()
    wanted = {(f.part.pk, _whole_number(f.meta, "number", str(f.path), minimum=1)) for f in files}
    matched = {f.lesson.pk: f for f in files if f.lesson is not None}
    parts = {f.part.pk for f in files}
    for lesson in Lesson.objects.filter(Q(part__in=parts) | Q(pk__in=matched)):
        f = matched.get(lesson.pk)
        place = (lesson.part_id, lesson.number)
        if f is not None:
            f.old_number = lesson.number
        if (f is not None and place != (f.part.pk, int(f.meta["number"]))) or (
            f is None and place in wanted
        ):
            Lesson.objects.filter(pk=lesson.pk).update(number=PARKED + lesson.pk)


def _import_lesson(f: _LessonFile, options: ImportOptions, report: ImportReport) -> None:
    m, where = f.meta, str(f.path)
    slug = str(m["slug"])
    if f.lesson is None:
        f.lesson = Lesson(slug=slug, part=f.part, number=int(m["number"]))
        if m.get("key"):
            f.lesson.key = str(m["key"])
    else:
        f.lesson.refresh_from_db(fields=["number"])  # parked numbers were set by update()
    values = {
        "part": f.part,
        "number": _whole_number(m, "number", where, minimum=1),
        "slug": slug,
        "title": str(_require(m, "title", where)),
        "summary": str(_require(m, "summary", where)),
        "level": m.get("level", Level.FOUNDATIONS),
        "access": m.get("access", AccessLevel.OPEN),
        "minutes": _whole_number(m, "minutes", where, minimum=1),
        "references": _references(m, where),
        "body": f.body,
        "check_items": normalise_check(m.get("check"), f"{where}: check"),
        "published": bool(m.get("published", True)),
        "published_at": _as_datetime(m.get("published_at"), f"{where}: published_at"),
        "checked": _checked(m, where),
    }
    _check_choices(values, {"level": Level.values, "access": AccessLevel.values}, where)
    updated_at = _as_datetime(m.get("updated_at"), f"{where}: updated_at")
    try:
        created, changed = _save(
            f.lesson, values, updated_at, where, options=options, report=report
        )
    except Skip:
        f.skipped = True
        report.add("lessons", False, False)
        _unpark(f.lesson, f.old_number)
        return
    report.add("lessons", created, changed)


def _unpark(lesson: Lesson, number: int | None) -> None:
    """A kept (admin-edited) lesson goes back to its own number when the files moved it
    and nobody took that place; otherwise it stays parked, which the report names."""
    if number is None or lesson.pk is None:
        return
    if not Lesson.objects.filter(part_id=lesson.part_id, number=number).exists():
        Lesson.objects.filter(pk=lesson.pk).update(number=number)


def _question(ref: str, where: str) -> Question:
    track, _, slug = ref.partition("/")
    q = Question.objects.filter(track__slug=track, slug=slug).first()
    if q is None:
        old = QuestionSlugHistory.objects.filter(track__slug=track, slug=slug).first()
        q = old.question if old else None
    if q is None:
        raise ContentError(f"{where}: questions: no question {ref!r} (write <track>/<slug>)")
    return q


def _link(f: _LessonFile, by_slug: dict[str, Lesson], concepts: dict[str, Concept]) -> None:
    where, lesson = str(f.path), f.lesson
    assert lesson is not None
    prereqs = []
    for slug in _slug_list(f.meta, "prerequisites", where):
        if slug not in by_slug or slug == lesson.slug:
            raise ContentError(f"{where}: prerequisites: no other lesson {slug!r}")
        prereqs.append(by_slug[slug])
    _set_m2m(lesson.prerequisites, prereqs)
    _set_m2m(lesson.concepts, _concepts(_slug_list(f.meta, "concepts", where), where, concepts))
    refs = _slug_list(f.meta, "questions", where)
    _set_m2m(lesson.questions, [_question(r, where) for r in refs])


# ------------------------------------------------------------------------------ export


def _dt(value: dt.datetime | None) -> str | None:
    return value.astimezone(dt.UTC).isoformat() if value else None


def lesson_meta(lesson: Lesson) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "key": lesson.key, "number": lesson.number, "slug": lesson.slug,
        "title": lesson.title, "summary": lesson.summary, "level": lesson.level,
        "access": lesson.access, "minutes": lesson.minutes,
        "prerequisites": sorted(p.slug for p in lesson.prerequisites.all()),
        "concepts": sorted(c.slug for c in lesson.concepts.all()),
        "questions": sorted(f"{q.track.slug}/{q.slug}" for q in lesson.questions.all()),
        "published": lesson.published, "published_at": _dt(lesson.published_at),
        "updated_at": _dt(lesson.updated_at),
    }  # fmt: skip
    if lesson.checked:
        meta["checked"] = lesson.checked
    if lesson.references:
        meta["references"] = [
            {k: r[k] for k in ("title", "publisher", "year", "url") if k in r}
            for r in lesson.references
        ]
    meta["check"] = [
        {
            k: ({n: item[k][n] for n in sorted(item[k])} if k == "inputs" else item[k])
            for k in (CHOICE_KEYS if item.get("kind") == "choice" else NUMBER_KEYS)
            if k in item
        }
        for item in lesson.check_items
    ]
    return meta


def export_lessons(root: Path, write) -> None:
    """Write every part and lesson under ``root / "lessons"`` through ``write(path, meta,
    body)`` (``content_export._write``, which keeps the set of files written)."""
    base = root / "lessons"
    for part in Part.objects.order_by("number", "slug"):
        d = base / f"{part.number:02d}-{part.slug}"
        meta = {
            "number": part.number, "slug": part.slug, "title": part.title,
            "summary": part.summary, "published": part.published,
            "published_at": _dt(part.published_at), "updated_at": _dt(part.updated_at),
        }  # fmt: skip
        write(d / "_part.md", meta, part.intro)
        lessons = part.lessons.order_by("number").prefetch_related(
            "prerequisites", "concepts", "questions__track"
        )
        for lesson in lessons:
            write(d / f"{lesson.number:02d}-{lesson.slug}.md", lesson_meta(lesson), lesson.body)
