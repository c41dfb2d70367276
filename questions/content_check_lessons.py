"""The content check's rules for the course (``content/lessons/``), beside the rules every
content file has (``questions.content_check``), which lessons get too.

Lesson rules (``var/briefs/lesson-spec.md``):
- ``lesson-length``: a body of 1,500-3,500 words, in 4-8 ``##`` sections, no ``#``
  heading, ending with a ``## Summary`` section (the sections are the table of contents).
- ``lesson-calc``: at least one worked-steps ``{{calc ...}}`` block (no ``->``).
- ``lesson-diagram``: at least one diagram whose file exists and is named
  ``diagrams/lesson-<slug>-*.svg``.
- ``lesson-links``: 3+ questions that exist, 2+ concepts that exist, prerequisites that
  exist and come earlier in the course.
- ``lesson-check``: 3-5 items, each gradable (``questions.lesson_checks``).
- ``lesson-minutes``: ``minutes`` within 30% of words / 200, rounded up.
- ``lesson-access``: lesson 1 of every part open; the rest of parts 1-2 account; the
  rest premium.
And the shared ones: ``sources`` (2-6 complete references), ``reference``, ``directive``,
``diagram``, ``efficiency`` and ``precision`` (through the Markdown checks, over the body
and every check item's ``explain``), ``boilerplate`` (a sentence of 12+ words in three
or more lessons), ``checked``/``stale``, and ``typed-number`` (hand arithmetic in the
body or an ``explain``).
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

from .content_check import (
    DIRECTIVE,
    FENCE,
    ContentCheck,
    Doc,
    Finding,
    _load,
    check_content,
    sentences,
    word_count,
)
from .lesson_checks import check_item_problems
from .lesson_text import headings
from .validation import IMAGE

LESSON_MIN_WORDS, LESSON_MAX_WORDS = 1500, 3500
MIN_SECTIONS, MAX_SECTIONS = 4, 8
WORDS_PER_MINUTE = 200
MINUTES_SLACK = 0.3
MIN_REFERENCES, MAX_REFERENCES = 2, 6
MIN_QUESTIONS, MIN_CONCEPTS = 3, 2
ACCOUNT_PARTS = (1, 2)  # parts whose lessons after the first need a free account
H1 = re.compile(r"^#\s+\S", re.MULTILINE)


def expected_access(part_number: int, lesson_number: int) -> str:
    """The course's access rule for a lesson's place."""
    if lesson_number == 1:
        return "open"
    return "account" if part_number in ACCOUNT_PARTS else "premium"


def reading_minutes(words: int) -> int:
    return max(1, math.ceil(words / WORDS_PER_MINUTE))


def _int(value: object) -> int:
    try:
        return int(value)  # type: ignore[call-overload,no-any-return]
    except (TypeError, ValueError):
        return 0


class CourseCheck(ContentCheck):
    """``ContentCheck`` plus the course: parts, lessons, and the lesson rules."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        # (part number, part slug, folder) and the lessons of each part
        self.parts: list[tuple[int, str, Path]] = []
        self.lessons: list[tuple[int, Doc]] = []  # (part number, lesson)
        for part_dir in sorted(p for p in (self.root / "lessons").glob("*") if p.is_dir()):
            meta = {}
            if (part_dir / "_part.md").is_file():
                doc = _load(part_dir / "_part.md", self.findings)
                meta = doc.meta if doc else {}
            else:
                self._add(part_dir, "reference", "missing _part.md")
            number = _int(meta.get("number"))
            self.parts.append((number, str(meta.get("slug", "")), part_dir))
            for path in sorted(part_dir.glob("[0-9]*.md")):
                lesson = _load(path, self.findings)
                if lesson:
                    self.lessons.append((number, lesson))

    def run(self) -> list[Finding]:
        super().run()
        self._parts()
        order = {
            str(doc.meta.get("slug")): (part, _int(doc.meta.get("number")))
            for part, doc in self.lessons
        }
        question_slugs = {
            f"{track}/{q.meta.get('slug')}" for track, docs in self.tracks.items() for q in docs
        }
        for part, doc in self.lessons:
            self._lesson(part, doc, order, question_slugs)
            self._checked(doc)
        self._lesson_boilerplate()
        return self.findings

    def _parts(self) -> None:
        for number, slug, folder in self.parts:
            if folder.name != f"{number:02d}-{slug}":
                self._add(
                    folder,
                    "reference",
                    f"folder name should be {number:02d}-{slug} (the part's number and slug)",
                )

    def _lesson(
        self, part: int, doc: Doc, order: dict[str, tuple[int, int]], question_slugs: set[str]
    ) -> None:
        m = doc.meta
        slug, number = str(m.get("slug", "")), _int(m.get("number"))
        if doc.path.name != f"{number:02d}-{slug}.md":
            self._add(doc, "reference", f"file name should be {number:02d}-{slug}.md")
        # lesson-length (and the sections that make the table of contents)
        words = word_count(doc.body)
        if not LESSON_MIN_WORDS <= words <= LESSON_MAX_WORDS:
            self._add(
                doc,
                "lesson-length",
                f"body has {words} words; a lesson has {LESSON_MIN_WORDS}-{LESSON_MAX_WORDS}",
            )
        sections = headings(doc.body)
        if not MIN_SECTIONS <= len(sections) <= MAX_SECTIONS:
            self._add(
                doc,
                "lesson-length",
                f"{len(sections)} '##' sections; a lesson has {MIN_SECTIONS}-{MAX_SECTIONS}",
            )
        if H1.search(FENCE.sub(" ", doc.body)):
            self._add(doc, "lesson-length", "no '#' heading: the title is the page's heading")
        if not sections or sections[-1].lower() != "summary":
            self._add(doc, "lesson-length", "end with a '## Summary' section of 3-6 bullets")
        # lesson-minutes
        minutes, expected = _int(m.get("minutes")), reading_minutes(words)
        if abs(minutes - expected) > MINUTES_SLACK * expected:
            self._add(
                doc,
                "lesson-minutes",
                f"minutes: {m.get('minutes')!r}; {words} words read in about {expected}",
            )
        # lesson-calc
        blocks = [d for d in DIRECTIVE.findall(doc.body) if "->" not in d]
        if not blocks:
            self._add(doc, "lesson-calc", "no worked-steps {{calc ...}} block (one without ->)")
        # lesson-diagram
        own = [
            src
            for src in (im.group("src") for im in IMAGE.finditer(doc.body))
            if src.startswith(f"diagrams/lesson-{slug}-") and src.endswith(".svg")
        ]
        if not any((self.root / src).is_file() for src in own):
            self._add(
                doc,
                "lesson-diagram",
                f"no diagram of its own: embed diagrams/lesson-{slug}-<name>.svg (file present)",
            )
        self._lesson_links(part, doc, order, question_slugs)
        # lesson-check
        for problem in check_item_problems(m.get("check")):
            self._add(doc, "lesson-check", problem)
        # lesson-access
        want = expected_access(part, number)
        if m.get("access") != want:
            self._add(
                doc,
                "lesson-access",
                f"access: {m.get('access')!r}; lesson {number} of part {part} is {want!r}",
            )
        self._sources(doc, MIN_REFERENCES, MAX_REFERENCES)
        explains = [
            str(item.get("explain", ""))
            for item in (m.get("check") or [])
            if isinstance(item, dict)
        ]
        for text in (doc.body, *explains):
            self._markdown(doc, text)
            self._typed_numbers(doc, text)

    def _lesson_links(
        self, part: int, doc: Doc, order: dict[str, tuple[int, int]], question_slugs: set[str]
    ) -> None:
        m = doc.meta
        questions = [str(q) for q in (m.get("questions") or [])]
        concepts = [str(c) for c in (m.get("concepts") or [])]
        if len(questions) < MIN_QUESTIONS:
            self._add(doc, "lesson-links", f"{len(questions)} questions; link {MIN_QUESTIONS}+")
        for ref in questions:
            if ref not in question_slugs:
                self._add(doc, "lesson-links", f"question {ref!r} does not exist")
        if len(concepts) < MIN_CONCEPTS:
            self._add(doc, "lesson-links", f"{len(concepts)} concepts; link {MIN_CONCEPTS}+")
        for slug in concepts:
            if slug not in self.concepts:
                self._add(doc, "lesson-links", f"concept {slug!r} does not exist")
        here = (part, _int(m.get("number")))
        for slug in m.get("prerequisites") or []:
            place = order.get(str(slug))
            if place is None:
                self._add(doc, "lesson-links", f"prerequisite {slug!r} does not exist")
            elif place >= here:
                self._add(doc, "lesson-links", f"prerequisite {slug!r} comes later in the course")

    def _lesson_boilerplate(self) -> None:
        seen: dict[str, set[str]] = defaultdict(set)
        for _, doc in self.lessons:
            for sentence in sentences(doc.body):
                seen[sentence].add(str(doc.path))
        for sentence, paths in seen.items():
            if len(paths) >= 3:
                for path in sorted(paths):
                    self._add(
                        path,
                        "boilerplate",
                        f"sentence shared by {len(paths)} lessons: '{sentence[:80]}…'",
                    )


def check_course(
    root: Path,
    *,
    tracks: Iterable[str] = (),
    concepts: bool = False,
    guides: bool = False,
    lessons: bool = False,
) -> list[Finding]:
    """Every finding under ``root``, lessons included; narrowed to the named parts when
    any is given (``lessons``: the course alone)."""
    root = Path(root)
    if not lessons:
        if tracks or concepts or guides:
            return check_content(root, tracks=tracks, concepts=concepts, guides=guides)
        return CourseCheck(root).run()
    findings = CourseCheck(root).run()
    prefixes = [str(root / "lessons")]
    prefixes += [str(root / "tracks" / t) for t in tracks]
    if concepts:
        prefixes.append(str(root / "concepts"))
    if guides:
        prefixes.append(str(root / "guides"))
    return [f for f in findings if f.path.startswith(tuple(prefixes))]
