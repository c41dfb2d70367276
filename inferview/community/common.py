"""Small helpers shared by the community modules."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.db import connection

from questions.models import Concept, Question


def signed_in(user: Any) -> bool:
    return bool(user is not None and user.is_authenticated)


def require_user(user: Any) -> None:
    if user is None or not user.is_authenticated:
        raise PermissionDenied("Sign in first.")


def target_kwargs(question: Question | None, concept: Concept | None) -> dict[str, Any]:
    if (question is None) == (concept is None):
        raise ValueError("Pass exactly one of question or concept.")
    return {"question": question} if question is not None else {"concept": concept}


def db_table(model: Any) -> str:
    """``model``'s table name, quoted for this connection, for hand-written SQL."""
    return connection.ops.quote_name(model._meta.db_table)
