"""Importing a track's questions: each file is matched to its row by ``key`` (else its slug
or a slug it had), and numbers are places, not identities: the rows of a renumbered track
are parked on free numbers first and then moved, so a reorder never collides and never
overwrites another question."""

from __future__ import annotations

from pathlib import Path

import reversion

from .content_apply import Skip, _concepts, _save, _set_m2m
from .content_format import (
    PRACTICE_KEYS,
    ContentError,
    _as_datetime,
    _check_choices,
    _checked,
    _QuestionFile,
    _read_question,
    _references,
    _require,
    _unique,
)
from .models import (
    AccessLevel,
    CalculatorEmbed,
    Difficulty,
    Kind,
    Question,
    QuestionSlugHistory,
    Track,
    new_question_key,
)
from .validation import key_point_problems, practice_problems


def _import_questions(track_dir: Path, track: Track, concepts, options, report) -> None:
    """Match each file to its row by identity, write content, then set the numbers.

    Numbers are unique per track, so rows whose number must change are first parked above
    every number in use, then given their final numbers: a reorder in the files (or one
    made in admin) can never collide half-way. Rows no file names keep their relative
    order after the files' questions.
    """
    rows_before = dict(Question.objects.filter(track=track).values_list("pk", "number"))
    saved: list[int] = []
    _place_questions(track_dir, track, concepts, options, report, saved)
    _record_final_state(track, rows_before, saved)


def _record_final_state(track: Track, rows_before: dict[int, int], saved: list[int]) -> None:
    """Put each saved or renumbered question into the import's revision as it stands once
    the import is done. A question is recorded when it is saved, which is before its
    concepts are linked and while a new or moved one is parked on a temporary number (the
    old number plus the track's length): recorded then, its revision showed a change of
    number and concepts that nobody made, and reverting to it moved the question."""
    if not reversion.is_active():
        return
    for q in Question.objects.filter(track=track):
        if q.pk in saved or rows_before.get(q.pk, q.number) != q.number:
            reversion.add_to_revision(q)  # explicit: replaces the version taken at save


def _place_questions(track_dir: Path, track: Track, concepts, options, report, saved) -> None:
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
        if _import_question(f, obj, concepts, options, report):
            saved.append(obj.pk)

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


def _import_question(f: _QuestionFile, obj: Question, concepts, options, report) -> bool:
    """Write one file's question; returns whether anything of it was written."""
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
        "checked": _checked(m, where),
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
        return False
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
    return created or changed
