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
and touches nothing else (what ``make run`` does on every start).

This module is the entry (``import_content``) and imports concepts, tracks and guides.
The rest is split by step: ``content_format`` reads and checks the files,
``content_apply`` writes one item under the conflict rule, ``content_questions`` matches
and renumbers a track's questions. The export side lives in ``content_export``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import reversion
from django.db import transaction

from . import content_version
from .content_apply import ImportOptions, ImportReport, Skip, _apply, _concepts, _save, _set_m2m
from .content_format import (
    ContentError,
    _as_datetime,
    _check_choices,
    _checked,
    _load,
    _references,
    _require,
    _split_items,
    _whole_number,
)
from .content_lessons import import_lessons
from .content_questions import _import_questions
from .models import (
    AccessLevel,
    Category,
    Concept,
    Guide,
    GuideItem,
    GuideSection,
    Level,
    Track,
)


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

    # after questions and concepts: a lesson links both
    import_lessons(root, options, report)


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
        "checked": _checked(m, str(path)),
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
        "checked": _checked(m, str(guide_file)),
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
            "checked": _checked(sm, str(path)),
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
