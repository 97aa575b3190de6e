"""API keys' read model: ``apiKey`` of ``GET /web/account``, the account's current key masked
(``ak_…1a2b``), its wire value built here and nowhere else.

One query, ``repository.newest_working_key_query`` (the newest key that works), reduced to the
key's last four characters: compiled into the account view's statement
(:func:`current_last4_sql`), or alone (:func:`current_last4_query`); one mapper,
:func:`masked_key`, over its answer. PostgreSQL returns four characters, Python adds the mask
(``api.principal.api_keys.masked``)."""

from __future__ import annotations

from sqlalchemy import ColumnElement, Select, literal_column
from sqlalchemy.dialects.postgresql.base import PGDialect

from api.keys.repository import newest_working_key_query
from api.models import ApiKey
from api.principal.api_keys import masked


def current_last4_query(account_id: ColumnElement[object] | object) -> Select[tuple[str]]:
    """The last four characters of the account's current key (at most one row)."""
    return newest_working_key_query(account_id).with_only_columns(ApiKey.last4)  # type: ignore[arg-type]


def current_last4_sql(account_id: str) -> str:
    """:func:`current_last4_query` as a scalar subquery of an SQL statement, with
    ``account_id`` a constant SQL expression (an alias's column, never a value): NULL when the
    account has no working key."""
    query = current_last4_query(literal_column(account_id)).scalar_subquery()
    dialect = PGDialect()  # type: ignore[no-untyped-call]  # SQLAlchemy leaves it unannotated
    return str(query.compile(dialect=dialect, compile_kwargs={"literal_binds": True}))


def masked_key(last4: str | None) -> str:
    """``apiKey``: the current key masked, ``''`` when the account has none (``last4`` None)."""
    return masked(last4) if last4 is not None else ""
