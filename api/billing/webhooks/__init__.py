"""Stripe's webhook: ``POST /webhooks/stripe`` (``router.py``, outside /web and not in the
contract), which records each event, and the job that applies it (``service.py``)."""
