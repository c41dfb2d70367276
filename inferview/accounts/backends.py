"""Authentication backends that load the signed-in reader together with their tier.

Every signed-in request loads its user, and nearly every page then asks the access policy
for the reader's tier: two queries. Here the user row comes with an ``EXISTS`` over their
active premium entitlements (``policy.has_premium_expression``) and the tier is memoised
on it (``policy.remember_tier``), so it is one query, read fresh on every request like
the user itself (a purchase or refund shows on the next page).

That query is built by the ORM once per process and then run on a plain cursor with the
reader's id, the row made into a user with ``Model.from_db`` (as the ORM itself does).
Building and compiling an annotated queryset with a subquery is most of what loading the
reader costs: measured on PostgreSQL, 0.91 ms a load through the ORM against 0.25 ms for
the same SQL compiled once; ``raw()`` then added about 0.08 ms of its own (column
mapping and converters worked out again on every call). A signed-in page served from the
page cache does little else, so this is a quarter of its time.

Between requests the loaded row is kept in the shared cache (``inferview.access.readers``,
forgotten on every write to the user or their entitlements), so a signed-in page served
from a cache reads Redis twice (session, reader) and never the database.
"""

from __future__ import annotations

import functools
from typing import Any

from allauth.account.auth_backends import AuthenticationBackend as AllauthBackend
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import ValidationError
from django.db import connections, router

from inferview.access import policy, readers

#: Any id: the query is compiled with it and the id is then the last parameter.
_PROBE_ID = 2_147_483_001


@functools.cache
def _user_sql(model: Any, alias: str) -> tuple[str, tuple[Any, ...], list[Any]]:
    """The SQL of "this user's columns, then ``_has_premium``", its parameters but the id,
    and the column expressions: in ``concrete_fields`` order, which is what ``from_db``
    reads."""
    fields = model._meta.concrete_fields
    queryset = (
        model._default_manager.using(alias)
        .annotate(_has_premium=policy.has_premium_expression())
        .filter(pk=_PROBE_ID)
        .values_list(*(f.attname for f in fields), "_has_premium")
    )
    sql, params = queryset.query.get_compiler(alias).as_sql()
    # The id filter is the last thing the ORM compiles (the WHERE of the outer query);
    # were that ever not so, the check fails loudly rather than binding the id wrongly.
    if not params or params[-1] != _PROBE_ID or list(params).count(_PROBE_ID) != 1:
        raise RuntimeError(f"cannot precompile the reader query: {params!r}")
    return sql, tuple(params[:-1]), [f.get_col(model._meta.db_table) for f in fields]


def _load_reader(model: Any, pk: Any) -> Any:
    """The user ``pk`` with ``_has_premium`` set, or None: one query."""
    alias = router.db_for_read(model)
    connection = connections[alias]
    sql, params, columns = _user_sql(model, alias)
    with connection.cursor() as cursor:
        cursor.execute(sql, (*params, pk))
        row = cursor.fetchone()
    if row is None:
        return None
    values = list(row[: len(columns)])
    # What the database returns as it stores it (SQLite: datetimes as text) made Python
    # values, by the converters a queryset applies (SQLCompiler.get_converters): the
    # backend's, then the field's. Looked up per call, as they belong to this thread's
    # connection.
    for i, column in enumerate(columns):
        converters = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
        for convert in converters:
            values[i] = convert(values[i], column, connection)
    user = model.from_db(alias, [c.target.attname for c in columns], values)
    user._has_premium = bool(row[len(columns)])
    return user


class _LoadsTier:
    def get_user(self, user_id: Any) -> Any:
        model = get_user_model()
        try:
            pk = model._meta.pk.to_python(user_id)
        except ValidationError:  # a session naming an id of the wrong kind is nobody
            return None
        user = readers.get(pk)
        if user is None:
            user = _load_reader(model, pk)
            if user is None:
                return None
            readers.put(user)
        policy.remember_tier(user, has_premium=user._has_premium)
        return user if self.user_can_authenticate(user) else None  # type: ignore[attr-defined]


class ReaderBackend(_LoadsTier, ModelBackend):
    """Django's username-and-password backend (the admin signs in with it)."""


class AllauthReaderBackend(_LoadsTier, AllauthBackend):
    """allauth's backend (email sign-in on the site)."""
