"""django-filter's FilterSet with each query parameter held to its schema: given once,
and a choice not empty. django-filter reads ``?level=`` as "no filter" and a repeated
``?level=a&level=b`` as its last value, so requests the schema calls malformed (an empty
string outside the enum, an array where one value is documented) were answered as if
well formed."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django_filters import rest_framework as filters


class StrictFilterSet(filters.FilterSet):
    def query_problems(self) -> dict[str, str]:
        """Filter name to why its parameter is malformed."""
        problems: dict[str, str] = {}
        getlist = getattr(self.data, "getlist", None)
        if getlist is None:
            return problems
        for name in self.filters:
            values = getlist(name)
            if len(values) > 1:
                problems[name] = "Give this parameter once."
            elif values == [""] and isinstance(self.filters[name], filters.ChoiceFilter):
                # "" is outside a choice's enum; a free-text filter's schema allows it (and
                # django-filter reads it as no filter)
                problems[name] = "Must not be empty; leave the parameter out not to filter."
        return problems

    def is_valid(self) -> bool:
        valid = super().is_valid()
        if not getattr(self, "_query_checked", False):
            self._query_checked = True
            for name, reason in self.query_problems().items():
                if name in self.form.fields and name not in self.form.errors:
                    self.form.add_error(name, ValidationError(reason, code="invalid"))
        return valid and not self.form.errors
