"""``MockCDN``: a running MockCDN server (started here or attached to) and its test-control API."""

from __future__ import annotations

import atexit
import datetime as _dt
import json
import os
import subprocess
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping, Sequence
from typing import Any

from .errors import MockCDNError, VerificationError
from .process import ServerProcess, launch

# Control requests go straight to the server, never through an HTTP(S)_PROXY from the environment.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))



def _query(**filters: object) -> str:
    """``?name=value&...`` of the filters given (not ``None``), or nothing when none is."""
    given = {name: str(value) for name, value in filters.items() if value is not None}
    return "?" + urllib.parse.urlencode(given) if given else ""


class MockCDN:
    """A MockCDN server and a client of its ``/_mockcdn`` test-control routes.

    Make one with :meth:`start` (runs the binary on a free port; :meth:`stop` or ``with`` ends it) or
    :meth:`connect` (attaches to a server already running, e.g. a container). Every failed call raises
    :class:`MockCDNError` with the HTTP status and body.
    """

    def __init__(self, url: str, admin_token: str | None = None, *, timeout: float = 10.0,
                 server: ServerProcess | None = None) -> None:
        """Prefer :meth:`start` or :meth:`connect`. ``timeout`` is the per-request timeout in seconds."""
        self.url: str = url.rstrip("/")
        """Base URL, ``http://HOST:PORT`` (no trailing slash)."""
        self.admin_token: str | None = admin_token
        """Sent as ``Authorization: Bearer`` on control calls when set (needed off loopback)."""
        self.timeout = timeout
        self._server = server

    # -- lifecycle ---------------------------------------------------------------------------------

    @classmethod
    def start(
        cls,
        binary: str | os.PathLike[str] | None = None,
        args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        *,
        admin_token: str | None = None,
        timeout: float = 30.0,
    ) -> MockCDN:
        """Runs ``mockcdn serve --port 0 --log-level warning *args`` and returns it once it is ready.

        Args:
            binary: the executable; default ``$MOCKCDN_BINARY``, else the wheel's own, else ``mockcdn`` on ``PATH``.
            args: more ``serve`` flags, e.g. ``["--fixtures", "none"]`` or ``["--config", "apps.yaml"]``.
            env: variables set over the current environment (``MOCKCDN_FIXTURES``, ...).
            admin_token: the admin token, when the server gets it from a config file; one printed by the
                server, or given by ``--admin-token`` or ``MOCKCDN_ADMIN_TOKEN``, is found by itself.
            timeout: seconds to wait for the ready line.

        Raises:
            MockCDNError: the binary is missing, or the server did not become ready.
        """
        server = launch(binary, args, env, admin_token=admin_token, timeout=timeout)
        instance = cls(server.url, server.admin_token, server=server)
        atexit.register(instance._stop_quietly)
        return instance

    @classmethod
    def connect(cls, url: str, admin_token: str | None = None) -> MockCDN:
        """Attaches to a server already running at ``url`` (``http://HOST:PORT``); nothing is sent yet.
        :meth:`stop` leaves that server running."""
        return cls(url, admin_token)

    @property
    def process(self) -> subprocess.Popen[str] | None:
        """The server's process when :meth:`start` ran it, else ``None``."""
        return self._server.process if self._server else None

    def stop(self) -> int | None:
        """Stops a server :meth:`start` ran (SIGTERM, then waits) and returns its exit code, 0 for a clean
        stop; ``None`` for an attached server, which keeps running. Safe to call twice."""
        if self._server is None:
            return None
        atexit.unregister(self._stop_quietly)
        return self._server.stop()

    def _stop_quietly(self) -> None:
        try:
            self.stop()
        except MockCDNError:
            pass

    def __enter__(self) -> MockCDN:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        mode = f"pid {self._server.process.pid}" if self._server else "attached"
        return f"MockCDN({self.url!r}, {mode})"

    # -- control API -------------------------------------------------------------------------------

    def health(self) -> dict[str, Any]:
        """``GET /_mockcdn/health``: ``{"status": "ok"|"degraded", "instance", "store", ...}``."""
        return self._call("GET", "/_mockcdn/health")

    def token(self, kind: str = "fat", user_id: str | None = None, app_id: str | None = None,
              ttl: int | None = None) -> str:
        """Mints a credential at the server's clock (``POST /_mockcdn/tokens``) and returns it.

        Args:
            kind: ``"fat"`` (a File Access Token), ``"user"`` (a Stream user JWT) or ``"server"``.
            user_id: required for ``fat`` and ``user``.
            app_id: the app; ``None`` for the server's default app (``demo``).
            ttl: seconds of validity, 1-2,592,000; ``None`` for the server's default (a FAT lives 3600 s,
                a JWT without it never expires).
        """
        body: dict[str, Any] = {"kind": kind}
        for name, value in (("user_id", user_id), ("app_id", app_id), ("ttl", ttl)):
            if value is not None:
                body[name] = value
        return str(self._call("POST", "/_mockcdn/tokens", body)["token"])

    def now(self) -> int:
        """The server's clock, Unix seconds (``GET /_mockcdn/clock``)."""
        return int(self._call("GET", "/_mockcdn/clock")["now"])

    def set_clock(self, unix: int | float | _dt.datetime) -> int:
        """Sets the server's clock (``PUT /_mockcdn/clock``); it keeps running from there. Takes Unix
        seconds or an aware ``datetime``; returns the clock after the change."""
        if isinstance(unix, _dt.datetime):
            unix = unix.timestamp()
        return int(self._call("PUT", "/_mockcdn/clock", {"now": int(unix)})["now"])

    def advance(self, seconds: int) -> int:
        """Moves the server's clock by ``seconds`` (negative moves it back); returns the clock after."""
        return int(self._call("POST", "/_mockcdn/clock/advance", {"seconds": int(seconds)})["now"])

    def add_fault(self, rule: Mapping[str, Any]) -> str:
        """Adds a fault rule (``POST /_mockcdn/faults``) and returns its id (``f1``, ``f2``, ...).

        Example: ``{"match": {"method": "GET", "path": "/demo/fixtures/"}, "times": 1,
        "action": {"status": 503, "body": "try again"}}``. A misspelt member is a 400.
        """
        return str(self._call("POST", "/_mockcdn/faults", dict(rule))["id"])

    def faults(self) -> list[dict[str, Any]]:
        """The fault rules, in the order they are tried, with ``hits`` and ``remaining``."""
        return list(self._call("GET", "/_mockcdn/faults")["faults"])

    def remove_fault(self, fault_id: str) -> None:
        """Deletes one fault rule; an unknown id raises (404)."""
        self._call("DELETE", "/_mockcdn/faults/" + urllib.parse.quote(fault_id, safe=""))

    def clear_faults(self) -> None:
        """Deletes every fault rule."""
        self._call("DELETE", "/_mockcdn/faults")

    def requests(self, method: str | None = None, path: str | None = None,
                 status: int | None = None) -> list[dict[str, Any]]:
        """The request journal, oldest first (``GET /_mockcdn/requests``), filtered by method, path
        prefix and status (combined with AND). Each entry has ``method``, ``path``, ``query`` (redacted),
        ``credential``, ``status``, ``fault``, ``reason``, ``expired_at`` (when a credential refused for its
        time expired, by the server's clock), ``clock``, byte counts and timing."""
        query = _query(method=method, path=path, status=status)
        return list(self._call("GET", "/_mockcdn/requests" + query)["requests"])

    def clear_requests(self) -> None:
        """Empties the request journal."""
        self._call("DELETE", "/_mockcdn/requests")

    def verify(self, *expectations: Mapping[str, Any], ordered: bool = False,
               since: str | None = None) -> list[list[str]]:
        """Checks the request journal against expectations (``POST /_mockcdn/verify``); returns, for each,
        the ids of the entries it matched.

        Each expectation is a mapping with any of ``method``, ``path`` (a glob: ``*`` within a segment, a
        ``**`` segment across segments), ``query`` (text the query contains), ``credential`` (``fat-header``,
        ``presigned``, ``cloudfront``...), ``status`` (``200`` or a class such as ``"4xx"``) and ``count``
        (``{"min": N, "max": M}`` or a number; at least once by default)::

            cdn.verify({"method": "GET", "path": "/demo/**", "credential": "fat-header", "status": 200},
                       {"status": "4xx", "count": 0})

        Args:
            expectations: 1 to 100 expectations.
            ordered: each expectation must be met after the previous one's last match.
            since: only journal entries after this id (``"r12"``) are judged.

        Raises:
            VerificationError: an expectation is unmet; its message is the server's near-miss report.
            MockCDNError: the document is refused (400, naming the member) or the server cannot be reached.
        """
        document: dict[str, Any] = {"expectations": [dict(expectation) for expectation in expectations]}
        if ordered:
            document["ordered"] = True
        if since is not None:
            document["since"] = since
        try:
            answer = self._call("POST", "/_mockcdn/verify", document)
        except MockCDNError as error:
            if error.status != 409:
                raise
            result = json.loads(error.body)
            raise VerificationError(str(result["report"]), result) from None
        return [list(outcome["matched"]) for outcome in answer["expectations"]]

    def reset(self) -> None:
        """Back to the startup state (``POST /_mockcdn/reset``): objects and fixtures, journal, faults,
        clock at system time, channel members, upload settings."""
        self._call("POST", "/_mockcdn/reset")

    def events(self, after: int | None = None, wait: float | None = None, app: str | None = None,
               target: str | None = None) -> dict[str, Any]:
        """The upload event queue, oldest first (``GET /_mockcdn/events``, docs/events.md), as the server
        answers it: ``{"events": [{"id", "app", "targets", "arns", "record"}], "last_id", "waiting"}``, each
        ``record`` an S3 event notification record (``record["eventName"] == "ObjectCreated:Put"``).

        Args:
            after: only events with a greater id; pass the previous answer's ``last_id``.
            wait: the long poll, 0-60 seconds (fractions allowed): the answer comes as soon as one event
                matches, or with an empty list when the wait runs out. The request's timeout is stretched
                by it.
            app: only that app's events (an unknown app raises, 404).
            target: only the events that notification target (its id or ARN) passed, each record's
                ``configurationId`` then that target's id.
        """
        query = _query(after=after, wait=wait, app=app, target=target)
        return self._call("GET", "/_mockcdn/events" + query, timeout=self.timeout + float(wait or 0))

    def notification_targets(self, app: str) -> dict[str, Any]:
        """The app's upload event targets (``GET /_mockcdn/apps/{app}/notifications``, docs/events.md):
        ``{"webhooks": [...], "queues": [...], "topics": [...], "lambdas": [...]}``. An unknown app raises (404)."""
        return self._call("GET", "/_mockcdn/apps/" + urllib.parse.quote(app, safe="") + "/notifications")

    def set_notification_targets(self, app: str, targets: Mapping[str, Any]) -> dict[str, Any]:
        """Replaces every upload event target of the app until the next reset
        (``PUT /_mockcdn/apps/{app}/notifications``, docs/events.md) and returns them as kept, a target
        without an ``id`` given one (``notification-1``, ...).

        ``targets`` is the document the config file's ``notifications`` holds: ``webhooks`` (each with a
        ``url``), ``queues``, ``topics`` and ``lambdas`` (each with an ``arn``); every target has ``events``
        (``["s3:ObjectCreated:*"]``) and optional ``id``, ``prefix`` and ``suffix``::

            cdn.set_notification_targets("demo", {"webhooks": [
                {"id": "thumbs", "url": "http://127.0.0.1:9000/hooks/s3", "events": ["s3:ObjectCreated:*"]}]})

        ``{}`` removes them all. A bad target raises (400, naming the kind and member), so does an unknown
        app (404); nothing of a refused document is kept.
        """
        return self._call("PUT", "/_mockcdn/apps/" + urllib.parse.quote(app, safe="") + "/notifications",
                          dict(targets))

    def deliveries(self, app: str | None = None, target: str | None = None) -> dict[str, Any]:
        """The webhook delivery journal (``GET /_mockcdn/deliveries``, docs/events.md), filtered by app and
        target id: ``{"attempts": [...], "pending": [...]}``, every attempt oldest first with ``delivery``,
        ``target``, ``url``, ``event_id``, ``event_name``, ``key``, ``attempt``, ``status``, ``outcome``
        (``delivered``, ``failed``, ``timeout``, ``unreachable``, ``dropped``), ``error`` and
        ``next_attempt_at``; ``pending`` the deliveries waiting for their next attempt, with ``due_at``. An app no
        configuration names raises (404)."""
        return self._call("GET", "/_mockcdn/deliveries" + _query(app=app, target=target))

    def send_webhook(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """Sends the vendor-shaped webhook a message with the app's objects attached would cause
        (``POST /_mockcdn/webhooks``, docs/webhooks.md) to the URLs the app configured the vendor's way, and
        returns ``{"deliveries": [{"delivery", "target", "url", "webhook_id"}], "payloads": [...]}``::

            cdn.send_webhook({"vendor": "stream", "event": "message.new", "keys": ["fixtures/sample.jpg"],
                              "message": {"text": "look", "user": "alice", "channel": "messaging:general"}})

        ``body`` has ``app`` (default the first app), ``vendor`` (``stream`` or ``cometchat``), ``event``
        (``message.new`` or ``message_sent``), ``message`` (``user``; Stream's ``channel``, CometChat's
        ``receiver`` and ``receiver_type``; optional ``text`` and ``id``) and ``keys`` (at most 30). Raises
        on a bad member (400), an unknown app or key (404), and an app with no URL for the event (422).
        """
        return self._call("POST", "/_mockcdn/webhooks", dict(body))

    def report(self, format: str = "json", since: str | None = None) -> Any:
        """The contract coverage report of the journal (``GET /_mockcdn/report``, docs/report.md): a dict for
        ``format="json"``, the text for ``"markdown"`` and ``"junit"``. ``since`` reads from that entry on."""
        query = urllib.parse.urlencode({"format": format, **({"since": since} if since else {})})
        raw = self._send("GET", "/_mockcdn/report?" + query)
        return json.loads(raw) if format == "json" else raw.decode("utf-8")

    def merge_reports(self, reports: list[Mapping[str, Any]], format: str = "json") -> Any:
        """Several JSON reports (fetched before resets) added up row by row and rendered by the server
        (``POST /_mockcdn/report``): a dict for ``format="json"``, the text otherwise."""
        raw = self._send("POST", "/_mockcdn/report?format=" + urllib.parse.quote(format), {"reports": list(reports)})
        return json.loads(raw) if format == "json" else raw.decode("utf-8")

    # -- transport ---------------------------------------------------------------------------------

    def _call(self, method: str, path: str, body: Mapping[str, Any] | None = None, *,
              timeout: float | None = None) -> Any:
        """Sends one control request and returns its decoded JSON (``None`` for an empty answer)."""
        raw = self._send(method, path, body, timeout=timeout)
        if not raw.strip():
            return None
        try:
            return json.loads(raw)
        except ValueError as error:
            raise MockCDNError(f"{method} {path}: answer is not JSON", status=200,
                               body=raw.decode("utf-8", "replace")) from error

    def _send(self, method: str, path: str, body: Mapping[str, Any] | None = None, *,
              timeout: float | None = None) -> bytes:
        """Sends one control request and returns its body; an error answer raises ``MockCDNError``.
        ``timeout`` replaces the instance's for this request (a long poll's is longer)."""
        headers = {"Accept": "application/json"}
        data = None
        if method in ("POST", "PUT"):
            # A body is JSON; a POST without one (reset) needs no type.
            if body is not None:
                headers["Content-Type"] = "application/json"
            data = json.dumps(body).encode() if body is not None else b""
        if self.admin_token:
            headers["Authorization"] = f"Bearer {self.admin_token}"
        request = urllib.request.Request(self.url + path, data=data, headers=headers, method=method)
        try:
            with _OPENER.open(request, timeout=self.timeout if timeout is None else timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as error:
            text = error.read().decode("utf-8", "replace")
            error.close()
            message = MockCDNError("", body=text).message
            raise MockCDNError(f"{method} {path}: {error.code} {message}".rstrip(), status=error.code,
                               body=text) from None
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise MockCDNError(f"{method} {path}: MockCDN at {self.url} not reachable: {reason}") from error
        return raw
