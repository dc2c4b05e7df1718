"""Test helpers for MockCDN: start the ``mockcdn`` binary (or attach to a running server) and drive its
test-control API (clock, tokens, request journal, verification, faults, reset, upload events, webhook
deliveries) from Python, standard library only.

    from mockcdn import MockCDN

    with MockCDN.start() as cdn:
        fat = cdn.token(user_id="alice", ttl=60)
        cdn.advance(61)

With pytest, the ``mockcdn`` fixture (see :mod:`mockcdn.pytest_plugin`) gives each test a reset server.
"""

from .client import MockCDN
from .errors import MockCDNError, VerificationError

__all__ = ["MockCDN", "MockCDNError", "VerificationError", "__version__"]
__version__ = "0.6.0"
