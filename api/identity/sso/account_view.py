"""SSO's part of ``GET /web/account`` in SQL, for the statement that builds the whole body
(api/account/repository.py): ``sso``, as ``api.identity.sso.service.sso_of`` shows it."""

from __future__ import annotations

from api.kernel.schemas import sql_literal
from api.models import DomainState


def sso_sql(account: str) -> str:
    """SQL for the JSON ``Sso`` of the ``account`` row (an alias): whether Google sign-in is
    required, whether sign-in through the SAML connection is, and the names of its verified
    domains (the ones auto-join considers), sorted (``repository.verified_domain_names``)."""
    return f"""json_build_object(
        'isGoogleSSO', {account}.require_google_sso,
        'isSamlSSO', {account}.require_saml_sso,
        'domains', (
            SELECT coalesce(json_agg(d.domain ORDER BY d.domain), '[]')
            FROM sso_domain AS d
            WHERE d.account_id = {account}.id
                AND d.state = {sql_literal(DomainState.VERIFIED.value)}
        )
    )"""  # noqa: S608 - constant SQL text only
