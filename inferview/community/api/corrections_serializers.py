"""Serializers of the corrections API: a report in, a report out, a decision in."""

from __future__ import annotations

from rest_framework import serializers

from inferview.community.corrections.models import (
    CHANGE_NOTE_MAX_LENGTH,
    NOTE_MAX_LENGTH,
    QUOTE_MAX_LENGTH,
    Correction,
    CorrectionKind,
    CorrectionState,
    TargetType,
)
from inferview.community.corrections.selectors import target_url

DECISIONS = [CorrectionState.ACCEPTED, CorrectionState.DECLINED, CorrectionState.FIXED]


class CorrectionWriteSerializer(serializers.Serializer):
    target_type = serializers.ChoiceField(choices=TargetType.choices)
    target_id = serializers.IntegerField(min_value=1, max_value=2**31 - 1)
    quote = serializers.CharField(
        max_length=QUOTE_MAX_LENGTH,
        help_text="The passage with the mistake, as it reads on the page (whitespace is "
        "ignored). It must be text this reader can read.",
    )
    kind = serializers.ChoiceField(choices=CorrectionKind.choices)
    note = serializers.CharField(max_length=NOTE_MAX_LENGTH, help_text="What is wrong.")


class CorrectionDecisionSerializer(serializers.Serializer):
    state = serializers.ChoiceField(choices=[(s.value, s.label) for s in DECISIONS])
    change_note = serializers.CharField(
        max_length=CHANGE_NOTE_MAX_LENGTH,
        required=False,
        allow_blank=True,
        help_text="Required for fixed and declined: emailed to the reporters, and shown "
        "under “What changed” when fixed.",
    )


class CorrectionSerializer(serializers.ModelSerializer):
    """A report as its reporters and the authors see it."""

    target_type = serializers.ChoiceField(choices=TargetType.choices, read_only=True)
    target_id = serializers.IntegerField(read_only=True)
    target_title = serializers.SerializerMethodField()
    url = serializers.SerializerMethodField()
    note = serializers.SerializerMethodField(help_text="Your own note (empty for an author)")
    reporters = serializers.SerializerMethodField(help_text="How many readers reported it")
    joined = serializers.SerializerMethodField(
        help_text="True when this report joined an open report of the same passage"
    )

    class Meta:
        model = Correction
        fields = [
            "id",
            "target_type",
            "target_id",
            "target_title",
            "url",
            "quote",
            "kind",
            "note",
            "state",
            "change_note",
            "reporters",
            "joined",
            "created_at",
            "decided_at",
        ]

    def get_target_title(self, obj: Correction) -> str:
        return str(obj.target.title)

    def get_url(self, obj: Correction) -> str:
        return target_url(obj)

    def get_note(self, obj: Correction) -> str:
        if hasattr(obj, "my_note"):
            return obj.my_note
        user = self.context.get("user")
        report = obj.reports.filter(user=user).first() if user is not None else None
        return report.note if report else ""

    def get_reporters(self, obj: Correction) -> int:
        if hasattr(obj, "reporter_count"):
            return obj.reporter_count
        return obj.reports.count()

    def get_joined(self, obj: Correction) -> bool:
        return bool(self.context.get("joined", False))
