"""Content as files: Markdown with YAML front matter (layout in content/README.md).

Import is idempotent: each object is matched by its identity (a question's ``key``, else
its slug or a slug it had; the slug of a track, concept or guide), fields are compared,
and only a real change is written. ``updated_at`` is carried in the files, so importing
what was exported changes nothing, dates included. A question's number is its place in
the track, not its identity: renumbered files move rows, they never overwrite another
question.

An item edited in admin since its last import or export (``content_hash`` differs from
``synced_hash``) is not overwritten: the import reports a conflict and keeps the admin
text, unless ``force`` says the files win. ``only_new`` creates what the database lacks
and touches nothing else (what ``make run`` does on every start). The export side lives
in ``content_export``.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import frontmatter
import reversion
import yaml
from django.db import transaction
from django.utils import timezone

from . import content_version, services
from .models import (
    AccessLevel,
    CalculatorEmbed,
    Category,
    Concept,
    Difficulty,
    Guide,
    GuideItem,
    GuideSection,
    ItemKind,
    Kind,
    Level,
    Question,
    QuestionSlugHistory,
    Track,
    new_question_key,
)
from .validation import key_point_problems, practice_problems

ANSWER_SEPARATOR = "<!-- answer -->"
# front matter keys of a question's graded practice, kept together in Question.practice
PRACTICE_KEYS = ("target", "variables", "tolerance", "mistakes", "follow_ups")
ITEM_HEADING = re.compile(r"^## ([a-z-]+): (.+)$", re.MULTILINE)


class ContentError(ValueError):
    """A content file is malformed; the message names the file and the field."""


@dataclass(frozen=True)
class ImportOptions:
    force: bool = False  # files win over edits made in admin since the last sync
    only_new: bool = False  # create missing items only; leave existing ones alone


@dataclass
class ImportReport:
    created: dict[str, int] = field(default_factory=dict)
    updated: dict[str, int] = field(default_factory=dict)
    unchanged: int = 0
    conflicts: list[str] = field(default_factory=list)

    def add(self, kind: str, created: bool, changed: bool) -> None:
        if created:
            self.created[kind] = self.created.get(kind, 0) + 1
        elif changed:
            self.updated[kind] = self.updated.get(kind, 0) + 1
        else:
            self.unchanged += 1

    @property
    def changed(self) -> bool:
        return bool(self.created or self.updated)

    def __str__(self) -> str:
        def fmt(d):
            return ", ".join(f"{v} {k}" for k, v in sorted(d.items())) or "none"

        text = f"created: {fmt(self.created)}; updated: {fmt(self.updated)}; unchanged: {self.unchanged}"
        if self.conflicts:
            text += f"; kept {len(self.conflicts)} admin edit(s): " + "; ".join(self.conflicts)
        return text


def _as_datetime(value: Any, where: str) -> dt.datetime | None:
    if value in (None, ""):
        return None
    if isinstance(value, dt.datetime):
        result = value
    elif isinstance(value, dt.date):
        result = dt.datetime(value.year, value.month, value.day)
    else:
        try:
            result = dt.datetime.fromisoformat(str(value))
        except ValueError as exc:
            raise ContentError(f"{where}: not a date or datetime: {value!r}") from exc
    if timezone.is_naive(result):
        result = timezone.make_aware(result, dt.UTC)
    return result


def _require(meta: dict, key: str, where: str) -> Any:
    if key not in meta or meta[key] in (None, ""):
        raise ContentError(f"{where}: front matter field '{key}' is required")
    return meta[key]


def _load(path: Path) -> frontmatter.Post:
    try:
        return frontmatter.load(str(path))
    except yaml.YAMLError as exc:
        raise ContentError(f"{path}: invalid YAML front matter: {exc}") from exc


def _check_choices(values: dict[str, Any], choices: dict[str, list[str]], where: str) -> None:
    """Every choice field must hold a known value: an unknown ``access`` in particular would
    reach the access policy, which has no rule for it (a 500 on every page listing it)."""
    for name, allowed in choices.items():
        if values[name] not in allowed:
            raise ContentError(f"{where}: {name}: {values[name]!r} is not one of {sorted(allowed)}")


def _whole_number(
    meta: dict, key: str, where: str, *, default: int | None = None, minimum: int | None = None
) -> int:
    value = meta.get(key, default) if default is not None else _require(meta, key, where)
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise ContentError(f"{where}: {key}: {value!r} is not a whole number") from None
    if minimum is not None and number < minimum:
        raise ContentError(f"{where}: {key}: {number} must be {minimum} or more")
    return number


REFERENCE_FIELDS = ("title", "publisher", "year", "url")


def _references(meta: dict, where: str) -> list[dict[str, Any]]:
    """The ``references:`` list, each entry reduced to its four fields in a fixed order, so
    the stored JSON (and the exported YAML) does not depend on how the file ordered them."""
    raw = meta.get("references") or []
    if not isinstance(raw, list):
        raise ContentError(f"{where}: references: a list of title/publisher/year/url entries")
    refs = []
    for i, ref in enumerate(raw, start=1):
        if not isinstance(ref, dict):
            raise ContentError(f"{where}: references[{i}]: not a mapping")
        missing = [f for f in REFERENCE_FIELDS if ref.get(f) in (None, "")]
        if missing:
            raise ContentError(f"{where}: references[{i}]: missing {', '.join(missing)}")
        url = str(ref["url"])
        if not url.startswith(("https://", "http://")):
            raise ContentError(f"{where}: references[{i}]: url must start with http(s)://")
        refs.append(
            {
                "title": str(ref["title"]),
                "publisher": str(ref["publisher"]),
                "year": ref["year"],
                "url": url,
            }
        )
    return refs


def _apply(obj: Any, values: dict[str, Any]) -> bool:
    changed = False
    for name, value in values.items():
        if getattr(obj, name) != value:
            setattr(obj, name, value)
            changed = True
    return changed


def _check_lengths(obj: Any, values: dict[str, Any], where: str) -> None:
    """Text longer than its column is a named error here; otherwise SQLite keeps it whole
    and PostgreSQL fails the whole import with a bare database error."""
    for name, value in values.items():
        limit = getattr(obj._meta.get_field(name), "max_length", None)
        if limit and isinstance(value, str) and len(value) > limit:
            raise ContentError(f"{where}: {name}: {len(value)} characters, at most {limit} fit")


def edited_in_admin(obj: Any) -> bool:
    """Changed since the last import or export (the database holds text the files lack)."""
    return bool(obj.pk and obj.synced_hash and obj.content_hash != obj.synced_hash)


class Skip(Exception):
    """An existing item the import leaves alone (``only_new``, or a kept admin edit)."""


def _save(
    obj: Any,
    values: dict[str, Any],
    updated_at: dt.datetime | None,
    where: str,
    *,
    options: ImportOptions,
    report: ImportReport,
) -> tuple[bool, bool]:
    """Write ``values`` to ``obj``; raises ``Skip`` when the item must not be touched."""
    _check_lengths(obj, values, where)
    created = obj.pk is None
    if not created and options.only_new:
        raise Skip
    # A file without dates keeps the database's (or, new, takes its publication date), so
    # importing the same files twice never moves a date.
    if values.get("published_at") is None:
        values.pop("published_at", None)
    if updated_at is None and created:
        updated_at = values.get("published_at")
    differs = [name for name, value in values.items() if getattr(obj, name) != value]
    if differs and edited_in_admin(obj) and not options.force:
        report.conflicts.append(f"{where} ({', '.join(differs[:3])})")
        raise Skip
    changed = _apply(obj, values)
    if created or changed:
        services.save_content(obj, updated_at=updated_at, synced=True)
    elif updated_at is not None and obj.updated_at != updated_at:
        obj.updated_at = updated_at
        obj.save(update_fields=["updated_at"])
        changed = True
    return created, changed


def _set_m2m(manager, objs: list) -> bool:
    wanted = {o.pk for o in objs}
    current = set(manager.values_list("pk", flat=True))
    if wanted != current:
        manager.set(objs)
        return True
    return False


def _concepts(slugs: list[str], where: str, by_slug: dict[str, Concept]) -> list[Concept]:
    missing = [s for s in slugs if s not in by_slug]
    if missing:
        raise ContentError(f"{where}: concepts: unknown concept slug(s) {', '.join(missing)}")
    return [by_slug[s] for s in slugs]


@transaction.atomic
def import_content(root: Path, options: ImportOptions | None = None) -> ImportReport:
    """Import every file under ``root``; the whole import is one transaction."""
    root = Path(root)
    options = options or ImportOptions()
    if not root.is_dir():
        raise ContentError(f"{root}: no such content folder")
    report = ImportReport()
    with reversion.create_revision():
        reversion.set_comment(f"Imported from files ({root.name})")
        _import_all(root, options, report)
    if report.changed:
        content_version.bump()  # renumbering uses update(), which sends no save signal
    return report


def _import_all(root: Path, options: ImportOptions, report: ImportReport) -> None:
    concepts: dict[str, Concept] = {c.slug: c for c in Concept.objects.all()}
    for path in sorted((root / "concepts").glob("*.md")):
        obj = _import_concept(path, concepts, options, report)
        concepts[obj.slug] = obj

    for track_dir in sorted(p for p in (root / "tracks").glob("*") if p.is_dir()):
        track = _import_track(track_dir, options, report)
        _import_questions(track_dir, track, concepts, options, report)

    for guide_dir in sorted(p for p in (root / "guides").glob("*") if p.is_dir()):
        _import_guide(guide_dir, concepts, report, options)


def _import_concept(path: Path, concepts: dict[str, Concept], options, report) -> Concept:
    post = _load(path)
    m: dict[str, Any] = post.metadata
    slug = _require(m, "slug", str(path))
    obj = concepts.get(slug) or Concept(slug=slug)
    values = {
        "title": _require(m, "title", str(path)),
        "category": _require(m, "category", str(path)),
        "level": m.get("level", "foundations"),
        "access": m.get("access", "open"),
        "summary": _require(m, "summary", str(path)),
        "body": post.content.strip(),
        "references": _references(m, str(path)),
        "published": bool(m.get("published", True)),
        "published_at": _as_datetime(m.get("published_at"), f"{path}: published_at"),
    }
    _check_choices(
        values,
        {"category": Category.values, "level": Level.values, "access": AccessLevel.values},
        str(path),
    )
    updated_at = _as_datetime(m.get("updated_at"), f"{path}: updated_at")
    try:
        report.add(
            "concepts", *_save(obj, values, updated_at, str(path), options=options, report=report)
        )
    except Skip:
        report.add("concepts", False, False)
    return obj


def _import_track(track_dir: Path, options, report) -> Track:
    track_file = track_dir / "_track.md"
    if not track_file.exists():
        raise ContentError(f"{track_dir}: missing _track.md")
    post = _load(track_file)
    m = dict(post.metadata)
    where = str(track_file)
    slug = _require(m, "slug", where)
    track = Track.objects.filter(slug=slug).first() or Track(slug=slug)
    values = {
        "title": _require(m, "title", where),
        "category": _require(m, "category", where),
        "icon": m.get("icon", "serving"),
        "order": _whole_number(m, "order", where, default=0),
        "summary": _require(m, "summary", where),
        "description": post.content.strip(),
        "published": bool(m.get("published", True)),
        "published_at": _as_datetime(m.get("published_at"), f"{where}: published_at"),
    }
    _check_choices(values, {"category": Category.values}, where)
    updated_at = _as_datetime(m.get("updated_at"), f"{where}: updated_at")
    try:
        report.add(
            "tracks", *_save(track, values, updated_at, where, options=options, report=report)
        )
    except Skip:
        report.add("tracks", False, False)
    return track


@dataclass
class _QuestionFile:
    path: Path
    meta: dict[str, Any]
    number: int
    key: str | None
    slug: str
    body: str
    answer: str


def _read_question(path: Path) -> _QuestionFile:
    post = _load(path)
    m: dict[str, Any] = dict(post.metadata)
    where = str(path)
    if ANSWER_SEPARATOR not in post.content:
        raise ContentError(f"{where}: answer: missing the '{ANSWER_SEPARATOR}' separator line")
    body, answer = (part.strip() for part in post.content.split(ANSWER_SEPARATOR, 1))
    key = m.get("key")
    return _QuestionFile(
        path=path,
        meta=m,
        number=_whole_number(m, "number", where, minimum=1),
        key=str(key) if key not in (None, "") else None,
        slug=str(_require(m, "slug", where)),
        body=body,
        answer=answer,
    )


def _unique(files: list[_QuestionFile], attr: str, where: Path) -> None:
    seen: dict[Any, Path] = {}
    for f in files:
        value = getattr(f, attr)
        if value is None:
            continue
        if value in seen:
            raise ContentError(f"{f.path}: {attr}: {value!r} is also used by {seen[value].name}")
        seen[value] = f.path


def _import_questions(track_dir: Path, track: Track, concepts, options, report) -> None:
    """Match each file to its row by identity, write content, then set the numbers.

    Numbers are unique per track, so rows whose number must change are first parked above
    every number in use, then given their final numbers: a reorder in the files (or one
    made in admin) can never collide half-way. Rows no file names keep their relative
    order after the files' questions.
    """
    files = [_read_question(p) for p in sorted(track_dir.glob("[0-9]*.md"))]
    for attr in ("number", "key", "slug"):
        _unique(files, attr, track_dir)
    rows = list(Question.objects.filter(track=track).order_by("number"))
    by_key = {q.key: q for q in rows}
    by_slug = {q.slug: q for q in rows}
    old_slugs = dict(
        QuestionSlugHistory.objects.filter(track=track).values_list("slug", "question_id")
    )
    by_pk = {q.pk: q for q in rows}
    used = {q.number for q in rows} | {f.number for f in files}
    parking = iter(range(max(used, default=0) + 1, 10**9))

    matched: list[tuple[_QuestionFile, Question]] = []
    for f in files:
        obj = (by_key.get(f.key) if f.key else None) or by_slug.get(f.slug)
        obj = obj or by_pk.get(old_slugs.get(f.slug, 0))
        if obj is None:
            if f.key and Question.objects.filter(key=f.key).exists():
                raise ContentError(
                    f"{f.path}: key: {f.key!r} belongs to a question of another track"
                )
            obj = Question(track=track, number=next(parking), key=f.key or new_question_key())
        elif options.only_new:
            report.add("questions", False, False)
            continue
        matched.append((f, obj))
        _import_question(f, obj, concepts, options, report)

    if options.only_new:
        _place_new(track, [(f, q) for f, q in matched], parking)
        return
    wanted = {q.pk: f.number for f, q in matched}
    if all(q.number == wanted.get(q.pk, q.number) for q in rows) and not set(wanted.values()) & {
        q.number for q in rows if q.pk not in wanted
    }:
        for f, q in matched:  # only new rows were parked
            if q.number != f.number:
                Question.objects.filter(pk=q.pk).update(number=f.number)
        return
    movers = [q for q in Question.objects.filter(track=track).order_by("number")]
    for q in movers:
        Question.objects.filter(pk=q.pk).update(number=next(parking))
    final = dict(wanted)
    last = max(final.values(), default=0)
    for q in movers:
        if q.pk not in final:  # no file names it: after the files' questions, in order
            last += 1
            final[q.pk] = last
    for pk, number in final.items():
        Question.objects.filter(pk=pk).update(number=number)


def _place_new(track: Track, created: list[tuple[_QuestionFile, Question]], parking) -> None:
    """``only_new``: a new question takes its file's number when free, else the end."""
    taken = set(Question.objects.filter(track=track).values_list("number", flat=True))
    for f, q in created:
        taken.discard(q.number)
        number = f.number if f.number not in taken else max(taken, default=0) + 1
        Question.objects.filter(pk=q.pk).update(number=number)
        taken.add(number)


def _import_question(f: _QuestionFile, obj: Question, concepts, options, report) -> None:
    m, where = f.meta, str(f.path)
    values = {
        "slug": f.slug,
        "title": _require(m, "title", where),
        "summary": _require(m, "summary", where),
        "difficulty": _require(m, "difficulty", where),
        "kind": _require(m, "kind", where),
        "access": m.get("access", "open"),
        "body": f.body,
        "answer": f.answer,
        "references": _references(m, where),
        "published": bool(m.get("published", True)),
        "published_at": _as_datetime(m.get("published_at"), f"{where}: published_at"),
        "key_points": [str(p).strip() for p in (m.get("key_points") or [])],
        "practice": {k: m[k] for k in PRACTICE_KEYS if k in m},
    }
    _check_choices(
        values,
        {"difficulty": Difficulty.values, "kind": Kind.values, "access": AccessLevel.values},
        where,
    )
    for name, problems in (
        ("key_points", key_point_problems(values["key_points"])),
        ("practice", practice_problems(values["practice"])),
    ):
        if problems:
            raise ContentError(f"{where}: {name}: {'; '.join(problems)}")
    updated_at = _as_datetime(m.get("updated_at"), f"{where}: updated_at")
    try:
        created, changed = _save(obj, values, updated_at, where, options=options, report=report)
    except Skip:
        report.add("questions", False, False)
        return
    changed |= _set_m2m(obj.concepts, _concepts(list(m.get("concepts") or []), where, concepts))
    wanted = [
        {
            "calculator": str(e.get("calculator", "")),
            "preset": e.get("preset") or "",
            "inputs": e.get("inputs") or {},
            "label": e.get("label") or "",
        }
        for e in (m.get("calculators") or [])
    ]
    current = [
        {"calculator": e.calculator, "preset": e.preset, "inputs": e.inputs, "label": e.label}
        for e in obj.calculator_embeds.order_by("order", "id")
    ]
    if wanted != current:
        obj.calculator_embeds.all().delete()
        for i, e in enumerate(wanted):
            embed = CalculatorEmbed(question=obj, order=i, **e)
            embed.full_clean(exclude=["question"])
            embed.save()
        changed = True
    report.add("questions", created, changed)


def _import_guide(guide_dir: Path, concepts, report, options: ImportOptions) -> None:
    guide_file = guide_dir / "_guide.md"
    if not guide_file.exists():
        raise ContentError(f"{guide_dir}: missing _guide.md")
    post = _load(guide_file)
    m: dict[str, Any] = post.metadata
    slug = _require(m, "slug", str(guide_file))
    guide = Guide.objects.filter(slug=slug).first() or Guide(slug=slug)
    values = {
        "title": _require(m, "title", str(guide_file)),
        "summary": _require(m, "summary", str(guide_file)),
        "intro": post.content.strip(),
        "published": bool(m.get("published", True)),
        "published_at": _as_datetime(m.get("published_at"), f"{guide_file}: published_at"),
    }
    updated_at = _as_datetime(m.get("updated_at"), f"{guide_file}: updated_at")
    try:
        created, changed = _save(
            guide, values, updated_at, str(guide_file), options=options, report=report
        )
    except Skip:
        # Sections and items follow their guide: an admin edit or only_new keeps them all.
        report.add("guides", False, False)
        return
    sections = {s.slug: s for s in guide.sections.all()}
    seen = set()
    for path in sorted(guide_dir.glob("[0-9]*.md")):
        spost = _load(path)
        sm: dict[str, Any] = spost.metadata
        sslug = _require(sm, "slug", str(path))
        seen.add(sslug)
        section = sections.get(sslug) or GuideSection(guide=guide, slug=sslug)
        intro, items = _split_items(spost.content, str(path))
        svalues = {
            "order": int(sm.get("order", 0)),
            "title": _require(sm, "title", str(path)),
            "intro": intro,
        }
        screated = section.pk is None
        if _apply(section, svalues) or screated:
            section.save()
            changed = True
        changed |= _set_m2m(
            section.concepts, _concepts(list(sm.get("concepts") or []), str(path), concepts)
        )
        current = [(i.kind, i.title, i.body) for i in section.items.order_by("order", "id")]
        if current != items:
            section.items.all().delete()
            GuideItem.objects.bulk_create(
                GuideItem(section=section, order=i, kind=k, title=t, body=b)
                for i, (k, t, b) in enumerate(items)
            )
            changed = True
    stale = [s for slug_, s in sections.items() if slug_ not in seen]
    for s in stale:
        s.delete()
        changed = True
    report.add("guides", created, changed)


def _split_items(text: str, where: str) -> tuple[str, list[tuple[str, str, str]]]:
    matches = list(ITEM_HEADING.finditer(text))
    intro = text[: matches[0].start()].strip() if matches else text.strip()
    allowed = set(ItemKind.values)
    items = []
    for i, match in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        kind, title = match.group(1), match.group(2).strip()
        if kind not in allowed:
            raise ContentError(f"{where}: item kind {kind!r} is not one of {sorted(allowed)}")
        items.append((kind, title, text[match.end() : end].strip()))
    return intro, items
