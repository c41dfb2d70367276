"""Quality rules for the content files, checked before anything is imported.

The check reads the files under a content folder (layout in content/README.md) without a
database, so an author gets the same verdict from ``manage.py check_content`` as CI gets
from the test that runs it over the shipped content. Each rule has a name; a finding
names the file, the rule and what to change.

Rules (the content issue's list):
- ``reference``: a concept, calculator, guide concept, diagram or internal link that does
  not resolve.
- ``directive``: a ``{{calc}}`` directive that errors.
- ``length``: an answer under 250 words, a concept under 300.
- ``access``: a track whose open/account counts are not 10/10 (the rest premium), or
  whose numbers have gaps.
- ``boilerplate``: a sentence of 12+ words shared by three or more answers.
- ``ending``: more than a quarter of a track's answers end with the same heading.
- ``sources``: an answer or concept without 1-4 complete references.
- ``diagram``: an image without alt text or caption, or not a diagram file of ours.
- ``typed-number``: in a calculation answer, a line with three or more numbers and no
  directive (arithmetic typed by hand), unless it ends with ``<!-- quoted -->``.
- ``key-points``: key points that are not 3-6 sentences of 20-240 characters.
- ``practice``: a graded-practice spec the grader cannot use (unknown calculator, output,
  variable or mistake, a default variant the calculator rejects), or one on a question
  that is not a calculation.
- ``links``: a question with fewer than 2 or more than 4 concepts; a concept no question
  links.
- ``efficiency``: a ``{{calc}}`` directive or calculator embed whose result has both a
  compute and a bandwidth ceiling and derates one alone: the two efficiencies differ and
  the author did not set both (one set and the other left at its default, or two defaults
  that differ). Set both, equal unless the text says why not.
- ``precision``: a directive or embed that gives ``precision`` beside a typed
  ``peak_tflops`` that is not the preset device's peak at that precision (bf16 beside the
  H100's 1,979 TFLOP/s, its FP8 figure).
- ``checked``: a question, concept, guide or guide section that names a product or version
  of ``questions.dated_names`` (GPU generations, engines, compilers, orchestrators) without
  ``checked: YYYY-MM``, or whose ``checked`` is not a real past month.
- ``stale``: a ``checked`` month before ``CHECKED_STALE_BEFORE``.

The two calculator rules live in ``calculators.provenance.box_problems``, beside the code
that decides what a box shows.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import frontmatter
import yaml

from calculators.directive import find_box_problems
from calculators.errors import CalculatorInputError
from calculators.provenance import box_problems
from calculators.validation import validate

from .checked import month_problem
from .content_format import ANSWER_SEPARATOR, ITEM_HEADING, PRACTICE_KEYS
from .dated_names import dated_names_in
from .validation import IMAGE, key_point_problems, markdown_problems, practice_problems

ANSWER_MIN_WORDS = 250
CONCEPT_MIN_WORDS = 300
OPEN_PER_TRACK = ACCOUNT_PER_TRACK = 10
BOILERPLATE_WORDS = 12
BOILERPLATE_ANSWERS = 3
QUOTED_MARKER = "<!-- quoted -->"
REFERENCE_FIELDS = ("title", "publisher", "year", "url")
# A page's facts must have been checked in this month or later (issue 25: every file
# checked against late-2026 sources); older months are reported as stale.
CHECKED_STALE_BEFORE = "2026-11"

DIRECTIVE = re.compile(r"\{\{\s*calc\b[^{}]*\}\}")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,}).*?^ {0,3}\1", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`[^`\n]+`")
NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\w])")
LIST_MARKER = re.compile(r"^\s*(?:\d+[.)]|[-*+])\s+")
HEADING = re.compile(r"^(?:#{2,6}\s+(?P<h>.+?)\s*#*\s*$|\*\*(?P<b>[^*]+?)\*\*)", re.MULTILINE)
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’/.-]*")


@dataclass(frozen=True)
class Finding:
    path: str
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: [{self.rule}] {self.message}"


@dataclass
class Doc:
    """One content file: its front matter and its Markdown parts."""

    path: Path
    meta: dict[str, Any]
    body: str
    answer: str = ""


def _load(path: Path, findings: list[Finding]) -> Doc | None:
    try:
        post = frontmatter.load(str(path))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        findings.append(Finding(str(path), "reference", f"unreadable front matter: {exc}"))
        return None
    text = post.content
    if ANSWER_SEPARATOR in text:
        body, answer = (part.strip() for part in text.split(ANSWER_SEPARATOR, 1))
        return Doc(path, dict(post.metadata), body, answer)
    return Doc(path, dict(post.metadata), text.strip())


def prose(markdown: str) -> str:
    """Markdown without code, directives and images: the words a reader reads."""
    text = FENCE.sub(" ", markdown)
    text = DIRECTIVE.sub(" ", text)
    text = IMAGE.sub(" ", text)
    return CODE_SPAN.sub(" ", text)


def word_count(markdown: str) -> int:
    return len(WORD.findall(prose(markdown)))


class ContentCheck:
    """Loads a content folder once and runs every rule over it."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.findings: list[Finding] = []
        self.concepts: dict[str, Doc] = {}
        self.tracks: dict[str, list[Doc]] = {}
        self.guides: dict[str, list[Doc]] = {}
        self.guide_files: list[Doc] = []  # each guide's _guide.md
        for path in sorted((self.root / "concepts").glob("*.md")):
            doc = _load(path, self.findings)
            if doc:
                self.concepts[str(doc.meta.get("slug") or path.stem)] = doc
        for track_dir in sorted(p for p in (self.root / "tracks").glob("*") if p.is_dir()):
            docs = [_load(p, self.findings) for p in sorted(track_dir.glob("[0-9]*.md"))]
            self.tracks[track_dir.name] = [d for d in docs if d]
        for guide_dir in sorted(p for p in (self.root / "guides").glob("*") if p.is_dir()):
            docs = [_load(p, self.findings) for p in sorted(guide_dir.glob("[0-9]*.md"))]
            self.guides[guide_dir.name] = [d for d in docs if d]
            if (guide_dir / "_guide.md").is_file():
                doc = _load(guide_dir / "_guide.md", self.findings)
                if doc:
                    self.guide_files.append(doc)

    # -- running -------------------------------------------------------------------------

    def run(self) -> list[Finding]:
        questions = [q for docs in self.tracks.values() for q in docs]
        for q in questions:
            self._question(q)
        for track, docs in self.tracks.items():
            self._track(track, docs)
        for c in self.concepts.values():
            self._concept(c)
        for docs in self.guides.values():
            for section in docs:
                self._guide_section(section)
        for doc in (*questions, *self.concepts.values(), *self.guide_files):
            self._checked(doc)
        for docs in self.guides.values():
            for section in docs:
                self._checked(section)
        self._boilerplate(questions)
        self._unlinked_concepts(questions)
        return self.findings

    def _add(self, doc: Doc | Path | str, rule: str, message: str) -> None:
        path = doc.path if isinstance(doc, Doc) else doc
        self.findings.append(Finding(str(path), rule, message))

    # -- per file ------------------------------------------------------------------------

    def _question(self, q: Doc) -> None:
        if not q.answer:
            self._add(q, "length", f"no answer: add the '{ANSWER_SEPARATOR}' line and the answer")
            return
        words = word_count(q.answer)
        if words < ANSWER_MIN_WORDS:
            self._add(q, "length", f"answer has {words} words; at least {ANSWER_MIN_WORDS}")
        slugs = list(q.meta.get("concepts") or [])
        if not 2 <= len(slugs) <= 4:
            self._add(q, "links", f"links {len(slugs)} concepts; a question links 2-4")
        for slug in slugs:
            if slug not in self.concepts:
                self._add(q, "reference", f"concept '{slug}' does not exist")
        for embed in q.meta.get("calculators") or []:
            self._embed(q, embed)
        for problem in key_point_problems(q.meta.get("key_points")):
            self._add(q, "key-points", problem)
        practice = {k: q.meta[k] for k in PRACTICE_KEYS if k in q.meta}
        for problem in practice_problems(practice):
            self._add(q, "practice", problem)
        if practice and q.meta.get("kind") != "calculation":
            self._add(q, "practice", "only calculation questions take a practice spec")
        self._sources(q)
        for part in (q.body, q.answer):
            self._markdown(q, part)
        if q.meta.get("kind") == "calculation":
            self._typed_numbers(q, q.answer)

    def _concept(self, c: Doc) -> None:
        words = word_count(c.body)
        if words < CONCEPT_MIN_WORDS:
            self._add(c, "length", f"explanation has {words} words; at least {CONCEPT_MIN_WORDS}")
        self._sources(c)
        self._markdown(c, c.body)

    def _guide_section(self, s: Doc) -> None:
        for slug in s.meta.get("concepts") or []:
            if slug not in self.concepts:
                self._add(s, "reference", f"concept '{slug}' does not exist")
        self._markdown(s, s.body)
        matches = list(ITEM_HEADING.finditer(s.body))
        for i, m in enumerate(matches):
            if m.group(1) != "calculation":
                continue
            end = matches[i + 1].start() if i + 1 < len(matches) else len(s.body)
            self._typed_numbers(s, s.body[m.end() : end], offset=s.body.count("\n", 0, m.end()))

    def _embed(self, q: Doc, embed: Any) -> None:
        if not isinstance(embed, dict):
            self._add(q, "reference", f"calculators: {embed!r} is not a mapping")
            return
        slug = str(embed.get("calculator", ""))
        inputs, preset = embed.get("inputs") or {}, embed.get("preset") or None
        try:
            clean = validate(slug, inputs, preset)
        except CalculatorInputError as exc:
            reasons = "; ".join(f"{k}: {', '.join(v)}" for k, v in exc.fields.items())
            self._add(q, "reference", f"calculator embed '{slug}': {reasons}")
            return
        for rule, message in box_problems(slug, inputs, preset, clean):
            self._add(q, rule, f"calculator embed '{slug}' {_inline(inputs)}: {message}")

    def _checked(self, doc: Doc) -> None:
        """``checked: YYYY-MM`` where the page names a dated product, and never stale."""
        value = doc.meta.get("checked")
        if value in (None, ""):
            names = dated_names_in(_dated_text(doc))
            if names:
                shown = ", ".join(names[:5]) + (", …" if len(names) > 5 else "")
                self._add(
                    doc,
                    "checked",
                    f"names {shown} but has no 'checked: YYYY-MM': verify its facts against "
                    "primary sources and give the month",
                )
            return
        if problem := month_problem(value):
            self._add(doc, "checked", f"checked: {problem}")
        elif str(value).strip() < CHECKED_STALE_BEFORE:
            self._add(
                doc,
                "stale",
                f"checked {value} is before {CHECKED_STALE_BEFORE}: verify its facts again "
                "and move the month",
            )

    def _sources(self, doc: Doc, low: int = 1, high: int = 4) -> None:
        """``low``-``high`` complete references (a lesson asks 2-6)."""
        refs = doc.meta.get("references")
        if not isinstance(refs, list) or not low <= len(refs) <= high:
            self._add(doc, "sources", f"give {low}-{high} references (title, publisher, year, url)")
            return
        for i, ref in enumerate(refs, start=1):
            missing = [f for f in REFERENCE_FIELDS if not (isinstance(ref, dict) and ref.get(f))]
            if missing:
                self._add(doc, "sources", f"reference {i}: missing {', '.join(missing)}")
            elif not str(ref["url"]).startswith(("https://", "http://")):
                self._add(doc, "sources", f"reference {i}: url must be http(s)")

    def _markdown(self, doc: Doc, text: str) -> None:
        for rule, message in find_box_problems(text):
            self._add(doc, rule, message)
        for rule, message in markdown_problems(
            text,
            concept_exists=lambda slug: slug in self.concepts,
            track_exists=lambda slug: slug in self.tracks,
            guide_exists=lambda slug: slug in self.guides,
            diagram_exists=lambda src: (self.root / src).is_file(),
        ):
            self._add(doc, rule, message)

    def _typed_numbers(self, doc: Doc, text: str, offset: int = 0) -> None:
        """Line numbers count from the start of the answer (or of the guide section)."""
        for n, line in enumerate(
            FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text).split("\n")
        ):
            if DIRECTIVE.search(line) or line.rstrip().endswith(QUOTED_MARKER):
                continue
            numbers = NUMBER.findall(CODE_SPAN.sub(" ", LIST_MARKER.sub("", line)))
            if len(numbers) >= 3:
                self._add(
                    doc,
                    "typed-number",
                    f"line {offset + n + 1}: {len(numbers)} typed numbers and no "
                    f"{{{{calc}}}} ({line.strip()[:70]}…); compute them, or end a line "
                    f"that only quotes a datasheet with {QUOTED_MARKER}",
                )

    # -- across files --------------------------------------------------------------------

    def _track(self, track: str, docs: list[Doc]) -> None:
        where = self.root / "tracks" / track
        numbers = sorted(int(d.meta.get("number") or 0) for d in docs)
        if numbers != list(range(1, len(docs) + 1)):
            self._add(where, "access", f"numbers are not 1..{len(docs)} without gaps")
        counts = Counter(str(d.meta.get("access", "open")) for d in docs)
        if counts["open"] != OPEN_PER_TRACK or counts["account"] != ACCOUNT_PER_TRACK:
            self._add(
                where,
                "access",
                f"{counts['open']} open and {counts['account']} account answers; the paywall "
                f"promises {OPEN_PER_TRACK} and {ACCOUNT_PER_TRACK}",
            )
        endings = Counter(e for e in (final_heading(d.answer) for d in docs) if e)
        for heading, count in endings.items():
            if count * 4 > len(docs):
                self._add(
                    where,
                    "ending",
                    f"{count} of {len(docs)} answers end with the heading '{heading}'; at "
                    "most a quarter may",
                )

    def _boilerplate(self, questions: list[Doc]) -> None:
        seen: dict[str, set[str]] = defaultdict(set)
        for q in questions:
            for sentence in sentences(q.answer):
                seen[sentence].add(str(q.path))
        for sentence, paths in seen.items():
            if len(paths) >= BOILERPLATE_ANSWERS:
                for path in sorted(paths):
                    self._add(
                        path,
                        "boilerplate",
                        f"sentence shared by {len(paths)} answers: '{sentence[:80]}…'",
                    )

    def _unlinked_concepts(self, questions: list[Doc]) -> None:
        linked = {s for q in questions for s in (q.meta.get("concepts") or [])}
        for slug, c in self.concepts.items():
            if slug not in linked:
                self._add(c, "links", "no question links this concept")


def _inline(inputs: Any) -> str:
    if not isinstance(inputs, dict):
        return repr(inputs)
    return "{" + ", ".join(f"{k}: {v}" for k, v in inputs.items()) + "}"


def _dated_text(doc: Doc) -> str:
    """What a reader reads of a file: title, summary, key points, body and answer."""
    points = doc.meta.get("key_points") or []
    parts = [doc.meta.get("title"), doc.meta.get("summary"), doc.body, doc.answer]
    parts += points if isinstance(points, list) else [points]
    return "\n".join(str(p) for p in parts if p)


def sentences(markdown: str) -> set[str]:
    """Normalised sentences of 12+ words (lower case, words only)."""
    out = set()
    for paragraph in prose(markdown).split("\n\n"):
        for sentence in SENTENCE_END.split(" ".join(paragraph.split())):
            words = [w.lower().strip(".") for w in WORD.findall(sentence)]
            if len(words) >= BOILERPLATE_WORDS:
                out.add(" ".join(words))
    return out


def final_heading(markdown: str) -> str | None:
    """The last heading of an answer, or the bold lead of its last paragraph (the
    '**Common wrong answer.**' pattern), normalised; None when the answer has neither."""
    last = None
    for m in HEADING.finditer(markdown):  # anchored at a line start: list items never match
        last = (m.group("h") or m.group("b") or "").strip().rstrip(".:").lower()
    return last or None


def check_content(
    root: Path, *, tracks: Iterable[str] = (), concepts: bool = False, guides: bool = False
) -> list[Finding]:
    """Every finding under ``root``; narrowed to the named parts when any is given."""
    root = Path(root)
    findings = ContentCheck(root).run()
    tracks = list(tracks)
    if not (tracks or concepts or guides):
        return findings
    prefixes = [str(root / "tracks" / t) for t in tracks]
    if concepts:
        prefixes.append(str(root / "concepts"))
    if guides:
        prefixes.append(str(root / "guides"))
    return [f for f in findings if f.path.startswith(tuple(prefixes))]
