"""Celery tasks of the community app, here so that ``autodiscover_tasks`` registers them
in the worker. Each lives beside the code it adapts."""

from inferview.community.corrections.notifications import notify_correction
from inferview.community.discussion.notifications import notify_reply

__all__ = ["notify_correction", "notify_reply"]
