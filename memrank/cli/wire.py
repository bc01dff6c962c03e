"""memrank serve and memrank check: the Add/Search contract from both ends; and memrank targets
verify, which checks a translator against the memrank-native/1 contract."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import click

from memrank.errors import UsageError

if TYPE_CHECKING:
    from memrank.wire.check import CheckOutcome

__all__ = ["check_command", "serve_command", "translator_verify_command"]

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
    from memrank.systems.http._client import Auth
    from memrank.systems.http.aml import AmlEndpoints
    from memrank.wire.check import NAME_WIDTH, check, line

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
    _report_outcomes(outcomes, as_json, printed=not as_json)


@click.command("verify")
@click.argument("url")
@click.option(
    "--key-env",
    metavar="ENVVAR",
    help="The environment variable holding the translator's key, sent as Authorization: Bearer.",
)
@click.option("--timeout", default=60.0, show_default=True, help="Seconds per request.")
@click.option("--json", "as_json", is_flag=True, help="Print the outcomes as JSON.")
def translator_verify_command(url: str, key_env: str | None, timeout: float, as_json: bool) -> None:
    """Check the translator at URL against the memrank-native/1 contract.

    Checks the description, a ranked retrieve, isolation between units, cleanup, and that any
    usage stated is numbers. Prints every check with pass or FAIL and its evidence, and exits
    1 when any fails. A translator that passes runs as `memrank run native EVALUATION`.
    """
    from memrank.systems.http.translator_check import verify

    key = None
    if key_env:
        key = os.environ.get(key_env, "")
        if not key:
            raise UsageError(f"--key-env {key_env}: the environment variable is not set")
    outcomes = verify(url, key, timeout=timeout)
    _report_outcomes(outcomes, as_json)


def _report_outcomes(outcomes: list[CheckOutcome], as_json: bool, printed: bool = False) -> None:
    """Echo every outcome (only the tally when each was ``printed`` as it ended); raise
    CheckFailed (exit 1) naming the checks that failed. Both checks print and exit alike."""
    import orjson

    from memrank.errors import CheckFailed
    from memrank.systems.http._checklist import layout, tally

    if as_json:
        click.echo(orjson.dumps([o.model_dump() for o in outcomes], option=orjson.OPT_INDENT_2))
    else:
        click.echo(tally(outcomes) if printed else layout(outcomes))
    failed = [o.name for o in outcomes if o.ran and not o.passed]
    not_run = sum(not o.ran for o in outcomes)
    if failed:
        raise CheckFailed(
            f"{len(failed)} check(s) failed: {', '.join(failed)}"
            + (f"; {not_run} not run, as the endpoint stopped answering" if not_run else "")
        )
