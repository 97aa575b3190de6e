"""The fuzzer's stack: the same dev stack the end-to-end tests start (a free port, a
throwaway database), in a pytest run of its own so what the fuzzer writes never meets them."""

from tests.e2e.conftest import console_url

__all__ = ["console_url"]
