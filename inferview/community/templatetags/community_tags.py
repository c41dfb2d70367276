from __future__ import annotations

import datetime as dt

from django import template
from django.http import QueryDict

register = template.Library()


@register.filter
def timedelta_short(value: dt.timedelta | None) -> str:
    """``1 min``, ``10 min``, ``3 h``, ``4 days``, ``2 mo``: the rating buttons' intervals."""
    if value is None:
        return ""
    seconds = max(0, int(value.total_seconds()))
    if seconds < 3600:
        return f"{max(1, round(seconds / 60))} min"
    if seconds < 86400:
        return f"{round(seconds / 3600)} h"
    days = round(seconds / 86400)
    if days < 60:
        return f"{days} day{'s' if days != 1 else ''}"
    if days < 730:
        return f"{round(days / 30)} mo"
    return f"{round(days / 365)} yr"


@register.simple_tag(takes_context=True)
def query_with(context, **changes) -> str:
    """The current query string with some parameters replaced (for sort and page links)."""
    request = context.get("request")
    query = request.GET.copy() if request is not None else QueryDict(mutable=True)
    for key, value in changes.items():
        if value in (None, ""):
            query.pop(key, None)
        else:
            query[key] = value
    encoded = query.urlencode()
    return f"?{encoded}" if encoded else "?"
