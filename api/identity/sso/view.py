"""SSO's read model: ``sso`` of ``GET /web/account`` and of the SSO calls (SPEC 3 "sso"):
whether Google sign-in or the SAML connection is required, and the account's verified domains
(the ones auto-join considers), its wire JSON built here and nowhere else.

One Python mapper (:func:`sso`) over the account's two settings and one query's domain names
(:func:`verified_domains_sql` in the account view's statement; the same query in
``repository.verified_domain_names`` for the SSO calls, both over ``sso_domain``'s
``(account_id, state)`` rows, sorted by name)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from api.kernel.schemas import sql_literal
from api.models import DomainState


def verified_domains_sql(account_id: str) -> str:
    """SQL for the names of the verified domains of the account ``account_id`` (a constant SQL
    expression, never a value), sorted, as a text array; NULL when it has none."""
    return f"""(
        SELECT array_agg(d.domain ORDER BY d.domain) FROM sso_domain AS d
        WHERE d.account_id = {account_id}
            AND d.state = {sql_literal(DomainState.VERIFIED.value)}
    )"""  # noqa: S608 - constant SQL text only


def sso(
    require_google_sso: bool, require_saml_sso: bool, domains: Sequence[str] | None
) -> dict[str, Any]:
    """The ``Sso`` JSON of an account with these settings and verified ``domains`` (sorted;
    None: none)."""
    return {
        "isGoogleSSO": require_google_sso,
        "isSamlSSO": require_saml_sso,
        "domains": list(domains or ()),
    }
