"""The audit log's reading side (README "Audit log"): the Activity page's list, its actor
filter and the CSV export. The writing side is ``api/audit``."""
