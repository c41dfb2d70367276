"""Serializers for cram plans: the plan laid over the days to the interview, and ticking
an item."""

from __future__ import annotations

from rest_framework import serializers

from inferview.community.models import (
    CramItem,
)

from .serializers import QuestionBriefSerializer


class CramItemSerializer(serializers.ModelSerializer):
    question = QuestionBriefSerializer(read_only=True)
    reason = serializers.CharField(help_text="due, weak or new")
    done = serializers.SerializerMethodField()

    class Meta:
        model = CramItem
        fields = ["id", "question", "day", "reason", "done", "done_at"]

    def get_done(self, obj: CramItem) -> bool:
        return obj.done_at is not None


class CramDaySerializer(serializers.Serializer):
    day = serializers.DateField()
    items = CramItemSerializer(many=True)


class CramPlanSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    interview_on = serializers.DateField()
    tracks = serializers.ListField(child=serializers.CharField())
    created_at = serializers.DateTimeField()
    today = serializers.DateField()
    days_left = serializers.IntegerField()
    done = serializers.IntegerField()
    total = serializers.IntegerField()
    percent = serializers.IntegerField()
    behind = serializers.IntegerField(help_text="Items planned before today and not done")
    days = CramDaySerializer(many=True)


class CramPlanStateSerializer(serializers.Serializer):
    plan = CramPlanSerializer(allow_null=True, help_text="Your current plan, if you have one")


class CramPlanWriteSerializer(serializers.Serializer):
    interview_on = serializers.DateField(help_text="YYYY-MM-DD, after today")
    tracks = serializers.ListField(
        child=serializers.SlugField(max_length=80), max_length=50, help_text="Track slugs"
    )


class CramItemWriteSerializer(serializers.Serializer):
    done = serializers.BooleanField()
