"""Stripe's webhook: ``POST /webhooks/stripe`` (``router.py``, outside /web and not in the
contract) and the events it applies (``service.py``)."""
