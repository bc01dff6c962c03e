"""memrank serve and memrank check: the Add/Search contract from both ends."""

from __future__ import annotations

import click

from memrank.errors import UsageError

__all__ = ["check_command", "serve_command"]

_AUTH_HELP = (
    "SCHEME:ENVVAR, e.g. Bearer:AML_API_KEY: the scheme (Token, Bearer or X-Api-Key) and the "
    "environment variable holding the key."
)


@click.command("serve")
@click.argument("system_name", metavar="SYSTEM")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port",
    default=8000,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="Port to listen on (0: any free).",
)
@click.option("--auth", "auth_spec", metavar="SCHEME:ENVVAR", help=f"Require a key. {_AUTH_HELP}")
def serve_command(system_name: str, host: str, port: int, auth_spec: str | None) -> None:
    """Serve the memory SYSTEM (a name from `memrank catalog`) over the Add/Search contract.

    Answers POST /add, POST /search and an unauthenticated GET /health, with one isolated
    store per user_id, until interrupted. Needs the serve extra: pip install 'memrank[serve]'.
    """
    from memrank.catalog import system
    from memrank.system import Memory
    from memrank.systems.http._client import Auth
    from memrank.wire.serve import listen, serve_forever

    auth = Auth.from_spec(auth_spec) if auth_spec else None

    def make_memory() -> Memory:
        made = system(system_name)
        if not isinstance(made, Memory):
            raise UsageError(
                f"{system_name!r} is a {made.kind}; the contract serves a memory (Add, then Search)"
            )
        return made

    make_memory()  # refuse a name that is not a memory before listening
    sock = listen(host, port)
    bound = sock.getsockname()[1]
    click.echo(
        f"serving {system_name} at http://{host}:{bound} "
        "(POST /add, POST /search, GET /health); one store per user_id; Ctrl-C stops"
    )
    serve_forever(make_memory, sock, auth=auth)


@click.command("check")
@click.argument("url")
@click.option(
    "--search-url",
    help="The Search URL; URL is then the Add URL. Without it URL is a base URL serving "
    "<base>/add, <base>/search and <base>/health.",
)
@click.option("--health-url", help="The health URL, when it is not the Add URL's sibling /health.")
@click.option("--auth", "auth_spec", metavar="SCHEME:ENVVAR", help=f"Send a key. {_AUTH_HELP}")
@click.option(
    "--track",
    type=click.Choice(["textual", "multimodal"]),
    default="textual",
    show_default=True,
    help="multimodal also checks text and image_url content parts.",
)
@click.option(
    "--timeout",
    default=60.0,
    show_default=True,
    help="Seconds each request may take in all, from connecting to the last byte.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the outcomes as JSON.")
def check_command(
    url: str,
    search_url: str | None,
    health_url: str | None,
    auth_spec: str | None,
    track: str,
    timeout: float,
    as_json: bool,
) -> None:
    """Check an endpoint against the Add/Search contract before a formal run.

    Prints every check as it ends, with pass, warn, FAIL or skip (not run, as the endpoint
    stopped answering) and its evidence, and exits 1 when any fails.
    """
    from memrank.cli._check_report import report_outcomes
    from memrank.systems.http._client import Auth
    from memrank.systems.http.aml import AmlEndpoints
    from memrank.wire.check import NAME_WIDTH, CheckOutcome, check, line

    if search_url:
        endpoints = AmlEndpoints.of(add_url=url, search_url=search_url, health_url=health_url)
    else:
        endpoints = AmlEndpoints.of(url, health_url=health_url)
    auth = Auth.from_spec(auth_spec) if auth_spec else None

    def printed(outcome: CheckOutcome) -> None:
        click.echo(line(outcome, NAME_WIDTH))

    outcomes = check(
        endpoints,
        auth,
        "multimodal" if track == "multimodal" else "textual",
        timeout=timeout,
        on_outcome=None if as_json else printed,
    )
    report_outcomes(outcomes, as_json, printed=not as_json)
