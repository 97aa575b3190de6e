"""API keys' part of ``GET /web/account`` in SQL, for the statement that builds the whole
body (api/account/repository.py): ``apiKey``, the account's current key masked, as
``api.keys.service.current_masked`` shows it. Compiled from the same query
(``repository.newest_working_key_query``) and the same mask (``api.principal.api_keys.masked``)."""

from __future__ import annotations

from sqlalchemy import func, literal, literal_column
from sqlalchemy.dialects.postgresql.base import PGDialect

from api.keys.repository import newest_working_key_query
from api.models import ApiKey
from api.principal.api_keys import masked


def current_masked_sql(account_id: str) -> str:
    """SQL for the masked current key (``ak_…1a2b``) of the account ``account_id`` (a constant
    SQL expression such as an alias's column, never a value), ``''`` when it has none."""
    newest = newest_working_key_query(literal_column(account_id)).with_only_columns(
        literal(masked("")).concat(ApiKey.last4)
    )
    expression = func.coalesce(newest.scalar_subquery(), "")
    dialect = PGDialect()  # type: ignore[no-untyped-call]  # SQLAlchemy leaves it unannotated
    return str(expression.compile(dialect=dialect, compile_kwargs={"literal_binds": True}))
