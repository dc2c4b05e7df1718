"""The wheel's `mockcdn` command and binary lookup (``mockcdn.bundled``), on a fake wheel tree: what it says
when a runtime package is missing. make dist-check runs the real wheel in a clean Debian root."""

from __future__ import annotations

import pytest

from mockcdn import MockCDNError, bundled
from mockcdn.process import find_binary

LIST = """# a comment, then the columns: package, what it provides, when, why
libssl3          libcrypto.so.3          start      hashes, HMAC and RSA signatures
libfake-start9   libmockcdn-absent.so.9  start      a library no machine has
fake-ffmpeg      mockcdn-absent-program  posters    video posters
curl             mockcdn-absent-curl     container  the container's health check
"""


@pytest.fixture
def wheel_tree(tmp_path, monkeypatch):
    """A tree shaped like the wheel's `_dist`, with an executable stand-in for the binary."""
    (tmp_path / "share" / "mockcdn").mkdir(parents=True)
    (tmp_path / "share" / "mockcdn" / "runtime-packages.txt").write_text(LIST)
    (tmp_path / "bin").mkdir()
    binary = tmp_path / "bin" / "mockcdn"
    binary.write_text("#!/bin/sh\nexit 0\n")
    binary.chmod(0o755)
    monkeypatch.setattr(bundled, "ROOT", tmp_path)
    monkeypatch.delenv("MOCKCDN_BINARY", raising=False)
    return tmp_path


def test_a_missing_linked_library_names_its_package_and_the_apt_line(wheel_tree):
    missing = [p.name for p in bundled.missing_packages()]
    assert missing == ["libfake-start9", "fake-ffmpeg"]  # libcrypto loads here; the container's own is skipped
    advice = bundled.check()
    assert advice is not None
    assert "libfake-start9 (libmockcdn-absent.so.9): a library no machine has" in advice
    assert "apt-get install --no-install-recommends libfake-start9 fake-ffmpeg" in advice
    with pytest.raises(MockCDNError, match="libfake-start9"):
        find_binary()
    with pytest.raises(SystemExit) as stopped:
        bundled.main()
    assert "libfake-start9" in str(stopped.value.code)


def test_a_missing_optional_program_is_reported_and_the_binary_still_runs(wheel_tree, capsys):
    (wheel_tree / "share" / "mockcdn" / "runtime-packages.txt").write_text(
        "\n".join(line for line in LIST.splitlines() if "libfake" not in line))
    assert bundled.check() is None
    assert "fake-ffmpeg" in capsys.readouterr().err
    assert find_binary() == str(wheel_tree / "bin" / "mockcdn")


def test_an_install_without_a_binary_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(bundled, "ROOT", tmp_path)
    assert bundled.binary() is None and bundled.runtime_packages() == []
    with pytest.raises(SystemExit) as stopped:
        bundled.main()
    assert "carries no binary" in str(stopped.value.code)


def test_mockcdn_home_names_a_release_folder_before_the_wheels_binary(wheel_tree, tmp_path_factory, monkeypatch):
    """After MOCKCDN_BINARY, as the JS and Java helpers look it up; a home without the binary is an error."""
    home = tmp_path_factory.mktemp("release")
    (home / "bin").mkdir()
    (home / "bin" / "mockcdn").write_text("#!/bin/sh\nexit 0\n")
    (home / "bin" / "mockcdn").chmod(0o755)
    monkeypatch.setenv("MOCKCDN_HOME", str(home))
    assert find_binary() == str(home / "bin" / "mockcdn")
    monkeypatch.setenv("MOCKCDN_BINARY", str(wheel_tree / "bin" / "mockcdn"))
    assert find_binary() == str(wheel_tree / "bin" / "mockcdn")
    monkeypatch.delenv("MOCKCDN_BINARY")
    empty = tmp_path_factory.mktemp("empty")
    monkeypatch.setenv("MOCKCDN_HOME", str(empty))
    with pytest.raises(MockCDNError, match=f"MOCKCDN_HOME={empty}: bin/mockcdn is not an executable file"):
        find_binary()
