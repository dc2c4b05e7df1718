"""Shared bits of the client's own suite: the repository's fixtures, and reads without exceptions."""

from __future__ import annotations

import os
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from mockcdn import bundled

REPO = Path(__file__).resolve().parents[3]
# The repository's fixtures; where the suite runs outside a checkout (against an installed wheel, in make
# dist-check's clean root), the same files as the wheel carries them.
FIXTURES = REPO / "Fixtures" / "media"
if not FIXTURES.is_dir() and bundled.fixtures() is not None:
    FIXTURES = bundled.fixtures()
SAMPLE = "/demo/fixtures/sample.png"

# The plugin's server preloads the repository's fixtures whatever the working directory.
os.environ.setdefault("MOCKCDN_FIXTURES", str(FIXTURES))

_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def read(url: str, headers: dict[str, str] | None = None, *, method: str = "GET",
         body: bytes | None = None) -> tuple[int, bytes]:
    """Sends one request (a GET of ``url`` unless told); returns the status and body, errors included."""
    request = urllib.request.Request(url, data=body, headers=headers or {}, method=method)
    try:
        with _OPENER.open(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, error.read()


@pytest.fixture(scope="session")
def sample_png() -> bytes:
    return (FIXTURES / "sample.png").read_bytes()
