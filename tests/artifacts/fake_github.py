"""A loopback server speaking the part of GitHub's REST API the results store uses, with its
real shapes: a release by tag, creating one, its assets page by page (``Link: rel="next"``),
uploading one to the upload host with ``?name=`` (422 ``already_exists`` for a name taken,
whole or not), deleting one, and downloading one by ``browser_download_url`` through a 302 as
github.com redirects to its object store.

One server plays all three hosts, each under its own prefix: ``/api`` (api.github.com),
``/uploads`` (uploads.github.com), and the root (github.com, and ``/objects`` for the bytes).
A test scripts its trouble: rate-limit answers for the next requests (``limits``), uploads cut
mid-body that leave a ``starter`` asset as GitHub does (``cuts``), API requests dropped
(``drops``), a listing that misses what
another run just uploaded (``stale_listings``), and assets with or without GitHub's digest.
"""

from __future__ import annotations

import hashlib
import json
import socket
import struct
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

TOKEN = "ghs_loopbacktokenforthetests"
"""The token that may write the repository's releases."""
READ_TOKEN = "ghs_loopbackreadonlytoken"
"""A token that may read them only (a job without contents: write)."""
REPOSITORY = "octo/memrank"
_STAMP = "2026-01-02T03:04:05Z"
_DOCS = "https://docs.github.com/rest"


@dataclass
class Stored:
    """An asset as the fake keeps it."""

    id: int
    name: str
    data: bytes
    state: str = "uploaded"
    digest: bool = True
    """Whether GitHub computed its digest (assets from before June 2025 have none)."""


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    authorization: str | None


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 5
    server: FakeGitHub

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.server.route(self)

    do_POST = do_DELETE = do_GET

    def send(self, status: int, body: Any = b"", headers: dict[str, str] | None = None) -> None:
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        if not isinstance(body, bytes):
            self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(raw)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(raw)

    def body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length", 0)))

    def cut(self) -> None:
        """Read half the body, then drop the connection with a TCP reset: no answer."""
        self.rfile.read(int(self.headers.get("Content-Length", 0)) // 2)
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True
        self.connection.close()


class FakeGitHub(ThreadingHTTPServer):
    """GitHub's releases of one repository; a context manager serving on 127.0.0.1."""

    daemon_threads = False
    block_on_close = True

    def __init__(self, *, page_size: int = 100, digests: bool = True) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.page_size = page_size
        self.digests = digests
        self.releases: dict[str, dict[str, Any]] = {}
        self.requests: list[Request] = []
        self.limits: list[str] = []
        """Rate-limit answers for the next API or upload requests, in turn: ``retry-after``
        (a secondary limit, 1 s), ``reset`` (the primary limit, 1 s away) or ``reset-far``
        (an hour away)."""
        self.cuts = 0
        """Uploads still to cut mid-body."""
        self.stale_listings = 0
        """Asset listings still to answer empty (as before another run's upload)."""
        self.drops = 0
        """API requests still to drop with a TCP reset, answering nothing."""
        self.lock = threading.Lock()
        self._ids = 100
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05})

    def __enter__(self) -> FakeGitHub:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.shutdown()
        self.server_close()
        self._thread.join()

    # -- what a test reads and sets --------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    @property
    def api_url(self) -> str:
        return f"{self.url}/api"

    @property
    def uploads_url(self) -> str:
        return f"{self.url}/uploads"

    def store_url(self, tag: str = "results") -> str:
        """The results store as board.toml names it: ``.../releases/download/TAG/{sha256}.json``."""
        return f"{self.url}/{REPOSITORY}/releases/download/{tag}/{{sha256}}.json"

    def assets(self, tag: str = "results") -> list[Stored]:
        with self.lock:
            return list(self.releases[tag]["assets"]) if tag in self.releases else []

    def put(self, data: bytes, *, name: str | None = None, state: str = "uploaded",
            digest: bool = True, tag: str = "results") -> Stored:  # fmt: skip
        """An asset already in the release (made with it when there is none)."""
        with self.lock:
            release = self._release(tag)
            stored = Stored(self._id(), name or f"{_sha(data)}.json", data, state, digest)
            release["assets"].append(stored)
            return stored

    def logged(self, method: str, fragment: str) -> list[Request]:
        with self.lock:
            return [r for r in self.requests if r.method == method and fragment in r.path]

    # -- serving ---------------------------------------------------------------------------------

    def route(self, handler: _Handler) -> None:
        parts = urlsplit(handler.path)
        path, query = parts.path, parse_qs(parts.query)
        with self.lock:
            self.requests.append(
                Request(handler.command, handler.path, handler.headers.get("Authorization"))
            )
        if path.startswith("/objects/"):
            return self._object(handler, int(path.rsplit("/", 1)[1]))
        for host in ("/api", "/uploads"):
            if path.startswith(f"{host}/"):
                return self._github(handler, host, path.removeprefix(host), query)
        return self._download(handler, path)

    def _github(self, handler: _Handler, host: str, path: str, query: dict[str, list[str]]) -> None:
        with self.lock:
            drop = host == "/api" and self.drops > 0
            self.drops -= drop
        if drop:
            return handler.cut()
        token = handler.headers.get("Authorization", "").removeprefix("Bearer ")
        if token not in (TOKEN, READ_TOKEN):
            handler.body()
            return handler.send(401, {"message": "Bad credentials", "documentation_url": _DOCS,
                                      "status": "401"})  # fmt: skip
        with self.lock:
            limit = self.limits.pop(0) if self.limits else None
        if limit is not None:
            handler.body()
            return self._rate_limited(handler, limit)
        prefix = f"/repos/{REPOSITORY}/releases"
        if not path.startswith(prefix):
            handler.body()
            return handler.send(404, {"message": "Not Found", "documentation_url": _DOCS,
                                      "status": "404"})  # fmt: skip
        rest = path.removeprefix(prefix).strip("/").split("/")
        if handler.command != "GET" and token == READ_TOKEN:
            handler.body()
            return handler.send(403, {"message": "Resource not accessible by integration",
                                      "documentation_url": _DOCS, "status": "403"})  # fmt: skip
        if host == "/uploads" and handler.command == "POST" and rest[1:] == ["assets"]:
            return self._upload(handler, int(rest[0]), query["name"][0])
        if host == "/api" and handler.command == "GET" and rest[0] == "tags":
            return self._by_tag(handler, rest[1])
        if host == "/api" and handler.command == "POST" and rest == [""]:
            return self._create(handler, json.loads(handler.body()))
        if host == "/api" and handler.command == "GET" and rest[1:] == ["assets"]:
            return self._list(handler, int(rest[0]), query)
        if host == "/api" and handler.command == "DELETE" and rest[0] == "assets":
            return self._delete(handler, int(rest[1]))
        handler.body()
        return handler.send(404, {"message": "Not Found", "documentation_url": _DOCS})

    def _rate_limited(self, handler: _Handler, kind: str) -> None:
        if kind == "retry-after":
            return handler.send(
                403,
                {"message": "You have exceeded a secondary rate limit. Please wait a few "
                            "minutes before you try again.", "documentation_url": _DOCS},
                {"retry-after": "1"},
            )  # fmt: skip
        away = 1 if kind == "reset" else 3600
        return handler.send(
            403,
            {"message": "API rate limit exceeded for installation ID 1.",
             "documentation_url": _DOCS},
            {"x-ratelimit-limit": "1000", "x-ratelimit-remaining": "0",
             "x-ratelimit-used": "1000", "x-ratelimit-reset": str(int(time.time()) + away),
             "x-ratelimit-resource": "core"},
        )  # fmt: skip

    def _by_tag(self, handler: _Handler, tag: str) -> None:
        with self.lock:
            release = self.releases.get(tag)
            shown = self._release_json(release) if release else None
        if shown is None:
            return handler.send(404, {"message": "Not Found", "documentation_url": _DOCS,
                                      "status": "404"})  # fmt: skip
        return handler.send(200, shown)

    def _create(self, handler: _Handler, asked: dict[str, Any]) -> None:
        tag = asked["tag_name"]
        with self.lock:
            if tag in self.releases:
                return handler.send(422, {"message": "Validation Failed", "errors": [
                    {"resource": "Release", "code": "already_exists", "field": "tag_name"}],
                    "documentation_url": _DOCS, "status": "422"})  # fmt: skip
            release = self._release(tag, asked)
            shown = self._release_json(release)
        return handler.send(201, shown)

    def _list(self, handler: _Handler, release_id: int, query: dict[str, list[str]]) -> None:
        per_page = min(int(query.get("per_page", ["30"])[0]), self.page_size)
        page = int(query.get("page", ["1"])[0])
        with self.lock:
            release = self._by_id(release_id)
            if release is None:
                return handler.send(404, {"message": "Not Found", "documentation_url": _DOCS})
            everything = release["assets"]
            if self.stale_listings:
                self.stale_listings -= 1
                everything = []
            shown = [self._asset_json(release, a) for a in everything]
        pages = max(1, -(-len(shown) // per_page))
        links = []
        base = f"{self.api_url}/repos/{REPOSITORY}/releases/{release_id}/assets"
        if page < pages:
            links.append(f'<{base}?per_page={per_page}&page={page + 1}>; rel="next"')
            links.append(f'<{base}?per_page={per_page}&page={pages}>; rel="last"')
        headers = {"Link": ", ".join(links)} if links else {}
        return handler.send(200, shown[(page - 1) * per_page : page * per_page], headers)

    def _upload(self, handler: _Handler, release_id: int, name: str) -> None:
        with self.lock:
            release = self._by_id(release_id)
            taken = release is not None and any(a.name == name for a in release["assets"])
            cut = not taken and release is not None and self.cuts > 0
            if cut:
                self.cuts -= 1
                assert release is not None
                release["assets"].append(Stored(self._id(), name, b"", "starter", self.digests))
        if cut:
            return handler.cut()
        data = handler.body()
        if release is None:
            return handler.send(404, {"message": "Not Found", "documentation_url": _DOCS})
        if taken:
            return handler.send(422, {"message": "Validation Failed", "request_id": "0:0:0",
                "documentation_url": _DOCS, "errors": [
                    {"resource": "ReleaseAsset", "code": "already_exists", "field": "name"}]})  # fmt: skip
        with self.lock:
            stored = Stored(self._id(), name, data, "uploaded", self.digests)
            release["assets"].append(stored)
            shown = self._asset_json(release, stored)
        return handler.send(201, shown)

    def _delete(self, handler: _Handler, asset_id: int) -> None:
        with self.lock:
            for release in self.releases.values():
                kept = [a for a in release["assets"] if a.id != asset_id]
                if len(kept) < len(release["assets"]):
                    release["assets"] = kept
                    break
            else:
                return handler.send(404, {"message": "Not Found", "documentation_url": _DOCS})
        return handler.send(204)

    def _download(self, handler: _Handler, path: str) -> None:
        prefix = f"/{REPOSITORY}/releases/download/"
        tag, _, name = path.removeprefix(prefix).partition("/")
        with self.lock:
            release = self.releases.get(tag) if path.startswith(prefix) else None
            found = (
                next((a for a in release["assets"] if a.name == name), None) if release else None
            )
        if found is None or found.state != "uploaded":
            return handler.send(404, b"Not Found")
        return handler.send(302, b"", {"Location": f"{self.url}/objects/{found.id}"})

    def _object(self, handler: _Handler, asset_id: int) -> None:
        with self.lock:
            found = next((a for r in self.releases.values() for a in r["assets"]
                          if a.id == asset_id), None)  # fmt: skip
        if found is None:
            return handler.send(404, b"Not Found")
        return handler.send(200, found.data, {"Content-Type": "application/octet-stream"})

    # -- shapes (called holding the lock) --------------------------------------------------------

    def _id(self) -> int:
        self._ids += 1
        return self._ids

    def _release(self, tag: str, asked: dict[str, Any] | None = None) -> dict[str, Any]:
        if tag not in self.releases:
            self.releases[tag] = {"id": self._id(), "tag": tag, "asked": asked or {}, "assets": []}
        return self.releases[tag]

    def _by_id(self, release_id: int) -> dict[str, Any] | None:
        return next((r for r in self.releases.values() if r["id"] == release_id), None)

    def _release_json(self, release: dict[str, Any]) -> dict[str, Any]:
        number, tag = release["id"], release["tag"]
        api = f"{self.api_url}/repos/{REPOSITORY}/releases/{number}"
        return {
            "url": api,
            "html_url": f"{self.url}/{REPOSITORY}/releases/tag/{tag}",
            "assets_url": f"{api}/assets",
            "upload_url": f"{self.uploads_url}/repos/{REPOSITORY}/releases/{number}/assets"
            "{?name,label}",
            "id": number,
            "node_id": f"RE_{number}",
            "tag_name": tag,
            "target_commitish": "main",
            "name": release["asked"].get("name", tag),
            "body": release["asked"].get("body", ""),
            "draft": False,
            "prerelease": False,
            "created_at": _STAMP,
            "published_at": _STAMP,
            "assets": [self._asset_json(release, a) for a in release["assets"]],
        }

    def _asset_json(self, release: dict[str, Any], asset: Stored) -> dict[str, Any]:
        return {
            "url": f"{self.api_url}/repos/{REPOSITORY}/releases/assets/{asset.id}",
            "browser_download_url":
                f"{self.url}/{REPOSITORY}/releases/download/{release['tag']}/{asset.name}",
            "id": asset.id,
            "node_id": f"RA_{asset.id}",
            "name": asset.name,
            "label": None,
            "state": asset.state,
            "content_type": "application/json",
            "size": len(asset.data),
            "digest": f"sha256:{_sha(asset.data)}" if asset.digest and asset.state == "uploaded"
            else None,
            "download_count": 0,
            "created_at": _STAMP,
            "updated_at": _STAMP,
            "uploader": {"login": "github-actions[bot]", "id": 41898282, "type": "Bot"},
        }  # fmt: skip


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
