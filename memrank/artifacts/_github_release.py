"""The GitHub release that is the results store, reached through GitHub's REST API.

Only what uploading result files needs: find (or create) the release by its tag, list its
assets page by page, upload one, delete one. Every request has a timeout. A rate limit is
waited out when GitHub says for how long (``retry-after``; ``x-ratelimit-reset`` with none
remaining; a minute for a secondary limit that says neither), at most ``max_wait_s`` a time and
``ATTEMPTS`` times in all; a longer one is refused, naming when it ends. Anything else GitHub
refuses is a StoreUploadFailed naming the request and what to do. The token goes only to the
two addresses given (the API and the upload host), never where a link or a redirect points.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote, urlsplit

import httpx

from memrank.errors import StoreUploadFailed, UsageError
from memrank.systems.http._policy import retry_after_seconds

__all__ = ["ATTEMPTS", "MAX_WAIT_S", "Asset", "GitHubReleases"]

ATTEMPTS = 4
"""Tries of one request through rate limits, broken connections and 5xx answers."""
MAX_WAIT_S = 120.0
"""The longest one wait for a rate limit; GitHub asking for longer ends the command."""
_SECONDARY_WAIT_S = 60.0  # GitHub's advice when a secondary limit names no time
_TIMEOUT = httpx.Timeout(30.0, connect=10.0, write=120.0)  # write: a 30 MB body on a slow link
_MAX_PAGES = 1000  # 100 assets a page: far past any store, short of a server that links forever
_LOOPBACK = {"127.0.0.1", "localhost", "::1"}


@dataclass(frozen=True)
class Asset:
    """One asset of the release, as GitHub lists it."""

    id: int
    """GitHub's id of the asset (what deleting it takes)."""
    name: str
    """The file name it was uploaded under."""
    state: str
    """``uploaded`` once whole; an upload that broke off leaves ``starter`` (or ``open``)."""
    size: int
    """Its size in bytes."""
    digest: str | None
    """``sha256:<hex>`` as GitHub computed it on upload; None for assets from before GitHub
    did (June 2025)."""
    download_url: str
    """``browser_download_url``: where anyone reads it (GitHub redirects to the bytes)."""

    @property
    def whole(self) -> bool:
        """The upload finished: GitHub serves it."""
        return self.state == "uploaded"


class GitHubReleases:
    """One repository's releases, with a token that may write them. A context manager: the
    connections close on leaving it."""

    def __init__(
        self,
        repository: str,
        token: str,
        *,
        api_url: str,
        uploads_url: str,
        max_wait_s: float = MAX_WAIT_S,
    ) -> None:
        owner, _, name = repository.partition("/")
        if not owner or not name or "/" in name:
            raise UsageError(f"--repo {repository!r}: give the repository as OWNER/NAME")
        if not token:
            raise UsageError(
                "GITHUB_TOKEN is not set: give a token that may write the repository's releases "
                "(in a workflow, the job's own token with contents: write)"
            )
        self.repository = repository
        self.api_url = _base(api_url, "--api-url")
        self.uploads_url = _base(uploads_url, "--uploads-url")
        self.max_wait_s = max_wait_s
        self._http = httpx.Client(
            timeout=_TIMEOUT,
            headers={
                "Authorization": f"Bearer {token}",
                "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": "2022-11-28",
            },
        )

    def __enter__(self) -> GitHubReleases:
        return self

    def __exit__(self, *_: object) -> None:
        self._http.close()

    def release(self, tag: str) -> tuple[int, bool]:
        """The id of the release tagged ``tag``, made (not marked latest) when there is none;
        and whether it was made now."""
        by_tag = f"{self.api_url}/repos/{self.repository}/releases/tags/{quote(tag, safe='')}"
        what = f"the release {tag} of {self.repository}"
        found = self._call("GET", by_tag, what, expect=(200, 404))
        if found.status_code == 200:
            return _field(found, "id", int, what), False
        made = self._call(
            "POST",
            f"{self.api_url}/repos/{self.repository}/releases",
            f"creating {what}",
            expect=(201, 422),  # 422: another run made it meanwhile
            json={
                "tag_name": tag,
                "name": "Result files",
                "body": "memrank result files, each named by its sha256 (docs/publishing.md)",
                "make_latest": "false",
            },
        )
        if made.status_code == 201:
            return _field(made, "id", int, what), True
        return _field(self._call("GET", by_tag, what, expect=(200,)), "id", int, what), False

    def assets(self, release_id: int) -> list[Asset]:
        """Every asset of the release, following GitHub's pages (its ``Link: rel="next"``)."""
        url: str | None = f"{self.api_url}/repos/{self.repository}/releases/{release_id}/assets"
        what = f"the assets of release {release_id} of {self.repository}"
        params: dict[str, int] | None = {"per_page": 100}
        found: list[Asset] = []
        seen: set[str] = set()
        while url is not None:
            if url in seen or len(seen) == _MAX_PAGES:
                raise StoreUploadFailed(f"{what}: GitHub's pages link in a circle; try again later")
            seen.add(url)
            page = self._call("GET", url, what, expect=(200,), params=params)
            items = _json(page, what)
            if not isinstance(items, list):
                raise StoreUploadFailed(f"{what}: GitHub answered something not a list of assets")
            found += [_asset(item, what) for item in items]
            url, params = page.links.get("next", {}).get("url"), None
            if url is not None and not url.startswith(f"{self.api_url}/"):
                raise StoreUploadFailed(
                    f"{what}: the next page is at {url}, off --api-url; the token goes nowhere else"
                )
        return found

    def upload(self, release_id: int, name: str, data: bytes) -> Asset | str:
        """Upload ``data`` as the asset ``name``: the asset made, or why it was not (an asset
        of that name is there, whole or partial; the upload broke off; GitHub failed), for the
        caller to look again. A refusal that trying again cannot mend is raised."""
        url = f"{self.uploads_url}/repos/{self.repository}/releases/{release_id}/assets"
        what = f"uploading {name} to release {release_id} of {self.repository}"
        try:
            answer = self._send(
                "POST",
                url,
                what,
                params={"name": name},
                content=data,
                headers={"Content-Type": "application/json"},
            )
        except httpx.TransportError as exc:
            return f"the upload broke off ({type(exc).__name__})"
        if answer.status_code == 201:
            return _asset(_json(answer, what), what)
        if answer.status_code == 422 and _already_exists(answer):
            return "GitHub already has an asset of that name"
        if answer.status_code >= 500:  # GitHub: may leave a partial asset, safe to delete
            return f"GitHub answered HTTP {answer.status_code}"
        raise self._refusal(answer, what)

    def delete(self, asset: Asset) -> None:
        """Delete an asset (a partial upload); one already gone is no error."""
        url = f"{self.api_url}/repos/{self.repository}/releases/assets/{asset.id}"
        self._call("DELETE", url, f"deleting the partial asset {asset.name}", expect=(204, 404))

    # -- requests ----------------------------------------------------------------------------

    def _call(
        self, method: str, url: str, what: str, *, expect: tuple[int, ...], **options: Any
    ) -> httpx.Response:
        """``_send``, tried again on a broken connection or a 5xx (every call made this way is
        safe to repeat), then refused unless its status is one of ``expect``."""
        attempt = 1
        while True:
            try:
                answer = self._send(method, url, what, **options)
            except httpx.TransportError as exc:
                if attempt == ATTEMPTS:
                    raise StoreUploadFailed(
                        f"{what}: GitHub did not answer ({type(exc).__name__}: {exc}); check "
                        "the network and --api-url"
                    ) from None
            else:
                if answer.status_code in expect:
                    return answer
                if answer.status_code < 500 or attempt == ATTEMPTS:
                    raise self._refusal(answer, what)
            time.sleep(attempt)
            attempt += 1

    def _send(self, method: str, url: str, what: str, **options: Any) -> httpx.Response:
        """One request, a rate limit waited out; a broken connection is the caller's to judge."""
        for _ in range(ATTEMPTS):
            answer = self._http.request(method, url, **options)
            wait = _rate_limit_wait(answer)
            if wait is None:
                return answer
            if wait > self.max_wait_s:
                until = datetime.now(UTC) + timedelta(seconds=wait)
                raise StoreUploadFailed(
                    f"{what}: GitHub's rate limit holds until {until:%H:%M:%S} UTC, past the "
                    f"{self.max_wait_s:g} s memrank waits; run again then"
                )
            time.sleep(wait)
        raise StoreUploadFailed(
            f"{what}: still rate limited after {ATTEMPTS} tries; run again in a few minutes"
        )

    def _refusal(self, answer: httpx.Response, what: str) -> StoreUploadFailed:
        status, said = answer.status_code, _message(answer)
        if status == 401:
            return StoreUploadFailed(
                f"{what}: GitHub answered 401 ({said}): the token in GITHUB_TOKEN is wrong or "
                "expired; give a valid one"
            )
        if status == 403:
            return StoreUploadFailed(
                f"{what}: GitHub answered 403 ({said}): the token may not write "
                f"{self.repository}'s releases; it needs contents: write"
            )
        if status == 404:
            return StoreUploadFailed(
                f"{what}: GitHub answered 404: no repository {self.repository} this token can "
                "see; check --repo and the token's access"
            )
        return StoreUploadFailed(f"{what}: GitHub answered HTTP {status} ({said})")


def _base(url: str, option: str) -> str:
    """An API address as given, without a trailing slash: https, or http to this machine."""
    parts = urlsplit(url)
    loopback = parts.scheme == "http" and parts.hostname in _LOOPBACK
    if not (parts.scheme == "https" or loopback) or not parts.hostname:
        raise UsageError(
            f"{option} {url!r}: give an https:// address (plain http only to this machine); "
            "the token is sent there"
        )
    return url.rstrip("/")


def _rate_limit_wait(answer: httpx.Response) -> float | None:
    """How long GitHub asks to wait before asking again; None when this is no rate limit."""
    if answer.status_code not in (403, 429):
        return None
    headers = answer.headers
    retry_after = retry_after_seconds(headers.get("retry-after"))
    if retry_after is not None:
        return retry_after
    reset = headers.get("x-ratelimit-reset", "")
    if headers.get("x-ratelimit-remaining") == "0" and reset.isdigit():
        return max(0.0, int(reset) - time.time()) + 1.0  # whole seconds: the next one is safe
    if answer.status_code == 429 or "rate limit" in _message(answer).lower():
        return _SECONDARY_WAIT_S
    return None


def _json(answer: httpx.Response, what: str) -> Any:
    try:
        return answer.json()
    except ValueError:
        raise StoreUploadFailed(
            f"{what}: GitHub answered HTTP {answer.status_code} with a body that is not JSON; "
            "check --api-url and --uploads-url"
        ) from None


def _field(answer: httpx.Response, key: str, kind: type, what: str) -> Any:
    value = _json(answer, what)
    value = value.get(key) if isinstance(value, dict) else None
    if not isinstance(value, kind):
        raise StoreUploadFailed(f"{what}: GitHub's answer has no {key}; check --api-url")
    return value


def _asset(item: Any, what: str) -> Asset:
    try:
        digest = item.get("digest")
        made = Asset(
            id=item["id"],
            name=item["name"],
            state=item["state"],
            size=item["size"],
            digest=digest if isinstance(digest, str) else None,
            download_url=item["browser_download_url"],
        )
    except (KeyError, TypeError, AttributeError):
        raise StoreUploadFailed(f"{what}: GitHub listed an asset without its fields") from None
    if not (isinstance(made.id, int) and isinstance(made.size, int)):
        raise StoreUploadFailed(f"{what}: GitHub listed an asset whose id or size is no number")
    return made


def _message(answer: httpx.Response) -> str:
    """GitHub's ``message``, on one line and short; the status's name when there is none."""
    try:
        said = answer.json().get("message")
    except (ValueError, AttributeError):
        said = None
    text = " ".join(str(said).split())[:200] if said else ""
    return text or answer.reason_phrase


def _already_exists(answer: httpx.Response) -> bool:
    """GitHub's 422 for a name taken: ``errors: [{"code": "already_exists", ...}]``."""
    try:
        errors = answer.json().get("errors") or []
        return any(error.get("code") == "already_exists" for error in errors)
    except (ValueError, AttributeError, TypeError):
        return False
