"""The rules `tensorweg serve` holds its tabs to (screens.serve.limits), one by one: what a tab's
environment keeps, the terminal size it may ask for, the token check, the Origin and Host checks,
where the class is sent."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.cli.commands import MAX_SIZE, MIN_SIZE

from screens.serve.limits import (
    TabSetup,
    asked_size,
    capped_size,
    host_accepted,
    idle_message,
    is_loopback,
    new_token,
    origin_accepted,
    public_url,
    tab_environment,
    token_accepted,
)
from screens.serve.policy import CAPTURE_VARIABLE, QUEUE_VARIABLE

SERVER_ENVIRONMENT = {
    "PATH": "/usr/bin", "HOME": "/home/teacher", "LANG": "de_DE.UTF-8", "LC_ALL": "de_DE.UTF-8", "TERM": "xterm",
    "XDG_CACHE_HOME": "/home/teacher/.cache", "TENSORWEG_CACHE_DIR": "/srv/cache",
    "TEXTUAL_DRIVER": "textual.drivers.web_driver:WebDriver", "COLUMNS": "100", "ROWS": "30",
    # The server's, not the learners': secrets, and what would change how Python starts.
    "AWS_SECRET_ACCESS_KEY": "secret", "GITHUB_TOKEN": "secret", "SSH_AUTH_SOCK": "/tmp/agent",
    "PYTHONPATH": "/home/teacher/evil", "PYTHONSTARTUP": "/home/teacher/x.py", "LD_PRELOAD": "/tmp/x.so",
    # The compilers' settings: only for tabs that capture.
    "XLA_FLAGS": "--xla_dump_to=/tmp", "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": "0",
    "LD_LIBRARY_PATH": "/usr/local/cuda/lib64",
    # A policy left in the server's own environment (a serve started from a tab): not this server's.
    CAPTURE_VARIABLE: "1", QUEUE_VARIABLE: "/tmp/old-queue",
}
KEPT = {"PATH", "HOME", "LANG", "LC_ALL", "TERM", "XDG_CACHE_HOME", "TENSORWEG_CACHE_DIR", "TEXTUAL_DRIVER",
        "COLUMNS", "ROWS"}
COMPILER = {"XLA_FLAGS", "TF_CPP_MIN_LOG_LEVEL", "CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH"}


def _setup(captures: bool, variables=((CAPTURE_VARIABLE, "0"),)) -> TabSetup:
    return TabSetup(("python", "-I", "-m", "screens.cli", "open", "course.twpack"), variables, Path("/run"), captures)


def test_a_tab_keeps_only_what_the_app_needs_and_gets_its_own_temp_folder():
    environment = tab_environment(SERVER_ENVIRONMENT, _setup(captures=False), Path("/run/tabs/1"))
    assert set(environment) == KEPT | {CAPTURE_VARIABLE, "TMPDIR", "TMP", "TEMP"}
    assert {key: environment[key] for key in KEPT} == {key: SERVER_ENVIRONMENT[key] for key in KEPT}
    assert environment[CAPTURE_VARIABLE] == "0"  # this server's policy, not the stale one
    assert environment["TMPDIR"] == environment["TMP"] == environment["TEMP"] == "/run/tabs/1"


def test_a_tab_that_may_capture_also_keeps_the_compilers_settings():
    setup = _setup(captures=True, variables=((CAPTURE_VARIABLE, "1"), (QUEUE_VARIABLE, "/run/queue")))
    environment = tab_environment(SERVER_ENVIRONMENT, setup, Path("/run/tabs/1"))
    assert set(environment) == KEPT | COMPILER | {CAPTURE_VARIABLE, QUEUE_VARIABLE, "TMPDIR", "TMP", "TEMP"}
    assert environment[QUEUE_VARIABLE] == "/run/queue"


@pytest.mark.parametrize("width, height, asked", [
    ("100", "30", (100, 30)),
    (None, None, (80, 24)),
    ("10000", "10000", (10000, 10000)),
    ("-5", "0", (-5, 0)),
    ("1e9", "abc", (80, 24)),
    ("99999999999999999999", "30", (80, 30)),  # not a size: the default, not a huge number
    (120, 40, (120, 40)),  # a resize message's JSON numbers
    (True, 40.5, (80, 24)),
    ([1], {"a": 1}, (80, 24)),
], ids=["plain", "not given", "huge", "negative", "not whole numbers", "too many digits", "json", "json odd",
        "json containers"])
def test_a_tab_asks_for_a_whole_number_size_or_gets_the_default(width, height, asked):
    assert asked_size(width, height) == asked


@pytest.mark.parametrize("asked, given", [
    ((100, 30), (100, 30)),
    ((10000, 10000), MAX_SIZE),
    ((1, 1), MIN_SIZE),
    ((-5, 0), MIN_SIZE),
    ((501, 200), (500, 200)),
], ids=["within", "huge", "tiny", "negative", "one column over"])
def test_a_tab_size_is_capped_as_screenshot_caps_it(asked, given):
    assert capped_size(asked) == given


def test_the_token_is_checked_whole_in_constant_time_and_only_when_set():
    token = new_token()
    assert len(token) >= 16 and token != new_token()
    assert token_accepted(token, token)
    for wrong in (None, "", token[:-1], token + "x", token.upper() if token != token.upper() else "x", "ä" * 24):
        assert not token_accepted(token, wrong), wrong
    assert token_accepted(None, None) and token_accepted(None, "anything")  # loopback without --token


@pytest.mark.parametrize("host, loopback", [
    ("127.0.0.1", True), ("localhost", True), ("::1", True), ("127.0.0.2", True),
    ("0.0.0.0", False), ("::", False), ("10.0.0.5", False), ("example.org", False), ("localhost.example.org", False),
])
def test_only_loopback_addresses_go_without_a_token(host, loopback):
    assert is_loopback(host) is loopback


@pytest.mark.parametrize("host, token, url", [
    ("127.0.0.1", None, "http://127.0.0.1:8000"),
    ("0.0.0.0", "abc", "http://classroom:8000/?token=abc"),
    ("::", "abc", "http://classroom:8000/?token=abc"),
    ("10.0.0.5", "abc", "http://10.0.0.5:8000/?token=abc"),
    ("fe80::1", "abc", "http://[fe80::1]:8000/?token=abc"),
], ids=["loopback", "all IPv4", "all IPv6", "an address", "an IPv6 address"])
def test_the_printed_address_is_one_a_learner_can_open(host, token, url):
    assert public_url(host, 8000, "classroom", token) == url


def test_the_idle_message_names_the_time_in_words_a_close_frame_holds():
    assert idle_message(1800) == "This tab closed after 30 minutes without a key or a click; Restart opens a new one."
    assert idle_message(60).startswith("This tab closed after 1 minute without")
    assert idle_message(90).startswith("This tab closed after 90 seconds without")
    assert len(idle_message(10**9).encode()) <= 123  # a websocket close reason's limit


@pytest.mark.parametrize("host, server_host, accepted", [
    ("127.0.0.1:8000", "127.0.0.1", True), ("localhost:8000", "127.0.0.1", True), ("LOCALHOST:8000", "127.0.0.1", True),
    ("[::1]:8000", "127.0.0.1", True), ("[0:0::1]:8000", "::1", True), ("127.0.0.2:8000", "127.0.0.2", True),
    ("evil.example:8000", "127.0.0.1", False),  # a rebound name that now resolves to 127.0.0.1
    ("127.0.0.1:8001", "127.0.0.1", False), ("127.0.0.1", "127.0.0.1", False),  # another port (80)
    ("localhost.evil.example:8000", "localhost", False), ("127.0.0.2:8000", "127.0.0.1", False),
    ("user@127.0.0.1:8000", "127.0.0.1", False), ("127.0.0.1:8000/x", "127.0.0.1", False),
    ("", "127.0.0.1", False), (None, "127.0.0.1", False),
    ("evil.example:8000", "0.0.0.0", True), (None, "10.0.0.5", True),  # not loopback: the token guards it
])
def test_a_loopback_server_answers_only_its_loopback_names_with_its_port(host, server_host, accepted):
    assert host_accepted(host, server_host, 8000) is accepted


@pytest.mark.parametrize("origin, host, server_host, accepted", [
    (None, "127.0.0.1:8000", "127.0.0.1", True),  # curl, scripts, the bench: no browser page asks
    ("http://127.0.0.1:8000", "127.0.0.1:8000", "127.0.0.1", True),
    ("http://localhost:8000", "localhost:8000", "localhost", True),
    ("http://localhost:8000", "127.0.0.1:8000", "127.0.0.1", True),  # a loopback alias of this server
    ("http://[::1]:8000", "127.0.0.1:8000", "127.0.0.1", True),
    ("http://classroom:8000", "classroom:8000", "0.0.0.0", True),  # as the class addressed it
    ("http://evil.example", "127.0.0.1:8000", "127.0.0.1", False),
    ("https://evil.example:8000", "127.0.0.1:8000", "127.0.0.1", False),
    ("http://evil.example:8000", "classroom:8000", "0.0.0.0", False),
    ("http://127.0.0.1:8001", "127.0.0.1:8000", "127.0.0.1", False),  # another server on this machine
    ("http://localhost:8000", "classroom:8000", "0.0.0.0", False),  # not loopback: only as addressed
    ("https://127.0.0.1:8000", "127.0.0.1:8000", "127.0.0.1", False),  # another scheme
    ("null", "127.0.0.1:8000", "127.0.0.1", False),  # a sandboxed frame or a file:// page
    ("http://127.0.0.1:8000/", "127.0.0.1:8000", "127.0.0.1", False),
    ("http://user@127.0.0.1:8000", "127.0.0.1:8000", "127.0.0.1", False),
    ("", "127.0.0.1:8000", "127.0.0.1", False),
])
def test_a_browser_request_must_come_from_this_servers_own_page(origin, host, server_host, accepted):
    assert origin_accepted(origin, host, "http", server_host, 8000) is accepted
