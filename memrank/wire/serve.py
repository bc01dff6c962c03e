"""``memrank serve``: any in-process Memory over the Add/Search contract, on HTTP.

``POST /add``, ``POST /search`` and an unauthenticated ``GET /health``, with one isolated
store per user_id (see ``ContractService``). Needs the ``serve`` extra: starlette and
uvicorn, imported only here.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from memrank.errors import MissingExtra, UsageError
from memrank.system import Memory
from memrank.systems.http._client import Auth
from memrank.wire._service import Answer, ContractService, reason

if TYPE_CHECKING:
    import uvicorn
    from starlette.applications import Starlette

__all__ = ["ContractService", "app", "listen", "serve_forever", "serving"]

_STARTUP_SECONDS = 10.0


def app(service: ContractService) -> Starlette:
    """The ASGI application answering the contract for ``service``."""
    _require_extra()
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.exceptions import HTTPException
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    def respond(answer: Answer) -> Response:
        return Response(answer.body, answer.status, media_type="application/json")

    async def add(request: Request) -> Response:
        body = await request.body()
        return respond(await run_in_threadpool(service.add, body, request.headers))

    async def search(request: Request) -> Response:
        body = await request.body()
        return respond(await run_in_threadpool(service.search, body, request.headers))

    async def health(request: Request) -> Response:
        return respond(service.health())

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return respond(
            reason(exc.status_code, f"{request.method} {request.url.path}: {exc.detail}")
        )

    return Starlette(
        routes=[
            Route("/add", add, methods=["POST"]),
            Route("/search", search, methods=["POST"]),
            Route("/health", health, methods=["GET"]),
        ],
        exception_handlers={HTTPException: http_error},
    )


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port (port 0 picks a free one); refused first when the
    serve extra is missing, so nothing says "serving" that cannot serve."""
    _require_extra()
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP, flags=socket.AI_PASSIVE
        )[0]
        # The protocol is named so that asyncio sets TCP_NODELAY on accepted connections;
        # without it every keep-alive answer waits out the peer's delayed ACK (~40 ms).
        sock = socket.socket(family, kind, proto)
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    return sock


def serve_forever(
    make_memory: Callable[[], Memory],
    sock: socket.socket,
    *,
    auth: Auth | None = None,
) -> None:
    """Answer the contract on ``sock`` until interrupted."""
    _server(ContractService(make_memory, auth)).run(sockets=[sock])


@contextmanager
def serving(service: ContractService, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """Serve ``service`` from a background thread; yields the base URL, stops on exit.

    For testing a client against a real server in the same process.
    """
    server = _server(service)
    sock = listen(host, port)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        for _ in range(int(_STARTUP_SECONDS / 0.01)):
            if server.started or not thread.is_alive():
                break
            threading.Event().wait(0.01)
        if not server.started:
            raise UsageError(f"the server on {host}:{sock.getsockname()[1]} did not start")
        yield f"http://{host}:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(_STARTUP_SECONDS)
        sock.close()


def _server(service: ContractService) -> uvicorn.Server:
    _require_extra()
    import uvicorn

    config = uvicorn.Config(
        app(service),
        log_level="warning",
        access_log=False,
        lifespan="off",
        ws="none",
        server_header=False,
    )
    return uvicorn.Server(config)


def _require_extra() -> None:
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise MissingExtra(
            "serving the contract needs starlette and uvicorn: pip install 'memrank[serve]'"
        ) from None
