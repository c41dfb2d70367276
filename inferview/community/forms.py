"""Forms for the HTML views. Validation messages name the field and say what to change."""

from __future__ import annotations

from django import forms

from inferview.community.corrections.models import (
    NOTE_MAX_LENGTH,
    QUOTE_MAX_LENGTH,
    CorrectionKind,
    TargetType,
)
from inferview.community.discussion.services import COMMENT_MAX_LENGTH
from inferview.community.practice.services import APPROACH_MAX_LENGTH

from .models import CommentReport, DifficultyFelt, ProgressStatus, Rating


class CommentForm(forms.Form):
    body = forms.CharField(
        label="Your comment",
        max_length=COMMENT_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text="Markdown works: **bold**, `code`, lists and links. HTML is shown as text.",
        error_messages={
            "required": "Write something first.",
            "max_length": f"Keep comments under {COMMENT_MAX_LENGTH:,} characters.",
        },
    )
    parent = forms.IntegerField(required=False, widget=forms.HiddenInput)


class ApproachForm(forms.Form):
    approach = forms.CharField(
        label="Your approach",
        required=False,
        max_length=APPROACH_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 6}),
        help_text="Only you can see this. Sketch how you would answer before you reveal ours.",
        error_messages={
            "max_length": f"Keep your approach under {APPROACH_MAX_LENGTH:,} characters."
        },
    )
    action = forms.ChoiceField(
        choices=[("save", "Save"), ("reveal", "Save and reveal")], required=False
    )


class RatingForm(forms.Form):
    rating = forms.TypedChoiceField(
        choices=Rating.choices,
        coerce=int,
        error_messages={"required": "Choose how well you recalled it."},
    )


class ProgressForm(forms.Form):
    status = forms.ChoiceField(choices=ProgressStatus.choices)


class DifficultyForm(forms.Form):
    felt = forms.ChoiceField(
        choices=DifficultyFelt.choices,
        widget=forms.RadioSelect,
        error_messages={"required": "Choose one."},
    )


class ReportForm(forms.Form):
    reason = forms.ChoiceField(
        choices=CommentReport.Reason.choices,
        widget=forms.RadioSelect,
        error_messages={"required": "Choose a reason."},
    )
    note = forms.CharField(
        required=False,
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 3}),
        label="Anything else (optional)",
    )


class CorrectionForm(forms.Form):
    """ "Report a mistake" on a question, concept or guide page (works without JavaScript:
    the passage is pasted; the page's script fills it from the selection)."""

    target_type = forms.ChoiceField(choices=TargetType.choices, widget=forms.HiddenInput)
    target_id = forms.IntegerField(
        label="Which item",
        min_value=1,
        error_messages={"required": "Choose the item with the mistake."},
    )
    quote = forms.CharField(
        label="The passage",
        max_length=QUOTE_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Copy it from the page (selecting text on the page fills it in).",
        error_messages={
            "required": "Quote the passage with the mistake.",
            "max_length": f"Keep the passage under {QUOTE_MAX_LENGTH:,} characters.",
        },
    )
    kind = forms.ChoiceField(
        label="What is wrong",
        choices=CorrectionKind.choices,
        widget=forms.RadioSelect,
        error_messages={"required": "Choose what kind of mistake it is."},
    )
    note = forms.CharField(
        label="Your note",
        max_length=NOTE_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="What is wrong, and what it should say if you know.",
        error_messages={
            "required": "Say what is wrong.",
            "max_length": f"Keep the note under {NOTE_MAX_LENGTH:,} characters.",
        },
    )
