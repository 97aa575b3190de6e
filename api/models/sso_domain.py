"""The ``sso_domain`` table: an email domain an account claims for Google single sign-on, and
the DNS proof that it owns it (README "Verified domains", SPEC 3 "sso: domains", SPEC 9 "domain
box")."""

from __future__ import annotations

import enum
import uuid
from datetime import datetime

from sqlalchemy import DateTime, Enum, ForeignKey, Index, String, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from api.kernel.db import Base, TimestampMixin, new_id


class DomainState(enum.StrEnum):
    """Where a domain's proof stands; the value is what the console shows.

    - ``PENDING``: added, never checked (or carried over from before domains needed a DNS proof);
    - ``VERIFIED``: its TXT record was found at the last check; Google identities of the
      domain may auto-join the account (when it requires Google SSO);
    - ``FAILED``: a check from the console did not find the record (``failure`` says why);
    - ``LOST``: it was verified, then a check (the daily re-check, or another account proving
      the domain) found the record gone: auto-join stopped at once.
    """

    PENDING = "Pending"
    VERIFIED = "Verified"
    FAILED = "Failed"
    LOST = "Lost"


class DomainFailure(enum.StrEnum):
    """Why the last check did not verify a domain (the console shows a message for each)."""

    DOMAIN_NOT_FOUND = "DomainNotFound"  # NXDOMAIN
    RECORD_NOT_FOUND = "RecordNotFound"  # no autostep-verification TXT value at the name
    WRONG_TOKEN = "WrongToken"  # noqa: S105 - autostep-verification values, none with ours
    VERIFIED_BY_ANOTHER_ACCOUNT = "VerifiedByAnotherAccount"  # its holder's record is still up


def _enum(cls: type[enum.StrEnum], name: str) -> Enum:
    return Enum(cls, name=name, values_callable=lambda e: [m.value for m in e])


class SsoDomain(TimestampMixin, Base):
    """One domain of one account.

    ``domain`` is lowercased without a trailing dot (``example.com``); ``token`` is the random
    value of the TXT record ``autostep-verification=<token>`` the account publishes at the
    domain's apex. An account lists a domain once; any number of accounts may claim it, but
    only one may hold it verified at a time (the partial unique index): a second account takes
    it over only once the holder's record is gone (api/identity/sso/service.py).
    ``checked_at`` is the last check's time (console or re-check), ``verified_at`` when it
    was last verified.
    """

    __tablename__ = "sso_domain"
    __table_args__ = (
        UniqueConstraint("account_id", "domain", name="uq_sso_domain_account_id_domain"),
        Index(
            "uq_sso_domain_verified_domain",
            "domain",
            unique=True,
            postgresql_where=text("state = 'Verified'"),
        ),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    account_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("account.id", ondelete="CASCADE"), index=True
    )
    domain: Mapped[str] = mapped_column(String(253))
    token: Mapped[str] = mapped_column(String(64))
    state: Mapped[DomainState] = mapped_column(
        _enum(DomainState, "sso_domain_state"), default=DomainState.PENDING
    )
    failure: Mapped[DomainFailure | None] = mapped_column(
        _enum(DomainFailure, "sso_domain_failure")
    )
    checked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    verified_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
