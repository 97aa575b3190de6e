"""Commands operators run: one module per command, ``python -m api.app.commands.<command>``.

The rule: every ``python -m`` entry point of the product lives here and only here, as a thin
command line (arguments, settings, exit status) over work that lives in its domain or in
``api.kernel.http``; nothing in ``api`` imports ``api.app.commands`` (import-linter: it is the top
layer
under the dev stack). The commands:

- ``serve``: one API replica with the graceful shutdown (the container's command);
- ``migrate``: ``alembic upgrade head`` under the migration lock (``api.kernel.migrations``);
- ``reconcile``: billing state against Stripe (``api.billing.reconcile``);
- ``recheck``: the verified domains' TXT records (``api.identity.sso.recheck``);
- ``retention``: the audit log's month partitions (``api.audit.retention``);
- ``audit_federation``: Google/GitHub users against what Cognito asserts
  (``api.identity.sso.audit_federation``);
- ``new_key``: a fresh ``API_KEY_ENCRYPTION_KEYS`` value (``api.kernel.secretbox``);
- ``openapi``: writes the /web contract (``openapi.json``).

The dev stack's own commands (``make dev``) are the dev stack's, outside the product.
"""
