"""The contract as third-party tools read it: the linters need nothing running; the generated
Python client runs against the same dev stack the end-to-end tests start (a free port, a
throwaway database), in a pytest run of its own."""

from tests.e2e.conftest import console_url

__all__ = ["console_url"]
