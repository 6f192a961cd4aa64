"""A streaming OpenAI-compatible stub server with a known timing model, for client fixtures.

Real benchmark clients (GuideLLM, AIPerf, GenAI-Perf …) run against it so that their output
files can be checked against timings that are known in advance:

- the first token is sent ``--ttft-ms`` after the request arrived;
- each later token follows the previous one after ``gap = --gap-ms + --gap-per-ms × (n − 1)``,
  n being the number of requests in flight when the gap starts (this request included);
- every token is the same word (``--word``), one word per SSE chunk, so a whitespace count of
  the text is the token count; a request gets ``max_tokens`` (or ``max_completion_tokens``,
  default ``--default-tokens``) tokens, never an early stop;
- the last chunk carries ``usage`` when the request asks for it (``stream_options.
  include_usage``) or ``--usage always``; prompt tokens are counted as whitespace words.

Endpoints: ``GET /v1/models``, ``GET /health``, ``POST /v1/completions`` and
``/v1/chat/completions``, streamed (SSE, chunked) or not. HTTP/1.1 keep-alive. Binds 127.0.0.1
only. Stdlib only: ``python tools/stub_server.py --port 8123``. Stops on SIGTERM/SIGINT or
after ``--max-seconds``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Timing:
    ttft_s: float = 0.050
    gap_s: float = 0.010
    gap_per_s: float = 0.005   # extra gap for each other request in flight
    default_tokens: int = 16
    word: str = "tok"
    usage: str = "asked"       # "asked" | "always" | "never"
    model: str = "stub-model"

    def gap(self, in_flight: int) -> float:
        return self.gap_s + self.gap_per_s * max(in_flight - 1, 0)


class Stub:
    def __init__(self, timing: Timing) -> None:
        self.timing = timing
        self.in_flight = 0
        self.served = 0
        self.count = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                request = await _read_request(reader)
                if request is None:
                    break
                method, path, headers, body = request
                keep = headers.get("connection", "").lower() != "close"
                await self.route(method, path.split("?")[0], body, writer)
                if not keep:
                    break
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            try:
                writer.close()
                await writer.wait_closed()
            except (ConnectionError, OSError):
                pass

    async def route(self, method: str, path: str, body: bytes,
                    writer: asyncio.StreamWriter) -> None:
        if method == "GET" and path in ("/v1/models", "/models"):
            data = {"object": "list", "data": [
                {"id": self.timing.model, "object": "model", "created": 0, "owned_by": "stub",
                 "max_model_len": 32768}]}
            await _send_json(writer, 200, data)
        elif method == "GET" and path in ("/health", "/v1/health", "/ping", "/version"):
            await _send_json(writer, 200, {"status": "ok", "version": "stub"})
        elif method == "POST" and path in ("/v1/completions", "/v1/chat/completions"):
            try:
                req = json.loads(body or b"{}")
            except json.JSONDecodeError:
                await _send_json(writer, 400, {"error": "body is not JSON"})
                return
            await self.generate(req, chat=path.endswith("chat/completions"), writer=writer)
        else:
            await _send_json(writer, 404, {"error": f"no route {method} {path}"})

    async def generate(self, req: dict, *, chat: bool, writer: asyncio.StreamWriter) -> None:
        t = self.timing
        arrived = time.monotonic()
        self.in_flight += 1
        self.count += 1
        rid = f"stub-{self.count}"
        try:
            n = req.get("max_completion_tokens") or req.get("max_tokens") or t.default_tokens
            n = max(int(n), 1)
            prompt_tokens = _prompt_words(req, chat)
            stream = bool(req.get("stream"))
            want_usage = t.usage == "always" or (
                t.usage == "asked" and bool((req.get("stream_options") or {}).get("include_usage")))
            usage = {"prompt_tokens": prompt_tokens, "completion_tokens": n,
                     "total_tokens": prompt_tokens + n}
            due = arrived + t.ttft_s
            if not stream:
                for _ in range(n - 1):
                    due += t.gap(self.in_flight)
                await asyncio.sleep(max(due - time.monotonic(), 0))
                text = " ".join([t.word] * n)
                choice = ({"index": 0, "message": {"role": "assistant", "content": text},
                           "finish_reason": "length"} if chat else
                          {"index": 0, "text": text, "finish_reason": "length", "logprobs": None})
                await _send_json(writer, 200, {
                    "id": rid, "object": "chat.completion" if chat else "text_completion",
                    "created": 0, "model": t.model, "choices": [choice],
                    **({"usage": usage} if t.usage != "never" else {})})
                return
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                         b"Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n")
            await writer.drain()
            for i in range(n):
                if i:
                    due += t.gap(self.in_flight)
                await asyncio.sleep(max(due - time.monotonic(), 0))
                piece = t.word if i == 0 else " " + t.word
                last = i == n - 1
                if chat:
                    delta = {"role": "assistant", "content": piece} if i == 0 else {
                        "content": piece}
                    choice = {"index": 0, "delta": delta,
                              "finish_reason": "length" if last else None}
                else:
                    choice = {"index": 0, "text": piece, "logprobs": None,
                              "finish_reason": "length" if last else None}
                chunk = {"id": rid, "object": "chat.completion.chunk" if chat
                         else "text_completion", "created": 0, "model": t.model,
                         "choices": [choice]}
                await _send_chunk(writer, chunk)
            if want_usage:
                await _send_chunk(writer, {
                    "id": rid, "object": "chat.completion.chunk" if chat else "text_completion",
                    "created": 0, "model": t.model, "choices": [], "usage": usage})
            await _send_raw(writer, b"data: [DONE]\n\n")
            writer.write(b"0\r\n\r\n")
            await writer.drain()
        finally:
            self.in_flight -= 1
            self.served += 1


def _prompt_words(req: dict, chat: bool) -> int:
    if chat:
        words = 0
        for message in req.get("messages") or []:
            content = message.get("content")
            if isinstance(content, list):  # [{"type": "text", "text": ...}, …]
                content = " ".join(str(p.get("text", "")) for p in content
                                   if isinstance(p, dict))
            words += len(str(content or "").split())
        return words
    prompt = req.get("prompt")
    if isinstance(prompt, list):
        prompt = " ".join(map(str, prompt))
    return len(str(prompt or "").split())


async def _read_request(reader: asyncio.StreamReader
                        ) -> tuple[str, str, dict[str, str], bytes] | None:
    line = await reader.readline()
    if not line:
        return None
    parts = line.decode("latin-1").split()
    if len(parts) < 2:
        return None
    headers: dict[str, str] = {}
    while True:
        h = await reader.readline()
        if h in (b"\r\n", b"\n", b""):
            break
        key, _, value = h.decode("latin-1").partition(":")
        headers[key.strip().lower()] = value.strip()
    body = b""
    if "content-length" in headers:
        body = await reader.readexactly(int(headers["content-length"]))
    elif headers.get("transfer-encoding", "").lower() == "chunked":
        while True:
            size = int((await reader.readline()).split(b";")[0].strip() or b"0", 16)
            if size == 0:
                await reader.readline()
                break
            body += await reader.readexactly(size)
            await reader.readline()
    return parts[0], parts[1], headers, body


async def _send_json(writer: asyncio.StreamWriter, status: int, data: dict) -> None:
    body = json.dumps(data).encode()
    reason = {200: "OK", 400: "Bad Request", 404: "Not Found"}[status]
    writer.write(f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\n"
                 f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    await writer.drain()


async def _send_raw(writer: asyncio.StreamWriter, payload: bytes) -> None:
    writer.write(f"{len(payload):x}\r\n".encode() + payload + b"\r\n")
    await writer.drain()


async def _send_chunk(writer: asyncio.StreamWriter, data: dict) -> None:
    await _send_raw(writer, b"data: " + json.dumps(data).encode() + b"\n\n")


async def serve(timing: Timing, port: int, max_seconds: float) -> None:
    stub = Stub(timing)
    server = await asyncio.start_server(stub.handle, "127.0.0.1", port)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    print(f"stub listening on 127.0.0.1:{port}", flush=True)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), max_seconds)
    server.close()
    print(f"stub served {stub.served} requests", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--port", type=int, default=8123)
    p.add_argument("--ttft-ms", type=float, default=50.0)
    p.add_argument("--gap-ms", type=float, default=10.0)
    p.add_argument("--gap-per-ms", type=float, default=5.0,
                   help="added to the gap for each other request in flight")
    p.add_argument("--default-tokens", type=int, default=16)
    p.add_argument("--word", default="tok")
    p.add_argument("--usage", choices=("asked", "always", "never"), default="asked")
    p.add_argument("--model", default="stub-model")
    p.add_argument("--max-seconds", type=float, default=3600.0)
    a = p.parse_args()
    timing = Timing(a.ttft_ms / 1000, a.gap_ms / 1000, a.gap_per_ms / 1000, a.default_tokens,
                    a.word, a.usage, a.model)
    asyncio.run(serve(timing, a.port, a.max_seconds))


if __name__ == "__main__":
    main()
