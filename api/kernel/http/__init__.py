"""Cross-cutting plumbing every route shares, none of it a domain's rule.

The HTTP layers ``api.app.web`` stacks around the routers (security headers, body limits,
database-fault retry, HEAD as GET, the vendor-call time budget, the request id and access
log), the pieces routers and adapters share (ETags, the client address behind trusted
proxies), the probes (``/healthz``, ``/readyz`` with the schema check of
``api.kernel.migrations``) and the built SPA's mount. Nothing here imports a domain,
``api.principal.dependencies``, ``api.app.web`` or ``api.app.commands`` (import-linter).
"""
