"""Content as files: Markdown with YAML front matter (layout in content/README.md).

Import is idempotent: each object is matched by its natural key (slugs, track + number),
fields are compared, and only a real change is written. ``updated_at`` is carried in the
files, so importing what was exported changes nothing, dates included.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import frontmatter
import yaml
from django.db import transaction
from django.utils import timezone

from . import services
from .models import (
    Access,
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
    Track,
)

ANSWER_SEPARATOR = "<!-- answer -->"
ITEM_HEADING = re.compile(r"^## ([a-z-]+): (.+)$", re.MULTILINE)


class ContentError(ValueError):
    """A content file is malformed; the message names the file and the field."""


@dataclass
class ImportReport:
    created: dict[str, int] = field(default_factory=dict)
    updated: dict[str, int] = field(default_factory=dict)
    unchanged: int = 0

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

        return f"created: {fmt(self.created)}; updated: {fmt(self.updated)}; unchanged: {self.unchanged}"


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
            {"title": str(ref["title"]), "publisher": str(ref["publisher"]),
             "year": ref["year"], "url": url}
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


def _save(
    obj: Any, values: dict[str, Any], updated_at: dt.datetime | None, where: str
) -> tuple[bool, bool]:
    _check_lengths(obj, values, where)
    created = obj.pk is None
    # A file without dates keeps the database's (or, new, takes its publication date), so
    # importing the same files twice never moves a date.
    if values.get("published_at") is None:
        values.pop("published_at", None)
    if updated_at is None and created:
        updated_at = values.get("published_at")
    changed = _apply(obj, values)
    if created or changed:
        services.save_content(obj, updated_at=updated_at)
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
def import_content(root: Path) -> ImportReport:
    """Import every file under ``root``; the whole import is one transaction."""
    root = Path(root)
    if not root.is_dir():
        raise ContentError(f"{root}: no such content folder")
    report = ImportReport()

    concepts: dict[str, Concept] = {c.slug: c for c in Concept.objects.all()}
    for path in sorted((root / "concepts").glob("*.md")):
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
            {"category": Category.values, "level": Level.values, "access": Access.values},
            str(path),
        )
        created, changed = _save(
            obj, values, _as_datetime(m.get("updated_at"), f"{path}: updated_at"), str(path)
        )
        concepts[slug] = obj
        report.add("concepts", created, changed)

    for track_dir in sorted(p for p in (root / "tracks").glob("*") if p.is_dir()):
        track_file = track_dir / "_track.md"
        if not track_file.exists():
            raise ContentError(f"{track_dir}: missing _track.md")
        post = _load(track_file)
        m = dict(post.metadata)
        slug = _require(m, "slug", str(track_file))
        track = Track.objects.filter(slug=slug).first() or Track(slug=slug)
        values = {
            "title": _require(m, "title", str(track_file)),
            "category": _require(m, "category", str(track_file)),
            "icon": m.get("icon", "serving"),
            "order": _whole_number(m, "order", str(track_file), default=0),
            "summary": _require(m, "summary", str(track_file)),
            "description": post.content.strip(),
            "published": bool(m.get("published", True)),
            "published_at": _as_datetime(m.get("published_at"), f"{track_file}: published_at"),
        }
        _check_choices(values, {"category": Category.values}, str(track_file))
        created, changed = _save(
            track,
            values,
            _as_datetime(m.get("updated_at"), f"{track_file}: updated_at"),
            str(track_file),
        )
        report.add("tracks", created, changed)
        existing = {q.number: q for q in Question.objects.filter(track=track)}
        for path in sorted(track_dir.glob("[0-9]*.md")):
            _import_question(path, track, existing, concepts, report)

    for guide_dir in sorted(p for p in (root / "guides").glob("*") if p.is_dir()):
        _import_guide(guide_dir, concepts, report)
    return report


def _import_question(path, track, existing, concepts, report) -> None:
    post = _load(path)
    m: dict[str, Any] = post.metadata
    where = str(path)
    number = _whole_number(m, "number", where, minimum=1)
    text = post.content
    if ANSWER_SEPARATOR not in text:
        raise ContentError(f"{where}: answer: missing the '{ANSWER_SEPARATOR}' separator line")
    body, answer = (part.strip() for part in text.split(ANSWER_SEPARATOR, 1))
    obj = existing.get(number) or Question(track=track, number=number)
    values = {
        "slug": _require(m, "slug", where),
        "title": _require(m, "title", where),
        "summary": _require(m, "summary", where),
        "difficulty": _require(m, "difficulty", where),
        "kind": _require(m, "kind", where),
        "access": m.get("access", "open"),
        "body": body,
        "answer": answer,
        "references": _references(m, where),
        "published": bool(m.get("published", True)),
        "published_at": _as_datetime(m.get("published_at"), f"{where}: published_at"),
    }
    _check_choices(
        values, {"difficulty": Difficulty.values, "kind": Kind.values, "access": Access.values}, where
    )
    created, changed = _save(
        obj, values, _as_datetime(m.get("updated_at"), f"{where}: updated_at"), where
    )
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


def _import_guide(guide_dir: Path, concepts, report) -> None:
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
    created, changed = _save(
        guide, values, _as_datetime(m.get("updated_at"), f"{guide_file}: updated_at"), str(guide_file)
    )
    sections = {s.slug: s for s in guide.sections.all()}
    seen = set()
    for path in sorted(guide_dir.glob("[0-9]*.md")):
        spost = _load(path)
        sm: dict[str, Any] = spost.metadata
        sslug = _require(sm, "slug", str(path))
        seen.add(sslug)
        section = sections.get(sslug) or GuideSection(guide=guide, slug=sslug)
        intro, items = _split_items(spost.content, str(path))
        svalues = {"order": int(sm.get("order", 0)), "title": _require(sm, "title", str(path)), "intro": intro}
        screated = section.pk is None
        if _apply(section, svalues) or screated:
            section.save()
            changed = True
        changed |= _set_m2m(section.concepts, _concepts(list(sm.get("concepts") or []), str(path), concepts))
        current = [(i.kind, i.title, i.body) for i in section.items.order_by("order", "id")]
        if current != items:
            section.items.all().delete()
            GuideItem.objects.bulk_create(
                GuideItem(section=section, order=i, kind=k, title=t, body=b) for i, (k, t, b) in enumerate(items)
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


# --- Export ----------------------------------------------------------------------------


def _dt(value: dt.datetime | None) -> str | None:
    return value.astimezone(dt.UTC).isoformat() if value else None


def _write(path: Path, meta: dict, content: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    header = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=1000).strip()
    path.write_text(f"---\n{header}\n---\n{content.strip()}\n", encoding="utf-8")


def export_content(root: Path) -> int:
    """Write every track, question, concept and guide under ``root``; returns files written."""
    root = Path(root)
    count = 0
    for c in Concept.objects.order_by("slug"):
        _write(
            root / "concepts" / f"{c.slug}.md",
            {
                "slug": c.slug, "title": c.title, "category": c.category, "level": c.level,
                "access": c.access, "summary": c.summary, "published": c.published,
                "published_at": _dt(c.published_at), "updated_at": _dt(c.updated_at),
                **({"references": c.references} if c.references else {}),
            },
            c.body,
        )
        count += 1
    for t in Track.objects.order_by("order", "slug"):
        d = root / "tracks" / t.slug
        _write(
            d / "_track.md",
            {
                "slug": t.slug, "title": t.title, "category": t.category, "icon": t.icon,
                "order": t.order, "summary": t.summary, "published": t.published,
                "published_at": _dt(t.published_at), "updated_at": _dt(t.updated_at),
            },
            t.description,
        )
        count += 1
        for q in t.questions.order_by("number").prefetch_related("concepts", "calculator_embeds"):
            meta = {
                "number": q.number, "slug": q.slug, "title": q.title, "summary": q.summary,
                "difficulty": q.difficulty, "kind": q.kind, "access": q.access,
                "concepts": [c.slug for c in q.concepts.all().order_by("slug")],
                "published": q.published, "published_at": _dt(q.published_at),
                "updated_at": _dt(q.updated_at),
            }
            embeds = [
                {"calculator": e.calculator, "preset": e.preset or None, "inputs": e.inputs, **({"label": e.label} if e.label else {})}
                for e in q.calculator_embeds.all()
            ]
            if embeds:
                meta["calculators"] = embeds
            if q.references:
                meta["references"] = q.references
            _write(d / f"{q.number:02d}-{q.slug}.md", meta, f"{q.body}\n\n{ANSWER_SEPARATOR}\n\n{q.answer}")
            count += 1
    for g in Guide.objects.order_by("slug"):
        d = root / "guides" / g.slug
        _write(
            d / "_guide.md",
            {
                "slug": g.slug, "title": g.title, "summary": g.summary, "published": g.published,
                "published_at": _dt(g.published_at), "updated_at": _dt(g.updated_at),
            },
            g.intro,
        )
        count += 1
        for n, s in enumerate(g.sections.order_by("order", "id").prefetch_related("concepts", "items"), start=1):
            items = "\n\n".join(f"## {i.kind}: {i.title}\n\n{i.body}" for i in s.items.all())
            _write(
                d / f"{n:02d}-{s.slug}.md",
                {"order": s.order, "slug": s.slug, "title": s.title, "concepts": [c.slug for c in s.concepts.all().order_by("slug")]},
                f"{s.intro}\n\n{items}" if s.intro else items,
            )
            count += 1
    return count
