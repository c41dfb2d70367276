"""DRF's page-number pagination with the page parameter held to its schema (an integer).

DRF reads ``?page=`` (empty) as page 1, so a request its own schema calls malformed was
answered as if well formed; here anything but an integer is a 400 naming ``page``. An
integer past the last page stays DRF's 404.
"""

from __future__ import annotations

import re
from typing import Any

from rest_framework.pagination import PageNumberPagination

from inferview.api.errors import ApiError

INTEGER = re.compile(r"-?[0-9]+")


class StrictPageNumberPagination(PageNumberPagination):
    def paginate_queryset(self, queryset: Any, request: Any, view: Any = None) -> Any:
        raw = request.query_params.get(self.page_query_param)
        if raw is not None and not INTEGER.fullmatch(raw):
            raise ApiError(
                "invalid",
                "The request has invalid fields.",
                {self.page_query_param: ["must be a whole number, such as 2"]},
            )
        return super().paginate_queryset(queryset, request, view)
