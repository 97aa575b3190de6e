"""console-cli: the account console from the command line, for integrators: users, metering API
keys, the audit log and usage (docs/integrators/cli.md). It is written on the Python client that
openapi-python-client generates from the console's contract while the package is built
(``console_cli.generated``, see hatch_build.py)."""

__version__ = "0.1.0"
