"""A real WebDAV server for Satori's sync tests: WsgiDAV 4.4 on cheroot, run with the interpreter
of ${SATORI_CACHE:-~/.cache/satori}/dav-venv (scripts/setup.sh installs it).

    python dav-server.py --root DIR [--port 0] [--user U --password P] [--log FILE] [--no-cors]

Prints exactly one line to stdout, `listening http://127.0.0.1:PORT/`, once it accepts
connections. Serves DIR read-write at /, with Basic authentication when --user is given (else
anonymous). CORS as a sync server must allow a page of another origin: any origin, the methods
and headers WebDAV sync uses, and ETag exposed (--no-cors leaves the middleware out, so a page
fails with a CORS error, as with a server nobody configured). --log appends one JSON line per
request: {"method", "path", "status", "if_match", "if_none_match", "bytes_in", "bytes_out"}
(the body sizes; bytes_out null when the answer has no Content-Length). SIGTERM / SIGINT stop it.

Two things make races between devices deterministic, as on a real server:
- Writes (PUT, DELETE, MKCOL) run one at a time, so a conditional write (If-Match) is atomic.
- `POST /.barrier?path=/FOLDER/&count=N` (no authentication; answered 204 with CORS) makes the
  next N looks at that folder (a listing, PROPFIND, or a read of its write log, the objects
  `satori-sync-log-<n>`: every pass begins with one or the other) wait for one another: none is
  answered before all N have arrived (or 10 s have passed), so N devices syncing "at once" read
  the same state.
"""

from __future__ import annotations

import argparse
import json
import signal
import socket
import sys
import threading
from urllib.parse import parse_qs

from cheroot import wsgi
from wsgidav.wsgidav_app import WsgiDAVApp

# The sync folder's write log's objects: a pass that does not list the folder begins by reading one.
LOG = "satori-sync-log-"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--user")
    parser.add_argument("--password", default="")
    parser.add_argument("--log")
    parser.add_argument("--no-cors", action="store_true")
    args = parser.parse_args()

    users = {"*": True} if not args.user else {"*": {args.user: {"password": args.password}}}
    config = {
        "provider_mapping": {"/": args.root},
        "simple_dc": {"user_mapping": users},
        "http_authenticator": {"accept_basic": True, "accept_digest": False, "default_to_digest": False},
        "verbose": 1,
        "logging": {"enable": False},
        "dir_browser": {"enable": False},
        "lock_storage": True,
        "property_manager": True,
    }
    if not args.no_cors:
        config["cors"] = {
            "allow_origin": "*",
            "allow_methods": ["GET", "PUT", "DELETE", "PROPFIND", "MKCOL", "OPTIONS"],
            "allow_headers": ["Authorization", "Content-Type", "Depth", "If-Match", "If-None-Match"],
            "expose_headers": ["ETag"],
            "max_age": 600,
        }
    app = WsgiDAVApp(config)

    log_lock = threading.Lock()
    write_lock = threading.Lock()
    barrier_cond = threading.Condition()
    barriers: dict[str, list[int]] = {}  # path -> [how many are still to arrive]

    def barrier_wait(path: str) -> None:
        with barrier_cond:
            slot = barriers.get(path)
            if slot is None or slot[0] <= 0:
                return
            slot[0] -= 1
            if slot[0] == 0:
                barriers.pop(path, None)
                barrier_cond.notify_all()
                return
            barrier_cond.wait_for(lambda: barriers.get(path) is not slot, timeout=10)
            if barriers.get(path) is slot:
                barriers.pop(path, None)

    def logged(environ, start_response):
        method = environ["REQUEST_METHOD"]
        if method == "POST" and environ.get("PATH_INFO") == "/.barrier":
            query = parse_qs(environ.get("QUERY_STRING", ""))
            with barrier_cond:
                barriers[query["path"][0]] = [int(query["count"][0])]
            start_response("204 No Content", [("Access-Control-Allow-Origin", "*")])
            return [b""]
        path = environ.get("PATH_INFO", "")
        if method == "PROPFIND":
            barrier_wait(path)
        elif method == "GET" and "/" + LOG in path:
            barrier_wait(path[: path.rindex("/") + 1])
        if method in ("PUT", "DELETE", "MKCOL"):
            with write_lock:
                return list(served(environ, start_response))
        return served(environ, start_response)

    def served(environ, start_response):
        entry = {
            "method": environ["REQUEST_METHOD"],
            "path": environ.get("PATH_INFO", ""),
            "if_match": environ.get("HTTP_IF_MATCH"),
            "if_none_match": environ.get("HTTP_IF_NONE_MATCH"),
            "status": None,
            "bytes_in": int(environ.get("CONTENT_LENGTH") or 0),
            "bytes_out": None,
        }

        def start(status, headers, exc_info=None):
            entry["status"] = int(status.split(" ", 1)[0])
            length = next((v for k, v in headers if k.lower() == "content-length"), None)
            entry["bytes_out"] = int(length) if length is not None else None
            if args.log:
                with log_lock, open(args.log, "a", encoding="utf-8") as f:
                    f.write(json.dumps(entry) + "\n")
            return start_response(status, headers, exc_info)

        return app(environ, start)

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    port = sock.getsockname()[1]
    sock.close()
    server = wsgi.Server(("127.0.0.1", port), logged, numthreads=4)

    def stop(*_):
        threading.Thread(target=server.stop, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    server.prepare()
    print(f"listening http://127.0.0.1:{port}/", flush=True)
    server.serve()
    sys.exit(0)


if __name__ == "__main__":
    main()
