"""MockCDN's image as a Testcontainers container (``pip install 'mockcdn[testcontainers]'``).

::

    from mockcdn.testcontainers import MockCDNContainer

    with MockCDNContainer() as container:          # the `mockcdn` image (docker/Dockerfile)
        cdn = container.client()                   # a MockCDN already healthy, with the admin token
        fat = cdn.token("fat", user_id="alice")

The container binds 0.0.0.0 inside, so the control routes need the admin token: the container is given one
(``MOCKCDN_ADMIN_TOKEN``), and ``client()`` sends it. Links MockCDN hands out follow the request's ``Host``,
so they point at the mapped port. ``start()`` returns once ``/_mockcdn/health`` answers 200, and fails with
the container's log when it exits or does not answer within ``startup_timeout`` seconds.

Only this module needs the ``testcontainers`` package; the rest of the helper is the standard library.
"""

from __future__ import annotations

import secrets
import time
import urllib.error
import urllib.request
from pathlib import Path

from testcontainers.core.container import DockerContainer

from .client import MockCDN
from .errors import MockCDNError

#: The port the image listens on.
PORT = 8080
#: Where ``with_fixtures`` mounts a folder of the host.
FIXTURES_PATH = "/var/lib/mockcdn/fixtures"
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class MockCDNContainer(DockerContainer):
    """A MockCDN container: the image's ``mockcdn serve``, its port published, an admin token set."""

    def __init__(self, image: str = "mockcdn", admin_token: str | None = None, startup_timeout: float = 60,
                 **kwargs) -> None:
        super().__init__(image, **kwargs)
        token = admin_token if admin_token is not None else secrets.token_hex(16)
        if len(token) < 16 or any(character.isspace() for character in token):
            raise ValueError("the admin token needs at least 16 characters and no whitespace")
        self.admin_token = token
        self.startup_timeout = startup_timeout
        self.with_exposed_ports(PORT)
        self.with_env("MOCKCDN_ADMIN_TOKEN", token)

    def with_fixtures(self, folder: str | Path) -> MockCDNContainer:
        """Serves ``folder`` of the host (read-only) as the default app's fixtures instead of the image's."""
        self.with_volume_mapping(str(Path(folder).resolve()), FIXTURES_PATH, "ro")
        self.with_env("MOCKCDN_FIXTURES", FIXTURES_PATH)
        return self

    def get_url(self) -> str:
        """``http://HOST:PORT`` of the published port."""
        return f"http://{self.get_container_host_ip()}:{self.get_exposed_port(PORT)}"

    def start(self) -> MockCDNContainer:
        """Starts the container and waits until its health route answers 200."""
        super().start()
        deadline = time.monotonic() + self.startup_timeout
        while True:
            try:
                with _OPENER.open(self.get_url() + "/_mockcdn/health", timeout=5) as answer:
                    if answer.status == 200:
                        return self
            except (OSError, urllib.error.URLError):
                pass
            self.get_wrapped_container().reload()
            status = self.get_wrapped_container().status
            if status not in ("created", "running") or time.monotonic() > deadline:
                stdout, stderr = self.get_logs()
                log = (stdout + stderr).decode("utf-8", "replace")[-3000:]
                raise MockCDNError(f"the MockCDN container is {status} and never answered its health route:\n{log}")
            time.sleep(0.1)

    def client(self) -> MockCDN:
        """A ``MockCDN`` attached to the container, with its admin token."""
        return MockCDN.connect(self.get_url(), admin_token=self.admin_token)
