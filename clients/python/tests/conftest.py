"""Shared bits of the client's own suite: the repository's fixtures, and reads without exceptions."""

from __future__ import annotations

import os
import urllib.error
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO / "Fixtures" / "media"
SAMPLE = "/demo/fixtures/sample.png"

# The plugin's server preloads the repository's fixtures whatever the working directory.
os.environ.setdefault("MOCKCDN_FIXTURES", str(FIXTURES))

_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def read(url: str, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    """GETs ``url``; returns the status and body, errors included."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with _OPENER.open(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, error.read()


@pytest.fixture(scope="session")
def sample_png() -> bytes:
    return (FIXTURES / "sample.png").read_bytes()
