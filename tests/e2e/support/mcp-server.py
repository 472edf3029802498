"""A small real MCP server for the browser end-to-end tests (official MCP Python SDK 2.x).

Run with the interpreter of ${SATORI_CACHE:-~/.cache/satori}/mcp-venv (tests/e2e/support/mcp.mjs
starts it):

    python mcp-server.py --port 0 [--token T] [--log FILE] [--no-cors] [--json] [--report]

Prints exactly one line to stdout, `listening http://127.0.0.1:PORT/mcp`, once uvicorn accepts
connections; everything else (SDK and uvicorn logging) goes to stderr.

Transport: Streamable HTTP at /mcp, STATEFUL. The `initialize` response carries an
`Mcp-Session-Id` header; every later request must send it back (missing: 400, unknown, expired or
DELETEd: 404 — the client must initialize again). Sessions idle for 30 minutes are dropped (SDK
default). Responses to POSTed requests are SSE (`text/event-stream`, the SDK default) unless
`--json` is given, then plain `application/json`. Notifications and responses POSTed by the client
are answered 202 with an empty body.

Options:
  --port N     listen port on 127.0.0.1 (0 = a free port)
  --token T    every request except a CORS preflight must carry `Authorization: Bearer T`, else 401
               with a JSON body; without it there is no auth
  --log FILE   append one JSON line per HTTP request (preflights included):
               {"method", "path", "authorization", "origin", "mcp_method", "session_id",
                "protocol_version", "call", "status"} — header values or null; `call` is
               {"name", "arguments"} of a tools/call (else null); mcp_method is the JSON-RPC
               method of the body (null if none / not JSON / a batch without one)
  --no-cors    leave out the CORS middleware (a browser page on another origin then fails with a
               CORS error)
  --json       JSON responses instead of SSE
  --report     also offer send_report(text)

Tools: lookup_order, add, fail_always (a tool error: the result has isError true) and slow_echo;
with --report also send_report (a way out: it takes any text).
The SDK's DNS-rebinding protection (Host / Origin checks) is switched off so a page served from
another 127.0.0.1 port may call the server. SIGTERM / SIGINT stop it cleanly (exit code 0).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import socket
import sys

import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from sse_starlette.sse import AppStatus
from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

mcp = MCPServer("Satori test tools", log_level="WARNING")


@mcp.tool()
def lookup_order(order_id: str) -> str:
    """Look up an order by its id and return a one-line summary (items, total, shipping date)."""
    return f"Order {order_id}: 3 items, total 128.50 CNY, shipped 2026-11-28"


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two integers and return the sum."""
    return a + b


@mcp.tool()
def fail_always(reason: str) -> str:
    """Always fails: reports that the inventory service is offline, with the given reason."""
    # A ToolError keeps its text in the result (the SDK prefixes `Error executing tool fail_always: `);
    # any other exception counts as a crash and the client would see only `Error executing tool fail_always`.
    raise ToolError(f"inventory offline: {reason}")


def send_report(text: str) -> str:
    """Send a report to the team's inbox (an outside service: whatever it is given leaves the chat)."""
    return f"Report sent ({len(text)} characters)."


@mcp.tool()
async def slow_echo(text: str, seconds: float) -> str:
    """Wait the given number of seconds, then return the text unchanged."""
    await asyncio.sleep(seconds)
    return text


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key == name:
            return value.decode("latin-1")
    return None


class AuthMiddleware:
    """Requires `Authorization: Bearer <token>` on every request except OPTIONS (CORS preflight)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] == "OPTIONS":
            await self.app(scope, receive, send)
            return
        if _header(scope, b"authorization") != self.expected:
            has = _header(scope, b"authorization") is not None
            body = json.dumps(
                {"error": "unauthorized", "message": "wrong bearer token" if has else "missing bearer token"}
            ).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode()),
                        (b"www-authenticate", b'Bearer realm="satori-test"'),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)


class RequestLogMiddleware:
    """Appends one JSON line per HTTP request to a file, when the response starts (so the line is
    written before the client sees the status)."""

    def __init__(self, app: ASGIApp, path: str) -> None:
        self.app = app
        self.path = path

    def _write(self, entry: dict) -> None:
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        # Read the whole body to find the JSON-RPC method, then replay it to the app.
        messages: list[Message] = []
        body = b""
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            if not message.get("more_body", False):
                break

        async def replay() -> Message:
            if messages:
                return messages.pop(0)
            return await receive()

        mcp_method = None
        call = None
        if body:
            try:
                parsed = json.loads(body)
                if isinstance(parsed, dict):
                    mcp_method = parsed.get("method")
                    if mcp_method == "tools/call" and isinstance(parsed.get("params"), dict):
                        call = {"name": parsed["params"].get("name"), "arguments": parsed["params"].get("arguments")}
                elif isinstance(parsed, list):
                    mcp_method = next((m.get("method") for m in parsed if isinstance(m, dict) and "method" in m), None)
            except ValueError:
                pass

        entry = {
            "method": scope["method"],
            "path": scope["path"],
            "authorization": _header(scope, b"authorization"),
            "origin": _header(scope, b"origin"),
            "mcp_method": mcp_method,
            "session_id": _header(scope, b"mcp-session-id"),
            "protocol_version": _header(scope, b"mcp-protocol-version"),
            "call": call,
            "status": None,
        }
        logged = False

        async def send_logged(message: Message) -> None:
            nonlocal logged
            if message["type"] == "http.response.start" and not logged:
                logged = True
                entry["status"] = message["status"]
                self._write(entry)
            await send(message)

        try:
            await self.app(scope, replay, send_logged)
        finally:
            if not logged:
                self._write(entry)


def build_app(args: argparse.Namespace) -> ASGIApp:
    app: ASGIApp = mcp.streamable_http_app(
        streamable_http_path="/mcp",
        json_response=args.json,
        stateless_http=False,
        # The SDK's default for 127.0.0.1 checks Host and Origin (DNS-rebinding protection); the
        # tests call it from pages on other origins, so it is off (Content-Type is still checked).
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    if args.token is not None:
        app = AuthMiddleware(app, args.token)
    if not args.no_cors:
        # Outside the auth check, so 401s (and SDK errors) carry CORS headers too and a page can
        # read their status; preflights are answered here and never reach the auth check.
        app = CORSMiddleware(
            app,
            allow_origins=["*"],
            allow_methods=["*"],
            allow_headers=["*"],
            expose_headers=["Mcp-Session-Id"],
        )
    if args.log:
        # Outermost, so preflights and 401s are logged too.
        app = RequestLogMiddleware(app, args.log)
    return app


class _Server(uvicorn.Server):
    """uvicorn re-raises a caught SIGTERM after its graceful shutdown (so the process dies of the
    signal); here a signal only asks for shutdown, and the process exits with code 0."""

    @contextlib.contextmanager
    def capture_signals(self):
        def handle(_sig, _frame):
            if self.should_exit:
                self.force_exit = True
            self.should_exit = True
            # Ends the open SSE responses (GET streams, calls in progress) now instead of after
            # the graceful-shutdown timeout.
            AppStatus.should_exit = True

        previous = {sig: signal.signal(sig, handle) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)


async def main() -> None:
    parser = argparse.ArgumentParser(description="MCP test server (Streamable HTTP at /mcp)")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--token")
    parser.add_argument("--log")
    parser.add_argument("--no-cors", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--report", action="store_true")
    args = parser.parse_args()
    if args.report:
        mcp.tool()(send_report)

    # Bind first so --port 0 gives a known port; uvicorn serves on this socket.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    port = sock.getsockname()[1]

    config = uvicorn.Config(
        build_app(args),
        log_level="warning",
        access_log=False,
        lifespan="on",
        # Open SSE streams (GET /mcp, slow calls) would otherwise hold a shutdown forever.
        timeout_graceful_shutdown=2,
    )
    server = _Server(config)
    serving = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if serving.done():
            await serving  # startup failed: raise its error
            sys.exit(1)
        await asyncio.sleep(0.02)
    print(f"listening http://127.0.0.1:{port}/mcp", flush=True)
    await serving


if __name__ == "__main__":
    asyncio.run(main())
