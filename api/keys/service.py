"""API key rules (README "API keys"): made sealed (api/kernel/secretbox.py) and hashed
(api/principal/api_keys.py), shown masked, revealed or copied on purpose (each time recorded),
rolled with an overlap during which both keys work, expired at once on request. The intake's
side (lookup by hash, last used, records per key) is in api/principal/principal.py and the intake's
statement.
"""

from __future__ import annotations

import functools
import uuid
from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from api.audit import AuditAction, AuditTrail, Target
from api.kernel.config import Settings
from api.kernel.errors import NotFound
from api.kernel.secretbox import KeyRing
from api.keys import repository
from api.keys.errors import LastApiKey
from api.keys.schemas import (
    OVERLAP_SECONDS,
    ApiKeysResponse,
    ApiKeyView,
    RevealedKey,
    RollRequest,
)
from api.models import Account, ApiKey
from api.principal.api_keys import hash_api_key, masked, new_api_key
from api.principal.principal import Caller
from api.usage.cycles import current_cycle_start


@functools.cache
def _ring(keys_json: str, current: str) -> KeyRing:
    return KeyRing.parse(keys_json, current)


def key_ring(settings: Settings) -> KeyRing:
    """The key ring of ``API_KEY_ENCRYPTION_KEYS`` / ``_KEY_ID`` (parsed once per value).

    Raises:
        KeyRingError: missing or malformed (the API refuses to start without a ring).
    """
    return _ring(settings.keys.encryption_keys.get_secret_value(), settings.keys.encryption_key_id)


async def add_first_key(*, db: AsyncSession, settings: Settings, account_id: uuid.UUID) -> None:
    """Give a new account its API key (called by ``create_account``)."""
    db.add(new_key_row(key_ring(settings), account_id))
    await db.flush()


async def open_current_key(*, db: AsyncSession, ring: KeyRing, account_id: uuid.UUID) -> str:
    """The account's current key in clear, unrecorded: for the dev stack's tools and the
    tests, which stand where the customer's CI would (the console goes through ``reveal``).

    Raises:
        NotFound: the account has no working key.
    """
    key = await repository.newest_working_key(db, account_id)
    if key is None:
        raise NotFound("There is no such API key.")
    return ring.open(key.encryption_key_id, key.sealed, context=account_id.bytes)


def new_key_row(ring: KeyRing, account_id: uuid.UUID) -> ApiKey:
    """A fresh key for the account as it is stored (hash, sealed, last four), not yet added;
    the key in clear exists only here (Reveal opens the sealed copy)."""
    key = new_api_key()
    key_id, sealed = ring.seal(key, context=account_id.bytes)
    return ApiKey(
        account_id=account_id,
        key_hash=hash_api_key(key),
        sealed=sealed,
        encryption_key_id=key_id,
        last4=key[-4:],
    )


async def list_keys(*, db: AsyncSession, account_id: uuid.UUID) -> ApiKeysResponse:
    """``GET /web/api-keys``: the working keys, newest first, masked."""
    anchor = await db.scalar(select(Account.billing_cycle_anchor).where(Account.id == account_id))
    assert anchor is not None, "the caller's account exists"
    cycle = current_cycle_start(anchor, datetime.now(UTC))
    rows = await repository.working_keys(db, account_id, cycle)
    return ApiKeysResponse(
        keys=[
            ApiKeyView(
                id=row.key.id,
                masked=masked(row.key.last4),
                created_at=row.key.created_at,
                expires_at=row.key.expires_at,
                last_used_at=row.key.last_used_at,
                records_this_cycle=row.records,
                requests_this_cycle=row.requests,
                monthly_limit=row.key.monthly_limit,
            )
            for row in rows
        ]
    )


def _target(row: ApiKey) -> Target:
    return Target("api_key", row.id, f"ak_…{row.last4}")


async def roll(
    *, db: AsyncSession, ring: KeyRing, caller: Caller, audit: AuditTrail, request: RollRequest
) -> ApiKeysResponse:
    """``POST /web/api-keys/roll``: a new current key; the keys working now keep working for
    ``request.overlap`` (at most: an earlier end they have stays). The new key's monthly limit
    is the request's, or, when it leaves it out, the current key's (a roll does not lift it)."""
    working = await repository.lock_working_keys(db, caller.account_id)
    row = new_key_row(ring, caller.account_id)
    if "monthly_limit" in request.model_fields_set:
        row.monthly_limit = request.monthly_limit
    elif working:
        row.monthly_limit = working[0].monthly_limit
    db.add(row)
    await db.flush()
    await repository.expire(db, [k.id for k in working], OVERLAP_SECONDS[request.overlap])
    await audit.record(
        AuditAction.API_KEY_ROLLED,
        _target(row),
        {
            "overlap": (None, request.overlap),
            "previous": (", ".join(_target(k).label for k in working), None),
            **(
                {"monthlyLimit": (None, row.monthly_limit)} if row.monthly_limit is not None else {}
            ),
        },
    )
    db.expire_all()
    return await list_keys(db=db, account_id=caller.account_id)


async def set_monthly_limit(
    *, db: AsyncSession, caller: Caller, audit: AuditTrail, key_id: uuid.UUID, limit: int | None
) -> ApiKeysResponse:
    """``PATCH /web/api-keys/{id}``: the key's monthly limit of requests (None: none), recorded
    in the audit log when it changes. The intake holds the key to it from its next batch.

    Raises:
        NotFound: no such working key in the caller's account.
    """
    row = await repository.working_key(db, caller.account_id, key_id, lock=True)
    if row is None:
        raise NotFound("There is no such API key.")
    if row.monthly_limit != limit:
        before, row.monthly_limit = row.monthly_limit, limit
        await audit.record(
            AuditAction.API_KEY_LIMIT_CHANGED, _target(row), {"monthlyLimit": (before, limit)}
        )
        await db.flush()
    return await list_keys(db=db, account_id=caller.account_id)


async def reveal(
    *,
    db: AsyncSession,
    ring: KeyRing,
    caller: Caller,
    audit: AuditTrail,
    key_id: uuid.UUID,
    purpose: str,
) -> RevealedKey:
    """``POST /web/api-keys/{id}/reveal``: the key itself, recorded as seen or copied by the
    caller.

    Raises:
        NotFound: no such working key in the caller's account.
    """
    row = await repository.working_key(db, caller.account_id, key_id)
    if row is None:
        raise NotFound("There is no such API key.")
    action = AuditAction.API_KEY_COPIED if purpose == "copy" else AuditAction.API_KEY_REVEALED
    await audit.record(action, _target(row))
    return RevealedKey(
        key=ring.open(row.encryption_key_id, row.sealed, context=row.account_id.bytes)
    )


async def expire_now(
    *, db: AsyncSession, caller: Caller, audit: AuditTrail, key_id: uuid.UUID
) -> ApiKeysResponse:
    """``POST /web/api-keys/{id}/expire``: the key stops working now.

    Raises:
        NotFound: no such working key in the caller's account.
        LastApiKey: it is the account's only working key.
    """
    working = {k.id: k for k in await repository.lock_working_keys(db, caller.account_id)}
    if key_id not in working:
        raise NotFound("There is no such API key.")
    if len(working) == 1:
        raise LastApiKey()
    await repository.expire(db, [key_id], 0)
    await audit.record(AuditAction.API_KEY_EXPIRED, _target(working[key_id]))
    db.expire_all()
    return await list_keys(db=db, account_id=caller.account_id)
