"""Typed errors of the metering intake. Class names are wire codes."""

from api.errors import AppError


class RecordInTheFuture(AppError):
    """400: a record's ``time`` is more than 10 minutes ahead of the server's clock (a client
    clock gone wrong); the batch counts nothing."""

    default_message = "time must not be in the future"


class RecordTooOld(AppError):
    """400: a record's ``time`` is before the start of the previous billing cycle (the oldest
    cycle still open to late records: the ones before it are invoiced); the message names the
    oldest accepted time. The batch counts nothing."""

    default_message = "time must not be before the start of the previous billing cycle"


class UnknownAlertRecipient(AppError):
    """400: a usage-alert recipient id is not a user of the caller's account."""

    default_message = "Usage alerts can only go to users of this account."
