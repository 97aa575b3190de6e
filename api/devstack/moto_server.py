"""Run moto's server for Cognito with the parts of Cognito the console relies on that moto
5.2.5 lacks, so the stand-in refuses what the real service refuses.

``python -m api.devstack.moto_server -H 127.0.0.1 -p 8421`` (the arguments of
``python -m moto.server``). What is added (Amazon Cognito API Reference):

- **App client auth flows.** ``InitiateAuth`` and ``AdminInitiateAuth`` honour the client's
  ``ExplicitAuthFlows``: a flow the client does not allow is refused with
  ``InvalidParameterException`` ('<flow> flow not enabled for this client'), as Cognito does.
  moto accepts every flow on every client, which hid the public client's password side door.
- **RevokeToken** (``Token``, ``ClientId``): revokes that refresh token only; refreshing with
  it then fails with ``NotAuthorizedException`` ('Refresh Token has been revoked'). Cognito
  also stops the access tokens minted from it from working against Cognito's own APIs; the
  console verifies access tokens locally, so it ends them itself (``tokens_valid_after``).
- **Refresh after the user is deleted.** Cognito refuses the refresh token of a deleted user
  with ``NotAuthorizedException``; moto fails with an internal error.
"""

from __future__ import annotations

import sys
from typing import Any

from moto.cognitoidp import models, responses
from moto.cognitoidp.exceptions import (
    InvalidParameterException,
    NotAuthorizedError,
    UserNotConfirmedException,
)
from moto.core.responses import EmptyResult
from moto.server import main

# The flow of an auth request -> the ExplicitAuthFlows entry that allows it.
_FLOW_SETTING = {
    "USER_PASSWORD_AUTH": "ALLOW_USER_PASSWORD_AUTH",
    "ADMIN_USER_PASSWORD_AUTH": "ALLOW_ADMIN_USER_PASSWORD_AUTH",
    "ADMIN_NO_SRP_AUTH": "ALLOW_ADMIN_USER_PASSWORD_AUTH",
    "USER_SRP_AUTH": "ALLOW_USER_SRP_AUTH",
    "CUSTOM_AUTH": "ALLOW_CUSTOM_AUTH",
    "REFRESH_TOKEN_AUTH": "ALLOW_REFRESH_TOKEN_AUTH",
    "REFRESH_TOKEN": "ALLOW_REFRESH_TOKEN_AUTH",
}
# Cognito's legacy names for the same settings.
_LEGACY = {
    "ALLOW_USER_PASSWORD_AUTH": "USER_PASSWORD_AUTH",
    "ALLOW_ADMIN_USER_PASSWORD_AUTH": "ADMIN_NO_SRP_AUTH",
    "ALLOW_CUSTOM_AUTH": "CUSTOM_AUTH_FLOW_ONLY",
}


def _client(backend: models.CognitoIdpBackend, client_id: str) -> Any:
    for pool in backend.user_pools.values():
        if client_id in pool.clients:
            return pool, pool.clients[client_id]
    return None, None


def _check_flow(backend: models.CognitoIdpBackend, client_id: str, auth_flow: str) -> None:
    """Refuse ``auth_flow`` unless the client's ExplicitAuthFlows allow it."""
    _, client = _client(backend, client_id)
    if client is None:
        return  # moto answers ResourceNotFoundException itself
    allowed = set(client.extended_config.get("ExplicitAuthFlows") or [])
    setting = _FLOW_SETTING.get(auth_flow)
    if setting is None or setting in allowed or _LEGACY.get(setting) in allowed:
        return
    raise InvalidParameterException(f"{auth_flow} flow not enabled for this client")


_initiate_auth = models.CognitoIdpBackend.initiate_auth
_admin_initiate_auth = models.CognitoIdpBackend.admin_initiate_auth


def initiate_auth(
    self: models.CognitoIdpBackend,
    client_id: str,
    auth_flow: str,
    auth_parameters: dict[str, str],
) -> dict[str, Any]:
    _check_flow(self, client_id, auth_flow)
    if auth_flow in ("REFRESH_TOKEN_AUTH", "REFRESH_TOKEN"):
        pool, _ = _client(self, client_id)
        entry = pool.refresh_tokens.get(auth_parameters.get("REFRESH_TOKEN")) if pool else None
        if entry is not None and entry[1] not in pool.users:
            raise NotAuthorizedError("User does not exist.")
    return _initiate_auth(self, client_id, auth_flow, auth_parameters)


def admin_initiate_auth(
    self: models.CognitoIdpBackend,
    user_pool_id: str,
    client_id: str,
    auth_flow: str,
    auth_parameters: dict[str, str],
) -> dict[str, Any]:
    _check_flow(self, client_id, auth_flow)
    if auth_flow in ("ADMIN_USER_PASSWORD_AUTH", "ADMIN_NO_SRP_AUTH"):
        # Cognito refuses an unconfirmed user here as InitiateAuth does; moto does not.
        user = self.admin_get_user(user_pool_id, auth_parameters.get("USERNAME", ""))
        if user.status == models.UserStatus.UNCONFIRMED:
            raise UserNotConfirmedException("User is not confirmed.")
    try:
        return _admin_initiate_auth(self, user_pool_id, client_id, auth_flow, auth_parameters)
    except NotAuthorizedError as exc:
        # moto puts the username in a wrong password's message; Cognito says this, as it
        # does for InitiateAuth.
        if exc.message != auth_parameters.get("USERNAME"):
            raise
        raise NotAuthorizedError("Incorrect username or password.") from exc


def revoke_token(self: models.CognitoIdpBackend, token: str, client_id: str) -> None:
    """RevokeToken: end one refresh token of ``client_id``. An unknown token is no error
    (Cognito answers 200 for a token it cannot find)."""
    pool, client = _client(self, client_id)
    if client is None:
        raise NotAuthorizedError("Invalid client")
    entry = pool.refresh_tokens.get(token)
    if entry is None:
        return
    if entry[0] != client_id:
        raise NotAuthorizedError("Token was not issued to this client")
    pool.refresh_tokens[token] = None


def _revoke_token_response(self: responses.CognitoIdpResponse) -> EmptyResult:
    # RevokeToken is unsigned, like InitiateAuth: the backend is the one holding the client.
    client_id = self._get_param("ClientId")
    backend = self._get_region_agnostic_backend()._find_backend_for_clientid(client_id)
    backend.revoke_token(self._get_param("Token"), client_id)  # type: ignore[attr-defined]
    return EmptyResult()


def install() -> None:
    """Patch moto's Cognito backend and responses (idempotent)."""
    models.CognitoIdpBackend.initiate_auth = initiate_auth  # type: ignore[method-assign]
    models.CognitoIdpBackend.admin_initiate_auth = admin_initiate_auth  # type: ignore[method-assign]
    models.CognitoIdpBackend.revoke_token = revoke_token  # type: ignore[attr-defined]
    responses.CognitoIdpResponse.revoke_token = _revoke_token_response  # type: ignore[attr-defined]


if __name__ == "__main__":
    install()
    main(sys.argv[1:])
