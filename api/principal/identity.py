"""Who a pool user is, decided only from what Cognito asserts (ARCHITECTURE "Identity").

A username such as ``google_123`` is a naming convention, not proof: a native pool user can
carry any username and change its own ``email``. An identity is federated only when Cognito
says so, in the ``identities`` attribute it sets on users who signed in through an external
identity provider (a JSON list of ``{"providerName", "providerType", "userId", ...}``; no user
or app client can write it) and in the ``EXTERNAL_PROVIDER`` user status. The email that counts
for domain matching is the one the provider asserted, with ``email_verified`` true (map both
attributes from the provider in the pool's attribute mapping).

Google also asserts the hosted domain of a Google Workspace account (the ID token's ``hd``
claim: "Authenticate users with Google", OpenID Connect, Google for Developers); personal
Google accounts have none. The pool maps it to the custom attribute ``custom:hd``
(:data:`HOSTED_DOMAIN_ATTRIBUTE`), which only the attribute mapping writes (it is not in the
app client's write attributes).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from api.adapters.cognito import CognitoUser
from api.kernel.emails import email_domain, normalize_email
from api.models import AuthType

EXTERNAL_PROVIDER = "EXTERNAL_PROVIDER"
HOSTED_DOMAIN_ATTRIBUTE = "custom:hd"

# providerName as configured in the pool (SPEC 2: "Google", "Github") -> how the user signs in.
_FEDERATED: dict[str, AuthType] = {"google": AuthType.GOOGLE_SSO, "github": AuthType.GITHUB}
# Every SAML identity provider of the pool is an account's SAML connection, whatever its name
# (README "SAML single sign-on"): Cognito names the type in ``providerType``.
SAML_PROVIDER_TYPE = "SAML"


@dataclass(frozen=True, slots=True)
class ProvenIdentity:
    """A pool user as Cognito asserts it.

    ``auth_type`` is ``EMAIL`` unless Cognito asserts federation; ``email`` is lowercased and
    trimmed; ``email_verified`` is the pool's ``email_verified`` attribute; ``hosted_domain``
    is the provider-asserted hosted domain (Google's ``hd``), lowercased, or None when the
    provider asserts none (personal accounts, GitHub, password users); ``provider_subject``
    is the provider's own id of the person (``identities[0].userId``: Google's ``sub``, a SAML
    NameID) for a federated identity, else None; ``provider_name`` the pool's name of its
    identity provider (for a SAML identity, its account's connection), else None.
    ``first_name`` and ``last_name`` are the pool's ``given_name`` and ``family_name`` (what
    the identity provider sent, through the attribute mapping).
    """

    username: str
    auth_type: AuthType
    email: str
    email_verified: bool
    hosted_domain: str | None = None
    provider_subject: str | None = None
    provider_name: str | None = None
    first_name: str = ""
    last_name: str = ""

    @property
    def is_workspace_of_email_domain(self) -> bool:
        """Whether the provider asserts a hosted domain and it is the email's domain: the
        email then belongs to the company's Google Workspace, not to a personal Google account
        created on a company address (which asserts none), nor to a Workspace account of one
        company carrying an address at another's. Only such an identity speaks for a domain
        (auto-join, README "Security model")."""
        return self.hosted_domain is not None and self.hosted_domain == email_domain(self.email)


def asserted_provider(identities: str) -> tuple[AuthType, str | None, str | None]:
    """The provider Cognito asserts, the provider's id of the person (``userId``) and the
    pool's name of the provider (``providerName``)."""
    try:
        entries = json.loads(identities)
    except ValueError:
        return AuthType.EMAIL, None, None
    if not isinstance(entries, list) or len(entries) != 1 or not isinstance(entries[0], dict):
        return AuthType.EMAIL, None, None  # we create no linked users: anything else is not ours
    name = entries[0].get("providerName")
    if not isinstance(name, str):
        return AuthType.EMAIL, None, None
    if entries[0].get("providerType") == SAML_PROVIDER_TYPE:
        provider = AuthType.SAML_SSO
    else:
        provider = _FEDERATED.get(name.lower(), AuthType.EMAIL)
    if provider is AuthType.EMAIL:
        return provider, None, None
    subject = entries[0].get("userId")
    return provider, str(subject) if subject else None, name


def prove_identity(user: CognitoUser) -> ProvenIdentity:
    """Read a user from AdminGetUser as Cognito asserts it: federated only with the status
    ``EXTERNAL_PROVIDER`` (the dev stack's moto stand-in reports it as Cognito does).

    Args:
        user: the pool user (AdminGetUser).

    Returns:
        The identity; a native user is ``AuthType.EMAIL`` whatever its username, and has no
        hosted domain.
    """
    provider, subject, provider_name = asserted_provider(user.attributes.get("identities", ""))
    hosted = user.attributes.get(HOSTED_DOMAIN_ATTRIBUTE, "").strip().lower()
    status_ok = user.status == EXTERNAL_PROVIDER
    federated = status_ok and provider is not AuthType.EMAIL
    return ProvenIdentity(
        username=user.username,
        auth_type=provider if status_ok else AuthType.EMAIL,
        email=normalize_email(user.attributes.get("email", "")),
        email_verified=user.attributes.get("email_verified", "").lower() == "true",
        hosted_domain=(hosted or None) if federated else None,
        provider_subject=subject if federated else None,
        provider_name=provider_name if federated else None,
        first_name=user.attributes.get("given_name", "").strip(),
        last_name=user.attributes.get("family_name", "").strip(),
    )
