"""pytest fixtures for MockCDN, registered through the ``pytest11`` entry point ``mockcdn``.

- ``mockcdn_server`` (session): attaches to ``$MOCKCDN_URL`` when it is set (with ``$MOCKCDN_ADMIN_TOKEN``
  if any), otherwise starts the binary (``$MOCKCDN_BINARY``, else the wheel's own, else ``mockcdn`` on ``PATH``) on a free port and
  stops it at the end of the session. Override it in a ``conftest.py`` to pass flags to ``MockCDN.start``.
- ``mockcdn`` (function): the same server, reset (``POST /_mockcdn/reset``) before the test.

Disable the plugin with ``-p no:mockcdn``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import pytest

from .client import MockCDN
from .errors import MockCDNError


def _wait_until_healthy(server: MockCDN, timeout: float) -> None:
    """Polls ``/_mockcdn/health`` until it answers, so a container that is still starting is waited for."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            server.health()
            return
        except MockCDNError as error:
            if time.monotonic() >= deadline:
                raise MockCDNError(f"MockCDN at {server.url} is not healthy after {timeout} s: {error}",
                                   status=error.status, body=error.body) from error
            time.sleep(0.2)


@pytest.fixture(scope="session")
def mockcdn_server() -> Iterator[MockCDN]:
    """A MockCDN server for the whole session: ``$MOCKCDN_URL`` when set, else one started here."""
    url = os.environ.get("MOCKCDN_URL")
    if url:
        server = MockCDN.connect(url, admin_token=os.environ.get("MOCKCDN_ADMIN_TOKEN") or None)
        _wait_until_healthy(server, timeout=30.0)
        yield server
        return
    server = MockCDN.start()
    try:
        yield server
    finally:
        code = server.stop()
    if code != 0:
        pytest.fail(f"mockcdn exited with code {code} when stopped", pytrace=False)


@pytest.fixture
def mockcdn(mockcdn_server: MockCDN) -> MockCDN:
    """The session's MockCDN server, reset before the test: fixtures reloaded, journal and faults empty,
    clock back at system time."""
    mockcdn_server.reset()
    return mockcdn_server
