"""A push service on loopback that does what a real one does with a notification (RFC 8030,
8291, 8292), for the push tests and the benchmark.

- Each subscription is made here as a browser makes it: a P-256 key pair and a 16-byte auth
  secret (`new_subscription`); its endpoint is ``http://127.0.0.1:<port>/push/<id>``.
- A POST is checked like a push service checks it: the ``Authorization: vapid t=<JWT>,k=<key>``
  header's ES256 signature with the key ``k`` (and ``k`` must be the server's public key when
  one is given), its ``aud`` (this service's origin) and ``exp`` (in the future, at most 24 h
  away); then the body (``Content-Encoding: aes128gcm``) is decrypted with the
  subscription's private key and auth secret (`http_ece`).
- What arrived is recorded (`received`, with a condition to wait on); the answer is 201, or
  410 / 429 / 500 for a subscription told so (`answer`), or 400/403 when a check failed.
"""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64d(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64e(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


@dataclass
class Sub:
    id: str
    private: ec.EllipticCurvePrivateKey
    auth: bytes
    endpoint: str
    answer: int = 201

    def as_json(self) -> dict[str, Any]:
        """What ``PushSubscription.toJSON()`` gives a page."""
        public = self.private.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": self.endpoint,
            "keys": {"p256dh": b64e(public), "auth": b64e(self.auth)},
        }


@dataclass
class Received:
    sub: str
    payload: dict[str, Any]
    ttl: str | None
    signer: str


@dataclass
class PushService:
    server_key: str | None = None
    """The VAPID public key the signatures must be made with (None: any valid one)."""
    subs: dict[str, Sub] = field(default_factory=dict)
    received: list[Received] = field(default_factory=list)
    refused: list[tuple[str, int, str]] = field(default_factory=list)
    answered: dict[int, int] = field(default_factory=dict)
    """Answers given, by status."""
    cond: threading.Condition = field(default_factory=threading.Condition)
    origin: str = ""
    _server: ThreadingHTTPServer | None = None

    def start(self) -> PushService:
        service = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                status = service.handle(self.path, dict(self.headers.items()), body)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.origin = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def new_subscription(self) -> Sub:
        sid = b64e(os.urandom(12))
        sub = Sub(sid, ec.generate_private_key(ec.SECP256R1()), os.urandom(16),
                  f"{self.origin}/push/{sid}")  # fmt: skip
        self.subs[sid] = sub
        return sub

    # -- a POST ------------------------------------------------------------------------
    def handle(self, path: str, headers: dict[str, str], body: bytes) -> int:
        headers = {k.lower(): v for k, v in headers.items()}
        sid = path.rsplit("/", 1)[-1]
        sub = self.subs.get(sid)
        if sub is None:
            return self._answer(sid, 404, "no such subscription")
        try:
            signer = self.check_vapid(headers.get("authorization", ""))
        except (ValueError, KeyError, InvalidSignature) as exc:
            return self._answer(sid, 403, f"vapid: {exc!r}")
        if headers.get("content-encoding") != "aes128gcm":
            return self._answer(sid, 400, "not aes128gcm")
        try:
            plain = http_ece.decrypt(body, private_key=sub.private, auth_secret=sub.auth,
                                     version="aes128gcm")  # fmt: skip
            payload = json.loads(plain)
        except Exception as exc:
            return self._answer(sid, 400, f"decrypt: {exc!r}")
        if sub.answer != 201:
            return self._answer(sid, sub.answer, "told to")
        with self.cond:
            self.received.append(Received(sid, payload, headers.get("ttl"), signer))
            self.answered[201] = self.answered.get(201, 0) + 1
            self.cond.notify_all()
        return 201

    def _answer(self, sid: str, status: int, why: str) -> int:
        with self.cond:
            self.refused.append((sid, status, why))
            self.answered[status] = self.answered.get(status, 0) + 1
            self.cond.notify_all()
        return status

    def check_vapid(self, header: str) -> str:
        """The signer's public key when the header is a valid VAPID authorization for this
        service; ValueError / InvalidSignature otherwise."""
        scheme, _, rest = header.partition(" ")
        if scheme.lower() != "vapid":
            raise ValueError("not a vapid authorization")
        parts = dict(p.strip().split("=", 1) for p in rest.split(","))
        token, key = parts["t"], parts["k"]
        if self.server_key is not None and key != self.server_key:
            raise ValueError("signed with another key")
        head, claims, signature = token.split(".")
        if json.loads(b64d(head)).get("alg") != "ES256":
            raise ValueError("not ES256")
        raw = b64d(signature)
        if len(raw) != 64:
            raise ValueError("not a raw P-256 signature")
        der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
        public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b64d(key))
        public.verify(der, f"{head}.{claims}".encode("ascii"), ec.ECDSA(hashes.SHA256()))
        decoded = json.loads(b64d(claims))
        if decoded.get("aud") != self.origin:
            raise ValueError(f"aud {decoded.get('aud')!r} is not {self.origin!r}")
        exp = int(decoded["exp"])
        if not time.time() < exp <= time.time() + 24 * 3600:
            raise ValueError("exp out of range")
        if not str(decoded.get("sub", "")).startswith(("mailto:", "https:")):
            raise ValueError("no sub")
        return key

    # -- waiting -------------------------------------------------------------------------
    def wait(self, test: Any, timeout: float = 20.0) -> None:
        """Until ``test()`` holds (checked on every arrival), or AssertionError."""
        end = time.monotonic() + timeout
        with self.cond:
            while not test():
                left = end - time.monotonic()
                assert left > 0, (
                    f"push service: never reached; got {self.received!r}, refused {self.refused!r}"
                )
                self.cond.wait(left)

    def of(self, sub: Sub) -> list[dict[str, Any]]:
        with self.cond:
            return [r.payload for r in self.received if r.sub == sub.id]
