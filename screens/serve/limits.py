"""What `tensorweg serve` allows a browser tab: its environment, its terminal size, who may connect,
and how many tabs at once. Plain functions over data (no aiohttp), so each rule is tested alone;
`screens.serve.server` applies them to textual-serve's server.

A tab's app process is started like a capture worker: `python -I`, its own process group and temp
folder, and an environment with only what the app needs. The server's other variables (API keys,
cloud credentials, SSH agents) are not the learners' business.
"""

from __future__ import annotations

import hmac
import ipaddress
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from explorer.cli.commands import MAX_SIZE, MIN_SIZE

from screens.serve.policy import CAPTURE_VARIABLE, QUEUE_VARIABLE

DEFAULT_SIZE = (80, 24)  # what textual-serve assumes when the browser does not say

# What the app needs from the server's environment: finding programs and the user's folders,
# the locale, the terminal, and the app's own settings (cache folder, serve policy).
_KEPT_NAMES = frozenset({"PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TERM", "NO_COLOR",
                         "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR",
                         "COLUMNS", "ROWS", "TERM_PROGRAM", "TERM_PROGRAM_VERSION"})
_KEPT_PREFIXES = ("LC_", "TENSORWEG_", "TEXTUAL")  # TEXTUAL*: what textual-serve sets for its driver
# With --allow-capture a tab starts capture workers, which read the compilers' settings.
_COMPILER_NAMES = frozenset({"LD_LIBRARY_PATH"})
_COMPILER_PREFIXES = ("XLA_", "TF_", "JAX_", "KERAS_", "CUDA_", "TPU_", "TVM_", "OMP_")
TOKEN_PARAMETER = "token"


@dataclass(frozen=True)
class TabLimits:
    """The limits one server holds its tabs to (each a `serve` flag; the defaults are the parser's)."""

    max_tabs: int
    idle_timeout: float  # seconds without a key or click; 0: never
    token: str | None  # required from every request when set (a non-loopback host)


@dataclass(frozen=True)
class TabSetup:
    """How the server starts each tab: the command, the policy variables, where temp folders go."""

    command: tuple[str, ...]
    variables: tuple[tuple[str, str], ...]  # the serve policy (screens.serve.policy), set in every tab
    run_dir: Path  # the server's temp folder; each tab's own folder is made inside it
    captures: bool  # tabs may capture: the compilers' settings pass through too


def tab_environment(environ: Mapping[str, str], setup: TabSetup, temp_dir: Path) -> dict[str, str]:
    """The environment of one tab's app process: the kept part of `environ`, the serve policy,
    and `temp_dir` as every temp-folder variable (the app's and its workers' files stay in it)."""
    names, prefixes = _KEPT_NAMES, _KEPT_PREFIXES
    if setup.captures:
        names, prefixes = names | _COMPILER_NAMES, prefixes + _COMPILER_PREFIXES
    kept = {key: value for key, value in environ.items()
            if (key in names or key.startswith(prefixes)) and key not in (CAPTURE_VARIABLE, QUEUE_VARIABLE)}
    kept.update(setup.variables)  # the policy is this server's, never one left in its environment
    kept.update({"TMPDIR": str(temp_dir), "TMP": str(temp_dir), "TEMP": str(temp_dir)})
    return kept


def asked_size(width: object, height: object) -> tuple[int, int]:
    """The terminal size a tab asked for (query text or JSON numbers); what is not a whole number
    is the default size."""
    return _whole_number(width, DEFAULT_SIZE[0]), _whole_number(height, DEFAULT_SIZE[1])


def capped_size(asked: tuple[int, int]) -> tuple[int, int]:
    """`asked` within what `screenshot --size` allows: a 10000x10000 tab grew to half a gigabyte."""
    return (min(max(asked[0], MIN_SIZE[0]), MAX_SIZE[0]), min(max(asked[1], MIN_SIZE[1]), MAX_SIZE[1]))


def _whole_number(value: object, default: int) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and re.fullmatch(r"-?\d{1,9}", value.strip()):
        return int(value)
    return default


def new_token() -> str:
    return secrets.token_urlsafe(18)


def token_accepted(expected: str | None, given: str | None) -> bool:
    """Whether a request may pass: no token needed, or the right one (compared in constant time)."""
    if expected is None:
        return True
    return given is not None and hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


def token_cookie(port: int) -> str:
    """The cookie the page's own requests (scripts, the websocket) carry the token in; one per port,
    so two servers on one machine do not overwrite each other's."""
    return f"tensorweg-token-{port}"


def is_loopback(host: str) -> bool:
    """Only this machine can connect: localhost, 127.0.0.0/8 or ::1."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name: it may resolve to anything
        return False


# Host (a header) and Origin as browsers send them: a name or [IPv6], and a port unless the default.
_HOST_PORT = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?")
_ORIGIN = re.compile(r"(https?)://(.+)", re.IGNORECASE)
_DEFAULT_PORTS = {"http": 80, "https": 443}


def loopback_names(host: str) -> frozenset[str]:
    """The names a browser on this machine may use for a loopback server on `host`."""
    return frozenset({_normal_host(host), "localhost", "127.0.0.1", "::1"})


def host_accepted(host_header: str | None, server_host: str, port: int) -> bool:
    """DNS rebinding: a page on evil.example whose name came to resolve to 127.0.0.1 reaches a
    loopback server with `Host: evil.example:PORT`; a loopback server answers only its own loopback
    names with its port. A server on another address holds requests to its token instead."""
    if not is_loopback(server_host):
        return True
    address = _address(host_header, "http")
    return address is not None and address[0] in loopback_names(server_host) and address[1] == port


def origin_accepted(origin: str | None, host_header: str | None, scheme: str, server_host: str, port: int) -> bool:
    """Cross-site WebSocket hijacking: browsers apply no CORS to websockets, so any page the learner
    visits could open a tab. A browser names the page's origin; it must be the server as the browser
    addressed it (scheme, Host header), or for a loopback server one of its loopback names with its
    port. No Origin at all (curl, scripts, the bench) is not a browser's cross-site request."""
    if origin is None:
        return True
    match = _ORIGIN.fullmatch(origin)
    if match is None:  # "null" (a sandboxed frame, a file:// page) or malformed
        return False
    origin_scheme = match.group(1).lower()
    given = _address(match.group(2), origin_scheme)
    if given is None or origin_scheme != scheme:
        return False
    if given == _address(host_header, scheme):
        return True
    return is_loopback(server_host) and given[0] in loopback_names(server_host) and given[1] == port


def _address(host_port: str | None, scheme: str) -> tuple[str, int] | None:
    """(normalised host, port) of a Host header or an origin's authority; None when malformed."""
    match = _HOST_PORT.fullmatch(host_port or "")
    if match is None:
        return None
    port = int(match.group(2)) if match.group(2) else _DEFAULT_PORTS[scheme]
    return _normal_host(match.group(1).strip("[]")), port


def _normal_host(host: str) -> str:
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        return host.lower()


def public_url(host: str, port: int, hostname: str, token: str | None) -> str:
    """The address to give the class: a wildcard host (0.0.0.0, ::) as this machine's name, and the token."""
    shown = hostname if host in ("0.0.0.0", "::", "") else host
    if ":" in shown:  # an IPv6 address
        shown = f"[{shown}]"
    return f"http://{shown}:{port}" + (f"/?{TOKEN_PARAMETER}={token}" if token else "")


def tabs_full_message(max_tabs: int) -> str:
    return f"This server's tabs are all in use ({max_tabs} at most); try again in a few minutes."


def ended_message(returncode: int | None) -> str:
    """What the page of a tab whose app died says (killed, crashed: not a quit the learner asked for)."""
    if returncode is not None and returncode < 0:
        how = f"it was killed by signal {-returncode}"
    else:
        how = f"it exited with status {returncode}" if returncode is not None else "its output ended"
    return f"The explorer in this tab stopped ({how}); Restart opens a new one."


# `token=VALUE` in a logged URL or Referer: VALUE up to the next `&`, `#`, space or quote.
_TOKEN_IN_URL = re.compile(rf"([?&]{TOKEN_PARAMETER}=)[^&#\s\"]*")


def masked_token(text: str) -> str:
    """`text` (a request line, a Referer) with the token's value shown as `...`: a log is read by more
    people than the class, and a token in it opens the server to whoever reads it."""
    return _TOKEN_IN_URL.sub(r"\1...", text)


def idle_message(idle_timeout: float) -> str:
    return f"This tab closed after {_duration(idle_timeout)} without a key or a click; Restart opens a new one."


def _duration(seconds: float) -> str:
    if seconds >= 60 and seconds % 60 == 0:
        minutes = int(seconds // 60)
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    return f"{seconds:g} seconds"
