"""Federation is what Cognito asserts, never a name (api/principal/identity.py)."""

from __future__ import annotations

import json

import pytest

from api.adapters.cognito import CognitoUser
from api.models import AuthType
from api.principal.identity import prove_identity


def _identities(provider_name: str, provider_type: str) -> str:
    return json.dumps(
        [
            {
                "userId": "1234",
                "providerName": provider_name,
                "providerType": provider_type,
                "issuer": None,
                "primary": "true",
                "dateCreated": "1700000000000",
            }
        ]
    )


def _user(username: str, status: str, **attributes: str) -> CognitoUser:
    return CognitoUser(username=username, sub="sub", attributes=attributes, status=status)


@pytest.mark.parametrize(
    ("provider_name", "provider_type", "expected"),
    [
        ("Google", "Google", AuthType.GOOGLE_SSO),
        ("Github", "OIDC", AuthType.GITHUB),
        # Every SAML provider of the pool is an account's connection (README "SAML single
        # sign-on"), whatever its name.
        ("saml-0123", "SAML", AuthType.SAML_SSO),
        ("SomeOIDC", "OIDC", AuthType.EMAIL),
    ],
)
def test_an_external_provider_user_is_what_its_identities_say(
    provider_name: str, provider_type: str, expected: AuthType
) -> None:
    user = _user(
        "google_1234",
        "EXTERNAL_PROVIDER",
        email=" Kat@Acme.dev ",
        email_verified="true",
        identities=_identities(provider_name, provider_type),
    )
    identity = prove_identity(user)
    assert identity.auth_type is expected
    assert identity.email == "kat@acme.dev"
    assert identity.email_verified is True


def test_a_saml_identity_names_its_connection() -> None:
    user = _user(
        "saml-0123_kat@acme.dev",
        "EXTERNAL_PROVIDER",
        email="kat@acme.dev",
        given_name=" Kat ",
        family_name="Johnson",
        identities=_identities("saml-0123", "SAML"),
    )
    identity = prove_identity(user)
    assert identity.auth_type is AuthType.SAML_SSO
    assert identity.provider_name == "saml-0123"
    assert identity.provider_subject == "1234"
    assert (identity.first_name, identity.last_name) == ("Kat", "Johnson")
    # A native user carrying the same attribute is not one (moto lets users write it).
    assert prove_identity(_user(user.username, "CONFIRMED", **user.attributes)).auth_type is (
        AuthType.EMAIL
    )


def test_a_google_username_alone_is_a_native_user() -> None:
    user = _user("google_1234", "CONFIRMED", email="kat@acme.dev", email_verified="true")
    assert prove_identity(user).auth_type is AuthType.EMAIL


def test_a_confirmed_user_is_never_federated_whatever_its_attributes() -> None:
    # Cognito gives federated users the EXTERNAL_PROVIDER status, and so does the dev stack's
    # moto stand-in (devstack/moto_server.py): the status is the proof, never an attribute.
    user = _user("google_1234", "CONFIRMED", identities=_identities("Google", "Google"))
    assert prove_identity(user).auth_type is AuthType.EMAIL
    google = _identities("Google", "Google")
    federated = _user("google_1234", "EXTERNAL_PROVIDER", identities=google)
    assert prove_identity(federated).auth_type is AuthType.GOOGLE_SSO


@pytest.mark.parametrize(
    "identities",
    ["not json", "{}", "[]", '["Google"]', _identities("Google", "Google")[:-1] + ", {}]"],
)
def test_malformed_or_linked_identities_are_not_federation(identities: str) -> None:
    user = _user("google_1234", "EXTERNAL_PROVIDER", identities=identities)
    assert prove_identity(user).auth_type is AuthType.EMAIL


@pytest.mark.parametrize("value", [None, "false", "False ", ""])
def test_email_verified_only_when_the_attribute_is_true(value: str | None) -> None:
    attributes = {"email": "kat@acme.dev"} | ({} if value is None else {"email_verified": value})
    user = _user("google_1234", "EXTERNAL_PROVIDER", **attributes)
    assert prove_identity(user).email_verified is False


@pytest.mark.parametrize(
    ("hd", "email", "hosted_domain", "matches"),
    [
        ("acme.dev", "kat@acme.dev", "acme.dev", True),
        (" ACME.dev ", "kat@Acme.dev", "acme.dev", True),
        ("other.dev", "kat@acme.dev", "other.dev", False),
        # A personal Google account asserts none: it never speaks for the email's domain.
        (None, "kat@acme.dev", None, False),
    ],
)
def test_the_hosted_domain_must_be_the_emails_domain(
    hd: str | None, email: str, hosted_domain: str | None, matches: bool
) -> None:
    attributes = {"email": email, "email_verified": "true"}
    if hd is not None:
        attributes["custom:hd"] = hd
    user = _user(
        "google_1234", "EXTERNAL_PROVIDER", identities=_identities("Google", "Google"), **attributes
    )
    identity = prove_identity(user)
    assert identity.hosted_domain == hosted_domain
    assert identity.is_workspace_of_email_domain is matches


def test_a_native_user_has_no_hosted_domain_whatever_it_writes() -> None:
    user = _user("google_1234", "CONFIRMED", email="kat@acme.dev", **{"custom:hd": "other.dev"})
    identity = prove_identity(user)
    assert identity.hosted_domain is None
