"""Identity: who may get into an account and as what (README "Roles and invitations", "Security
model").

- ``membership``: the one home of who may join, leave and hold which role;
- ``sign_in``: password, Google/GitHub and SAML sign-in, registration, sessions' tokens;
- ``sso``: verified domains, Google single sign-on and SAML connections;
- ``mfa``: two-step sign-in;
- ``directory``: SCIM provisioning by the account's identity provider;
- ``users``: User Management (invitations, edits, removal).

What is checked on every request (tokens, the caller, the sign-in policy, the permission
table) is ``api.principal``, below every part of this package.
"""
