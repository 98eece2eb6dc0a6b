"""Connecting the dask demo to a running scheduler (``--scheduler ADDRESS``).

The address is checked before any connect (:func:`check_address`: a port, a known
scheme, no ``inproc://`` of another process), a host name the resolver does not know
and a host that refuses the connection answer at once (:func:`refused`), and the
client is made within ``--connect-timeout`` seconds on a daemon thread (:func:`connect`:
``Client``'s own timeout bounds the TCP connect only), every failure a ``DemoError`` of
one line.
Imports ``distributed`` only when called.
"""

from __future__ import annotations

import threading
import time

from .demo import DemoError

__all__ = ["HOST_PORT_SCHEMES", "check_address", "address_problem", "refused", "connect",
           "quiet_on_failure", "wait_for_workers"]

#: Address schemes whose addresses are host:port (distributed's TCP, TLS and
#: websocket comms); others (``ucx``) are left to ``distributed`` to parse.
HOST_PORT_SCHEMES = ("tcp", "tls", "ws", "wss")


def check_address(scheduler: str) -> None:
    """``DemoError`` for an address no scheduler can have (no port, an unknown scheme,
    ``inproc://`` from another process), before any connect: a ``Client`` made for one
    waits for its timeout and fails again when it is collected at exit."""
    why = address_problem(scheduler)
    if why:
        raise DemoError(f"--scheduler {scheduler!r} is not a scheduler's address ({why}); "
                        "give HOST:PORT or tcp://HOST:PORT")
    from distributed.comm import parse_address
    from distributed.comm.registry import get_backend

    scheme, _ = parse_address(scheduler)
    try:
        get_backend(scheme).get_connector()
    except Exception as exc:   # noqa: BLE001 - a comm whose package is missing (ucx)
        raise DemoError(f"the {scheme}:// comm of --scheduler {scheduler!r} cannot be used "
                        f"here ({type(exc).__name__}: {exc})") from None


def address_problem(scheduler: str) -> str:
    """Why ``scheduler`` cannot be a scheduler's address, as ``distributed`` parses
    addresses, or ``""``."""
    from distributed.comm import get_address_host_port, parse_address
    from distributed.comm.registry import get_backend

    try:
        scheme, _ = parse_address(scheduler)
        get_backend(scheme)   # ValueError naming the known schemes
        if scheme == "inproc":
            return "an inproc:// address is reachable only inside the process that made it"
        if scheme in HOST_PORT_SCHEMES:
            # the port and host as written: distributed's int() says "invalid literal
            # for int() with base 10", and an empty host waited out the whole timeout
            host, colon, port_text = scheduler.split("://", 1)[-1].rpartition(":")
            if "]" in port_text:   # a colon inside a bracketed IPv6 host ('[::1]'): no port
                colon = ""
            if colon and not port_text:
                return "it names no port after its colon"
            if colon and not (port_text.isascii() and port_text.isdigit()):
                return f"its port {port_text!r} is not a number"
            if colon and not host.strip("[] "):
                return "it names no host"
            _, port = get_address_host_port(scheduler)
            if not 0 < port < 65536:
                return f"port {port} is outside 1..65535"
    except ValueError as exc:
        return str(exc)
    return ""


def refused(scheduler: str, timeout: float) -> None:
    """A ``DemoError`` at once when the host of a host:port ``scheduler`` has no address
    (the resolver knows no such name: ``nonexistent.invalid``, ``256.0.0.1``), or nothing
    listens at its port (the host refuses the TCP connection that ``tcp://``, ``tls://``,
    ``ws://`` and ``wss://`` all start with): ``Client`` would retry either until its
    whole timeout has passed, then report a timeout. Any other outcome of the probe (a
    resolver that may answer later, a connect that times out) is left to ``Client``."""
    import socket

    from distributed.comm import get_address_host_port, parse_address

    if parse_address(scheduler)[0] not in HOST_PORT_SCHEMES:
        return
    host, port = get_address_host_port(scheduler)
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except socket.gaierror as exc:
        if exc.errno == socket.EAI_NONAME:
            raise DemoError(f"--scheduler {scheduler}: the host {host!r} has no address "
                            f"(the resolver: {exc.strerror})") from None
    except ConnectionRefusedError:
        raise DemoError(f"no dask scheduler answers at {scheduler}: nothing listens "
                        "there (connection refused)") from None
    except OSError:   # timed out: Client reports it as before
        pass


def connect(Client, scheduler, timeout):
    """``Client(scheduler)`` within ``timeout`` seconds (plus one of grace), or a
    ``DemoError``. ``Client``'s own timeout bounds the TCP connect only: a peer that
    accepts and never answers would hold the handshake for ever, so it runs on a daemon
    thread that is left behind when it does not finish in time. That probe is not made
    the default (``set_as_default=False``): a default client registers itself before it
    connects, and a left-behind one would then take every later ``compute`` of the
    process and never answer. Once the probe is answered, it is closed and the client
    returned is made here, the process's default (every thread's computes go to it, as
    with the local cluster's client)."""
    check_address(scheduler)
    refused(scheduler, timeout)
    Client = quiet_on_failure(Client)
    box = {}

    def connect():
        try:
            box["client"] = Client(scheduler, timeout=f"{timeout}s", set_as_default=False)
        except Exception as exc:   # noqa: BLE001 - reported below
            box["error"] = exc

    thread = threading.Thread(target=connect, name="xstride-connect", daemon=True)
    started = time.monotonic()
    thread.start()
    thread.join(timeout + 1.0)
    if thread.is_alive():
        raise DemoError(f"no dask scheduler answers at {scheduler} within {timeout:g} s (the "
                        "connection was accepted, no scheduler's reply came)")
    exc = box.get("error")
    if exc is None:
        box.pop("client").close()
        try:
            return Client(scheduler, timeout=f"{timeout}s")
        except Exception as again:   # noqa: BLE001 - gone between the two connects
            exc = again
    why = f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"
    waited = time.monotonic() - started
    if isinstance(exc, OSError) and not isinstance(exc, TimeoutError) and \
            waited < 0.9 * timeout:   # closed or reset by the peer, long before the timeout
        raise DemoError(f"the peer at {scheduler} closed the connection after "
                        f"{waited:.1f} s, before a dask scheduler answered ({why})")
    if isinstance(exc, (OSError, TimeoutError)):   # refused, timed out, unknown host
        raise DemoError(f"no dask scheduler answers at {scheduler} within {timeout:g} s "
                        f"({why})")
    if isinstance(exc, MemoryError):   # a length read from bytes that are no dask frame
        raise DemoError(f"the peer at {scheduler} does not speak dask's protocol (its "
                        "reply read as a dask message gave a frame length of "
                        "exabytes)")
    if isinstance(exc, TypeError) and ".identity()" in str(exc):
        # the client's first call, the scheduler's identity, reached a worker or a nanny
        # ("Worker.identity() got an unexpected keyword argument 'n_workers'")
        raise DemoError(f"--scheduler {scheduler} is the address of a dask "
                        f"{_server_kind(exc)}, not of a scheduler: give the address the "
                        "scheduler prints (its workers print it as 'Registered to:')")
    if isinstance(exc, TypeError):   # this side's settings (a tls:// address, no TLS set)
        raise DemoError(f"cannot connect to {scheduler} ({why})")
    raise DemoError(f"the peer at {scheduler} does not speak dask's protocol ({why})")


def _server_kind(exc) -> str:
    """What answered the client's call of the scheduler's ``identity()``: a worker
    (``Worker.identity()``), else a nanny or another server (``Server.identity()``)."""
    return "worker" if "Worker.identity()" in str(exc) else "worker's nanny or other server"


def quiet_on_failure(Client):
    """``Client`` whose instances, when the constructor raises, skip ``Client.__del__``:
    it would close the half-made client at collection (often at the process's exit),
    wait for its timeout and print a traceback after the demo's one-line error."""
    class _Client(Client):
        def __init__(self, *args, **kwargs):
            try:
                super().__init__(*args, **kwargs)
            except BaseException:
                self._xstride_failed = True
                raise

        def __del__(self):
            if not getattr(self, "_xstride_failed", False):
                super().__del__()

    return _Client


def wait_for_workers(client, scheduler, timeout) -> None:
    """A ``DemoError`` where the scheduler of ``client`` has no running worker within
    ``timeout`` seconds (``--connect-timeout``): its tasks would wait for ever (a
    scheduler started without ``dask worker``: the demo showed its first stage running,
    and nothing more)."""
    import asyncio

    try:
        client.wait_for_workers(1, timeout=timeout)
    except (TimeoutError, asyncio.TimeoutError):   # distributed's WorkerStartTimeoutError
        raise DemoError(f"the dask scheduler at {scheduler} has no workers (none came "
                        f"within {timeout:g} s, --connect-timeout): its tasks would wait for "
                        f"ever; start workers with 'dask worker {scheduler}'") from None
