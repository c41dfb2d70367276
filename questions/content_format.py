"""The content files' format, read and checked: front matter fields, dates, choices,
references, a question file's body and answer, a guide's items. Every error is a
``ContentError`` naming the file and the field (layout in content/README.md)."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import frontmatter
import yaml
from django.utils import timezone

from .checked import month_problem
from .models import (
    ItemKind,
)

ANSWER_SEPARATOR = "<!-- answer -->"


# front matter keys of a question's graded practice, kept together in Question.practice
PRACTICE_KEYS = ("target", "variables", "tolerance", "mistakes", "follow_ups")


ITEM_HEADING = re.compile(r"^## ([a-z-]+): (.+)$", re.MULTILINE)


class ContentError(ValueError):
    """A content file is malformed; the message names the file and the field."""


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


def _checked(meta: dict, where: str) -> str:
    """``checked: YYYY-MM``, the month the facts were last verified; "" when absent."""
    value = meta.get("checked")
    if value in (None, ""):
        return ""
    if problem := month_problem(value):
        raise ContentError(f"{where}: checked: {problem}")
    return str(value).strip()


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
