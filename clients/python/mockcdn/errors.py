"""The exceptions the package raises: ``MockCDNError`` for a failed call, and ``VerificationError`` (an
``AssertionError``) for expectations :meth:`MockCDN.verify` found unmet."""

from __future__ import annotations

import json


class MockCDNError(Exception):
    """A MockCDN call failed.

    ``status`` is the HTTP status the server answered, or ``None`` when there was no answer (the server
    could not be reached, or the process could not be started or stopped); ``body`` is the answer's body
    as text (empty when there was none), or what went wrong starting the process.
    """

    def __init__(self, message: str, *, status: int | None = None, body: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.body = body

    @property
    def message(self) -> str:
        """The server's error message (``{"error":{"message":...}}``) when the body carries one, else the body."""
        try:
            parsed = json.loads(self.body)
        except ValueError:
            return self.body
        if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict):
            return str(parsed["error"].get("message", self.body))
        return self.body


class VerificationError(AssertionError):
    """:meth:`MockCDN.verify` found an expectation unmet (``POST /_mockcdn/verify`` answered 409).

    The message is the server's near-miss report: each unmet expectation, what fell short, and the journal
    entries that came closest with what differed ("credential `fat-query` where `fat-header` was expected").
    Being an ``AssertionError``, it fails a test as an assertion does. ``result`` is the server's whole answer
    (``met``, ``expectations`` with ``matched``, ``problem`` and ``near_misses``, and ``report``).
    """

    def __init__(self, report: str, result: dict) -> None:
        super().__init__(report)
        self.report = report
        self.result = result
