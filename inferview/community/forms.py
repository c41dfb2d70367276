"""Forms for the HTML views. Validation messages name the field and say what to change."""

from __future__ import annotations

from django import forms

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
