"""The development stand-ins, beside the product and never part of it: ``python -m devstack``
runs the whole console on loopback with one module per stand-in.

- Served by the dev app (``app.py`` mounts them on the production app): ``hosted_signin``
  (the hosted sign-in page), ``mailbox`` (``/dev/mailbox``), ``dns_records`` (``/dev/dns``),
  ``time_travel`` (end a billing period, expire an invitation, re-check domains now).
- Run as child processes (``services.py``): ``moto_server`` (Cognito), ``localstripe_server``
  with ``stripe_shim`` (Stripe), ``dns_server`` (DNS), ``smtp_sink`` (SMTP).
- Around them: ``bootstrap`` (pool, plan, webhook), ``seed`` (demo accounts), ``stack``,
  ``replicas``, ``replay`` (metering traffic) and ``webbuild`` (the SPA).

The production image leaves this package out, and import-linter keeps ``api`` from importing it.
"""
