"""Content with a recognisable marker in every guarded text, so a test can tell from any
response body whether a locked answer or concept body leaked."""

from dataclasses import dataclass, field

import pytest

from tests.factories import (
    ConceptFactory,
    LessonFactory,
    PartFactory,
    QuestionFactory,
    TrackFactory,
)

LEVELS = ("open", "account", "premium")

#: Every gated question is a graded calculation, so the crawl reaches its numbers page.
PRACTICE = {
    "target": {
        "calculator": "kv_cache",
        "output": "total_gb",
        "unit": "GB",
        "prompt": "How much KV cache does {model} need for {batch_size} sequences of "
        "{seq_len} tokens?",
    },
    "variables": {
        "model": ["llama-3.1-8b", "llama-3.1-70b"],
        "seq_len": [4096, 8192],
        "batch_size": {"min": 1, "max": 16},
    },
    "mistakes": ["kv-counted-once"],
    "follow_ups": [{"prompt": "Now at 128k context?", "set": {"seq_len": 131072}}],
}

#: The table in the product brief: which access levels each tier reads. Tests compare
#: against this, never against the policy module, so a broken policy is caught.
READS = {
    "anonymous": {"open"},
    "free": {"open", "account"},
    "premium": {"open", "account", "premium"},
    "staff": {"open", "account", "premium"},
}

#: Needles share no trigrams with the items' titles ("Gated concept account"): PostgreSQL's
#: search falls back to trigram similarity of (public) titles for a query that finds
#: nothing, and "needleconceptaccount" is rightly similar to that title, which is not a leak.
CODE = {"open": "xo", "account": "xa", "premium": "xp"}


def marker(kind: str, access: str, n: int) -> str:
    return f"SECRET{kind.upper()}{access.upper()}{n}X"


@dataclass
class GatedContent:
    tracks: list = field(default_factory=list)
    questions: list = field(default_factory=list)
    concepts: list = field(default_factory=list)
    lessons: list = field(default_factory=list)

    def guarded_texts(self):
        """(access level, marker) for every answer, key point, concept body and lesson body
        (the check items' prompts sit in the body's marker's place: see ``gated``)."""
        for q in self.questions:
            yield q.access, q.answer_marker
            yield q.access, q.points_marker
        for c in self.concepts:
            yield c.access, c.body_marker
        for le in self.lessons:
            yield le.access, le.body_marker
            yield le.access, le.check_marker

    def items(self):
        return [*self.questions, *self.concepts, *self.lessons]

    def hidden_from(self, tier: str) -> list[str]:
        return [m for access, m in self.guarded_texts() if access not in READS[tier]]

    def visible_to(self, tier: str) -> list[str]:
        return [m for access, m in self.guarded_texts() if access in READS[tier]]


@pytest.fixture
def gated(db) -> GatedContent:
    """Two tracks; each has open, account and premium questions (3, 2 and 2: the paywall's
    counts differ per tier); concepts at every level, linked to the questions."""
    content = GatedContent()
    concepts = []
    for i, access in enumerate(LEVELS):
        m = marker("concept", access, i)
        c = ConceptFactory(
            access=access,
            slug=f"gated-concept-{access}",
            title=f"Gated concept {access}",
            body=f"{m} The concept body explains the idea in full, needlekc{CODE[access]}. {m}",
        )
        c.body_marker = m
        c.needle = f"needlekc{CODE[access]}"
        concepts.append(c)
    content.concepts = concepts
    n = 0
    for t in range(2):
        track = TrackFactory(slug=f"gated-track-{t}", title=f"Gated track {t}")
        content.tracks.append(track)
        number = 0
        for access, count in (("open", 3), ("account", 2), ("premium", 2)):
            for _ in range(count):
                number += 1
                n += 1
                m = marker("answer", access, n)
                points = marker("point", access, n)
                q = QuestionFactory(
                    kind="calculation",
                    key_points=[
                        f"{points} the first key point a good answer makes.",
                        "The second key point a good answer makes, in plain words.",
                        "The third key point a good answer makes, in plain words.",
                    ],
                    practice=PRACTICE,
                    track=track,
                    number=number,
                    slug=f"gated-{t}-{number}",
                    access=access,
                    answer=f"{m} The worked answer separates the two effects, needlekq{CODE[access]}{n}. {m}",
                    summary=f"Summary of gated question {n}.",
                )
                q.concepts.set(concepts)
                q.answer_marker = m
                q.points_marker = points
                q.needle = f"needlekq{CODE[access]}{n}"
                content.questions.append(q)
    # The course: a part with a lesson at each level, each linking the gated questions and
    # concepts; the body and the check's prompts carry markers, the headings do not.
    part = PartFactory(number=1, slug="gated-part", title="Gated part")
    for i, access in enumerate(LEVELS):
        m, check = marker("lesson", access, i), marker("check", access, i)
        lesson = LessonFactory(
            part=part,
            number=i + 1,
            slug=f"gated-lesson-{access}",
            title=f"Gated lesson {access}",
            access=access,
            body=f"## Public heading {access}\n\n{m} The lesson teaches it in order, "
            f"needlekl{CODE[access]}. {m}\n\n## Summary\n\n- One point.",
        )
        lesson.check_items[0]["prompt"] = f"{check} Which phase is memory-bound?"
        lesson.check_items[0]["explain"] = f"{check} Decode reads every weight."
        lesson.save()
        lesson.questions.set(content.questions[:3])
        lesson.concepts.set(concepts)
        lesson.body_marker, lesson.check_marker = m, check
        lesson.needle = f"needlekl{CODE[access]}"
        content.lessons.append(lesson)
    return content
