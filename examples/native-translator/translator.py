"""A translator for the memrank-native/1 contract, wrapping ToyMemory. Standard library only.

    python translator.py --port 8765              # then: memrank targets verify http://127.0.0.1:8765
    TRANSLATOR_KEY=s3cret python translator.py    # require Authorization: Bearer s3cret

Five calls, each naming the isolation unit it is about: GET /describe, POST /prepare,
POST /ingest, POST /retrieve, POST /cleanup. Errors answer {"error": "..."}.
"""

from __future__ import annotations

import argparse
import hmac
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from toy_memory import ToyMemory

DESCRIPTION = {"contract": "memrank-native/1", "name": "toy-memory", "version": "1.0"}


class Translator(ThreadingHTTPServer):
    """An HTTP server holding one ToyMemory; one lock keeps calls from interleaving."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], key: str | None = None) -> None:
        super().__init__(address, Handler)
        self.memory = ToyMemory()
        self.key = key
        self.lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    server: Translator

    def log_message(self, format: str, *args: object) -> None:
        pass  # quiet: a translator under test should not write to the console per request

    def do_GET(self) -> None:
        if self.path != "/describe":
            return self.send(404, {"error": f"no such call: GET {self.path}"})
        if self.authorized():
            self.send(200, DESCRIPTION)

    def do_POST(self) -> None:
        if not self.authorized():
            return
        try:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            unit = body["unit"]
        except (ValueError, KeyError, TypeError):
            return self.send(400, {"error": "the body must be a JSON object with a unit"})
        memory = self.server.memory
        with self.server.lock:
            if self.path == "/prepare":
                memory.prepare(unit)
                return self.send(200, {})
            if self.path == "/ingest":
                told = [
                    {"id": d["id"], "content": text_of(d["content"])} for d in body["documents"]
                ]
                memory.ingest(unit, told)
                return self.send(200, {})
            if self.path == "/retrieve":
                ranked = memory.retrieve(unit, body["query"], int(body["k"]))
                found = [{"id": d["id"], "content": d["content"], "score": s} for d, s in ranked]
                return self.send(200, {"documents": found})
            if self.path == "/cleanup":
                memory.cleanup(unit)
                return self.send(200, {})
        self.send(404, {"error": f"no such call: POST {self.path}"})

    def authorized(self) -> bool:
        if self.server.key is None:
            return True
        given = self.headers.get("Authorization", "")
        if hmac.compare_digest(given.encode(), f"Bearer {self.server.key}".encode()):
            return True
        self.send(401, {"error": "a valid Authorization: Bearer key is required"})
        return False

    def send(self, status: int, answer: dict) -> None:
        payload = json.dumps(answer).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


def text_of(content: object) -> str:
    """A document's text: the string itself, or its text parts joined by newlines."""
    if isinstance(content, str):
        return content
    return "\n".join(p["text"] for p in content if p.get("type") == "text")  # type: ignore[union-attr]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765, help="0 picks a free port")
    arguments = parser.parse_args()
    server = Translator((arguments.host, arguments.port), os.environ.get("TRANSLATOR_KEY"))
    host, port = server.server_address[:2]
    print(f"translator listening at http://{host}:{port}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
