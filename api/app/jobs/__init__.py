"""The worker's side of the job engine (README "Background work"): the procrastinate app, its
connection, and the tasks it runs. The API only defers jobs (api/kernel/deferred.py); it never
imports
this package."""
