"""The one exception type the package raises."""

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
