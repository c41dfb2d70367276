"""The content check's rules for one item in the database, for admin (its change form and
a column in the list): the same rules ``check_content`` applies to the files, read from the
row an author is editing instead of from a file."""

from __future__ import annotations

from typing import Any

from calculators.directive import find_box_problems
from calculators.errors import CalculatorInputError
from calculators.provenance import box_problems
from calculators.validation import validate

from .checked import month_problem
from .content_check import ANSWER_MIN_WORDS, word_count
from .dated_names import dated_names_in
from .models import Question
from .validation import database_problems, key_point_problems


def findings_for(obj: Any) -> list[str]:
    """``rule: message`` lines for ``obj`` (a question, concept, guide or guide item);
    empty when clean. A guide item has no checked month of its own (its section's and
    guide's hold it), so only its text is checked."""
    found: list[str] = []
    texts = [getattr(obj, "body", None) or getattr(obj, "intro", "")]
    if isinstance(obj, Question):
        texts.append(obj.answer)
        words = word_count(obj.answer)
        if words < ANSWER_MIN_WORDS:
            found.append(f"length: the answer has {words} words; at least {ANSWER_MIN_WORDS}")
        found += [f"key-points: {p}" for p in key_point_problems(obj.key_points)]
        if obj.pk:
            for embed in obj.calculator_embeds.all():
                found += _embed_problems(embed.calculator, embed.inputs or {}, embed.preset)
    for text in texts:
        found += [f"{rule}: {message}" for rule, message in find_box_problems(text or "")]
        found += [f"directive: {p}" for p in database_problems(text or "")]
    if not hasattr(obj, "checked"):
        return list(dict.fromkeys(found))
    if obj.checked:
        if problem := month_problem(obj.checked):
            found.append(f"checked: {problem}")
    else:
        names = dated_names_in("\n".join([obj.title, obj.summary, *texts]))
        if names:
            found.append(f"checked: names {', '.join(names[:3])} but has no checked month")
    return list(dict.fromkeys(found))


def _embed_problems(slug: str, inputs: dict, preset: str) -> list[str]:
    try:
        clean = validate(slug, inputs, preset or None)
    except CalculatorInputError as exc:
        return [f"reference: calculator embed '{slug}': {exc}"]
    problems = box_problems(slug, inputs, preset or None, clean)
    return [f"{rule}: calculator embed '{slug}': {message}" for rule, message in problems]
