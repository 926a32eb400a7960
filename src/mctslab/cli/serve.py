"""`mctslab serve`: the web board, to play in a browser and watch the AI think."""

from __future__ import annotations

import ipaddress
import socket
import webbrowser
from typing import Annotated

import typer

from mctslab._extras import install_hint
from mctslab.cli import _options as opt
from mctslab.games._base import os_reason


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.", min=1, max=65535)] = 8000,
    engine: opt.Engine = "compiled",
    memory_mb: Annotated[
        float,
        typer.Option(
            "--memory-mb",
            help="Most memory each game's search tree takes, in MiB: a game keeps its tree "
            "between moves while the server keeps the game, and a search stops early when its "
            "tree is full.",
            callback=opt.tree_memory_mb,
        ),
    ] = 256.0,  # mctslab.web's MEMORY_MB, which the board needs its extra to import
    open_browser: Annotated[
        bool, typer.Option("--open", help="Open the page in a web browser.")
    ] = False,
) -> None:
    """Serve the web board: play every two-player game and watch the AI's search live."""
    try:
        import uvicorn

        from mctslab.web import create_app
    except ImportError as error:
        opt.fail(f"the web board is not installed ({error}); {install_hint('web')}")
    try:
        app = create_app(engine, memory_mb=memory_mb)
    except ValueError as error:
        opt.fail(str(error))
    _check_free(host, port)
    if engine == "compiled":
        opt.compile_engine()
    # The address listened on, as given: "localhost" can resolve to ::1 first, where a board
    # on 127.0.0.1 is not. A wildcard (every interface) is reached at this machine's own
    # loopback address; an IPv6 address is written in brackets in a URL.
    shown, everywhere = host, _unspecified(host)
    if everywhere is not None:
        shown = "127.0.0.1" if everywhere.version == 4 else "::1"
    url = f"http://{f'[{shown}]' if ':' in shown else shown}:{port}/"
    others = " (listening on every interface: other machines may connect)" if everywhere else ""
    opt.console.print(f"mctslab board at {url}{others}  (Ctrl-C to stop)", soft_wrap=True)
    if open_browser:
        webbrowser.open(url)
    uvicorn.run(app, host=host, port=port, log_level="warning")


def _unspecified(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """``host`` as an address if it means every interface (0.0.0.0, ::), else None."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:  # a name, such as localhost
        return None
    return address if address.is_unspecified else None


def _check_free(host: str, port: int) -> None:
    """Fail with a clear message, before the board is announced, if ``host:port`` is taken."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
            probe.bind((host, port))
    except OSError as error:
        opt.fail(f"cannot listen on {host}:{port}: {os_reason(error)}.")
