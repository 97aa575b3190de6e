"""Directory sync: the console's SCIM 2.0 service (RFC 7643 schema, RFC 7644 protocol) at
``/scim/v2``, and the SCIM tokens User Management generates for it (README "Directory sync
(SCIM)")."""
