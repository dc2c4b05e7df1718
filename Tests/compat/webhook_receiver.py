"""A local webhook target for the tests of upload events and vendor webhooks: an http.server in a thread on
127.0.0.1, port 0, that records each POST and answers with the statuses it was given. A test awaits deliveries
through a threading.Condition, never by sleeping."""

from __future__ import annotations

import http.server
import threading

# Every wait is a deadline of at least 10x what the thing takes; it returns as soon as the thing happens.
DEADLINE = 30


class Receiver:
    """A webhook target. `statuses` are answered in turn (then 200), each with `answer` as its body; `hang` holds
    every request until `release` is set."""

    def __init__(self, statuses: list[int] | None = None, hang: bool = False, answer: bytes = b""):
        self.statuses = list(statuses or [])
        self.hang = hang
        self.release = threading.Event()
        self.received: list[tuple[dict, bytes]] = []
        self.changed = threading.Condition()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers["Content-Length"]))
                with receiver.changed:
                    receiver.received.append(({k.lower(): v for k, v in self.headers.items()}, body))
                    receiver.changed.notify_all()
                    status = receiver.statuses.pop(0) if receiver.statuses else 200
                if receiver.hang:
                    receiver.release.wait(DEADLINE)
                self.send_response(status)
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                try:
                    self.wfile.write(answer)
                except OSError:
                    pass  # MockCDN reads an answer up to its bound, then closes the connection

            def log_message(self, *_):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path: str = "/hooks") -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def wait_for(self, count: int) -> list[tuple[dict, bytes]]:
        """The first `count` deliveries, once they arrived."""
        with self.changed:
            assert self.changed.wait_for(lambda: len(self.received) >= count, DEADLINE), \
                f"{len(self.received)} of {count} deliveries arrived"
            return list(self.received[:count])

    def close(self):
        self.release.set()
        self.server.shutdown()
        self.server.server_close()
