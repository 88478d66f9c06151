"""The how-to-play figures (tools/figures, `make figures`) are up to date and complete, without
a browser: the manifest's hashes of each figure's description (its engine position, markers,
arrows and facts) and of the source files that draw it match what they are now; every image
exists at 1x and 2x, under 60 KB; every figure in both pages, in both languages, has its
alt text, its caption and one numbered key per marker; the numbers the captions state
(penalties, points, the ten-line breakdown) are the engine's."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from cardtable.server import Settings, create_app
from tools.figures.manifest import MANIFEST, OUT, SIZES_TEMPLATE, current
from tools.figures.positions import FIGURES, describe

MAX_BYTES = 60_000
PAGES = {"kc": "/rules-kings-corner.html", "ps": "/rules-poker-squares.html"}
LAYOUTS = json.loads((OUT / "figures.json").read_text())
FIGURE_BLOCK = re.compile(r"<figure\b([^>]*)>(.*?)</figure>", re.S)


def test_figures_are_up_to_date() -> None:
    stored = json.loads(MANIFEST.read_text())
    now = current()
    stale = sorted(n for n, h in now["figures"].items() if stored["figures"].get(n) != h)
    assert not stale, f"figures out of date with their description: {stale}; run make figures"
    assert stored["sources"] == now["sources"], (
        "the code that draws the figures changed (tools/figures, core/cards.js, "
        "kings-corner/table.js, poker-squares/board.js, their style sheets); run make figures"
    )
    assert set(stored["figures"]) == set(now["figures"]), (
        "figures added or removed; run make figures"
    )


@pytest.mark.parametrize("name", [f.name for f in FIGURES])
def test_every_image_exists_small_enough(name: str) -> None:
    for file in (OUT / f"{name}.webp", OUT / f"{name}@2x.webp"):
        assert file.is_file(), f"{file.name} missing; run make figures"
        data = file.read_bytes()
        assert data[:4] == b"RIFF" and data[8:12] == b"WEBP", f"{file.name} is not WebP"
        assert len(data) < MAX_BYTES, f"{file.name} is {len(data)} bytes"
    layout = LAYOUTS[name]
    assert f'"{name}": [{layout["width"]}, {layout["height"]}]' in SIZES_TEMPLATE.read_text()
    for mark in layout["markers"]:
        assert all(0 <= v <= 100 for v in mark["at"]), mark
    for arrow in layout["arrows"]:
        assert all(0 <= v <= 100 for v in arrow["from"] + arrow["to"]), arrow


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    app = create_app(Settings(data_dir=tmp_path_factory.mktemp("figures"), database_url=None))
    with TestClient(app) as client:
        out = {}
        for key, path in PAGES.items():
            answer = client.get(path)
            assert answer.status_code == 200
            out[key] = answer.text
        yield out


def articles(html: str) -> dict[str, str]:
    parts = re.split(r'<article data-lang-block="(en|ja)"', html)
    return {parts[i]: parts[i + 1].split("</article>")[0] for i in range(1, len(parts), 2)}


def figures_in(article: str) -> list[tuple[list[str], str]]:
    """(names shown, body) of each figure of an article."""
    out = []
    for attrs, body in FIGURE_BLOCK.findall(article):
        assert 'class="fig' in attrs
        names = re.search(r'data-figure="([^"]+)"', attrs)
        assert names, attrs
        out.append((names.group(1).split(), body))
    return out


@pytest.mark.parametrize("game", ["kc", "ps"])
def test_every_figure_has_alt_text_caption_and_keys(pages: dict[str, str], game: str) -> None:
    langs = articles(pages[game])
    assert set(langs) == {"en", "ja"}
    shown = {}
    for lang, article in langs.items():
        figs = figures_in(article)
        shown[lang] = [n for names, _ in figs for n in names]
        for names, body in figs:
            assert body.count("<figcaption>") == 1 and "</figcaption>" in body, names
            imgs = re.findall(r"<img\b[^>]*>", body)
            assert len(imgs) == len(names), names
            for name, img in zip(names, imgs, strict=True):
                assert f'data-figure="{name}"' in img
                alt = re.search(r'alt="([^"]*)"', img)
                assert alt and len(alt.group(1)) > 10, (
                    f"{lang} {name}: alt text missing or too short"
                )
            keys = re.search(r'<ol class="fig-keys">(.*?)</ol>', body, re.S)
            marks = {m["n"] for n in names for m in LAYOUTS[n]["markers"]}
            if keys:
                assert keys.group(1).count("<li>") == max(marks, default=0), (
                    f"{lang} {names}: keys vs markers"
                )
            else:
                assert not marks, f"{lang} {names}: markers without numbered keys"
    assert shown["en"] == shown["ja"], "both languages show the same figures in the same order"
    expected = [f.name for f in FIGURES if f.name.startswith(f"{game}-")]
    assert sorted(shown["en"]) == sorted(expected), "every figure appears once on its page"


def facts() -> dict[str, dict]:
    return {f.name: describe(f)["facts"] for f in FIGURES}


def test_captions_state_the_engines_numbers(pages: dict[str, str]) -> None:
    known = facts()
    penalty = known["kc-end"]["penalties"][0]
    for lang, article in articles(pages["kc"]).items():
        assert f'<span data-fact="penalty">{penalty}</span>' in article, lang
    complete = known["ps-complete"]
    for lang, article in articles(pages["ps"]).items():
        for names, body in figures_in(article):
            name = names[0]
            if name.startswith("ps-hand-"):
                points = known[name]["points"]
                assert f'data-points="{points["american"]} {points["british"]}"' in body, (
                    lang,
                    name,
                )
        table = article.split("data-breakdown", 1)[1].split("</table>", 1)[0]
        rows = re.findall(r'<td data-hand="(\w+)">[^<]*</td><td class="num">(\d+)</td>', table)
        assert [h for h, _ in rows] == complete["line_hands"], lang
        assert [int(p) for _, p in rows] == complete["line_scores"], lang
        assert f'<td class="num" data-total>{complete["total"]}</td>' in table, lang


def test_no_words_in_the_render_page_bitmaps() -> None:
    """The render page hides every label the game screens write in words."""
    css = (Path(__file__).resolve().parents[3] / "tools" / "figures" / "render.css").read_text()
    for part in (
        ".pile-tag",
        ".pile-empty",
        ".seat-title",
        ".seat-count",
        ".seat-total",
        ".hand-title",
    ):
        assert part in css
