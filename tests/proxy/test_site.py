"""The site as the proxy serves it: pages, versioned assets (kept in nginx's cache for a year
and compressed there), API answers never cached, the server's security headers and relative
redirects passed through, the metrics endpoint closed to the outside; and the shipped
configuration, TLS included, is one nginx accepts."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import httpx

from bench.proxy import DEPLOY, Nginx

from .conftest import Site


def test_pages_assets_and_answers_through_the_proxy(site: Site) -> None:
    with httpx.Client(base_url=site.base, timeout=30) as http:
        page = http.get("/")
        assert page.status_code == 200
        assert "default-src 'self'" in page.headers["content-security-policy"]
        assert page.headers["x-content-type-options"] == "nosniff"
        # A versioned asset the page links (its content hash as ?v=).
        found = re.search(r'href="\.?/?(assets/css/[^"?]+\.css\?v=[0-9a-f]+)"', page.text)
        assert found, page.text[:2000]
        asset = "/" + found.group(1)
        first = http.get(asset, headers={"Accept-Encoding": "gzip"})
        again = http.get(asset, headers={"Accept-Encoding": "gzip"})
        plain = http.get(asset, headers={"Accept-Encoding": "identity"})
        assert first.status_code == again.status_code == plain.status_code == 200
        assert again.headers["x-cache-status"] == "HIT"
        assert again.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert again.headers["content-encoding"] == "gzip"
        assert "content-encoding" not in plain.headers
        assert again.content == plain.content  # httpx decodes the gzip
        # An unversioned asset URL is revalidated, never kept by the proxy.
        bare = http.get(asset.split("?")[0])
        assert bare.headers["cache-control"] == "public, no-cache"
        assert bare.headers["x-cache-status"] != "HIT"
        # API answers are never cached; a redirect stays on this site whatever Host says.
        assert http.get("/api/continue").headers["cache-control"] == "no-store"
        moved = http.get("/assets", headers={"Host": "evil.example"})
        assert moved.is_redirect
        assert moved.headers["location"] == "/assets/"
        # The operator's scraper asks each process directly; the public never gets metrics.
        assert http.get("/metrics").status_code == 404


def test_the_shipped_configuration_with_tls_is_accepted(tmp_path: Path) -> None:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=cards.example.org", "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )  # fmt: skip
    proxy = Nginx(tmp_path / "nginx", ["127.0.0.1:9", "127.0.0.1:10"])
    shipped = (DEPLOY / "cardtable.conf").read_text()
    commented = shipped[shipped.index("# server {") :]
    tls = "\n".join(line.removeprefix("# ").removeprefix("#") for line in commented.splitlines())
    tls = tls.replace("/etc/letsencrypt/live/cards.example.org/fullchain.pem", str(cert))
    tls = tls.replace("/etc/letsencrypt/live/cards.example.org/privkey.pem", str(key))
    tls = tls.replace("listen 443 ssl http2;", "listen 127.0.0.1:8443 ssl http2;")
    tls = tls.replace("listen [::]:443 ssl http2;\n", "")
    tls = tls.replace("/var/log/nginx/cardtable.log", str(tmp_path / "tls.log"))
    report = proxy.check(extra=tls)
    assert "test is successful" in report
