"""Typed errors of the API keys. Class names are wire codes."""

from api.kernel.errors import AppError


class LastApiKey(AppError):
    """409: the account's only working key cannot be expired (its tests would stop); roll it
    first, with an overlap of "now" to replace it at once."""

    status_code = 409
    default_message = (
        "This is the account's only working key. Roll it to replace it; "
        "choose Now to stop the old one at once."
    )
