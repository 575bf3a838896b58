"""Open the report in headless Chromium: it renders and reads well on a desktop and a phone.

Checked in a real browser (a copy of ``index.html`` with a probe script added; the report
itself has no script): no console errors, every figure loads (no broken image), every
table-of-contents link lands on an element, the summary fits in the first screen of a
desktop window, and at a phone's width (375 px, in an iframe: headless windows are at
least 500 px wide) no text runs off the screen (wide tables scroll inside their own box).
A screenshot of each is written to the test's temporary directory for a person to look at.
Negative controls (a script error, a broken image, a dangling link, an unbreakable line)
show that each check can fail.

When no Chromium is installed the tests skip with a reason, except under ``CI=true``
(``.ci/run`` installs it), where a missing browser fails. The tests that start Chromium are
in the integration tier (``make integration``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = next(
    (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None
)
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
#: Desktop window and the first screen a reader sees without scrolling.
DESKTOP = (1280, 900)
#: A phone's CSS width (iPhone 12–15).
PHONE = 375

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
]

PROBE = """<script>
window.addEventListener("load", function () {
  var d = document.documentElement, vw = window.innerWidth;
  var imgs = Array.prototype.slice.call(document.images);
  var links = Array.prototype.slice.call(document.querySelectorAll('a[href^="#"]'));
  var texts = Array.prototype.slice.call(document.querySelectorAll(
    "main h1, main h2, main p, main li, main figcaption, main summary, main caption"));
  var summary = document.getElementById("summary");
  var out = {
    width: vw, scrollWidth: d.scrollWidth, height: d.scrollHeight,
    images: imgs.length,
    brokenImages: imgs.filter(function (i) { return !(i.complete && i.naturalWidth > 0); })
                      .map(function (i) { return i.alt.slice(0, 60); }),
    links: links.length,
    deadLinks: links.filter(function (a) {
      return !document.getElementById(decodeURIComponent(a.getAttribute("href").slice(1)));
    }).map(function (a) { return a.getAttribute("href"); }),
    offscreen: texts.filter(function (e) {
      var r = e.getBoundingClientRect();
      return r.width > 0 && (r.right > vw + 1 || r.left < -1 || e.scrollWidth > e.clientWidth + 1);
    }).map(function (e) { return e.tagName + ": " + e.textContent.slice(0, 60); }),
    summaryBottom: summary ? summary.getBoundingClientRect().bottom + window.scrollY : null
  };
  var text = JSON.stringify(out);
  if (window.parent !== window) { window.parent.postMessage(text, "*"); }
  var pre = document.createElement("pre");
  pre.id = "passhat-probe"; pre.textContent = text; document.body.appendChild(pre);
});
</script>"""

PHONE_FRAME = """<!DOCTYPE html><html><head><meta charset="utf-8">
<style>body{{margin:0}} iframe{{border:0;width:{width}px;height:{height}px}}</style></head><body>
<iframe src="{src}"></iframe>
<script>window.addEventListener("message", function (e) {{
  var pre = document.createElement("pre"); pre.id = "passhat-phone";
  pre.textContent = e.data; document.body.appendChild(pre); }});</script>
</body></html>"""


def _chromium() -> str:
    if CHROMIUM is None:
        if IN_CI:
            pytest.fail(
                "headless Chromium is not installed, and CI=true needs the browser test to run "
                "(.ci/run installs the Debian package chromium when it is missing)"
            )
        pytest.skip("headless Chromium is not installed (apt-get install chromium)")
    return CHROMIUM


def _run(page: Path, *extra: str, size: tuple[int, int] = DESKTOP) -> subprocess.CompletedProcess:
    profile = tempfile.mkdtemp(prefix="passhat-chromium-")  # fresh profile: no shared state
    try:
        return subprocess.run(
            [
                _chromium(),
                *FLAGS,
                f"--user-data-dir={profile}",
                f"--window-size={size[0]},{size[1]}",
                "--virtual-time-budget=5000",
                *extra,
                page.resolve().as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def _open(page: Path) -> tuple[str, list[str]]:
    """The DOM after load and the console messages Chromium logged."""
    proc = _run(page, "--enable-logging=stderr", "--v=0", "--dump-dom")
    assert proc.returncode == 0, proc.stderr[-2000:]
    console = [line for line in proc.stderr.splitlines() if re.search(r":CONSOLE[:(]", line)]
    return proc.stdout, console


def _probe(html: Path, tmp: Path) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """The probe's findings at desktop width and at phone width, and the console messages."""
    page = tmp / "probe.html"
    page.write_text(html.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"))
    dom, console = _open(page)
    desktop = json.loads(re.search(r'<pre id="passhat-probe">(.*?)</pre>', dom, re.S)[1])
    frame = tmp / "phone.html"
    frame.write_text(PHONE_FRAME.format(width=PHONE, height=800, src=page.name))
    dom, _ = _open(frame)
    phone = json.loads(re.search(r'<pre id="passhat-phone">(.*?)</pre>', dom, re.S)[1])
    return desktop, phone, console


def _screenshot(page: Path, out: Path, size: tuple[int, int]) -> Path:
    proc = _run(page, f"--screenshot={out}", size=size)
    assert proc.returncode == 0 and out.exists(), proc.stderr[-2000:]
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    return out


# ------------------------------------------------------------- negative controls
@pytest.mark.integration
def test_console_check_catches_errors(tmp_path: Path) -> None:
    page = tmp_path / "bad.html"
    page.write_text("<!DOCTYPE html><html><body><script>no_such_fn()</script></body></html>")
    _, console = _open(page)
    assert any("no_such_fn" in line for line in console)


@pytest.mark.integration
def test_probe_catches_broken_images_dead_links_and_wide_text(tmp_path: Path) -> None:
    page = tmp_path / "bad.html"
    page.write_text(
        '<!DOCTYPE html><html><head><meta name="viewport" content="width=device-width">'
        "</head><body><main><nav><a href='#here'>ok</a> <a href='#nowhere'>dead</a></nav>"
        '<h2 id="here">x</h2><img src="data:image/png;base64,AAAA" alt="broken figure">'
        f"<p style='white-space:nowrap'>{'unbreakable ' * 40}</p></main></body></html>"
    )
    desktop, phone, _ = _probe(page, tmp_path)
    assert desktop["brokenImages"] == ["broken figure"]
    assert desktop["deadLinks"] == ["#nowhere"] and desktop["links"] == 2
    assert phone["width"] == PHONE
    assert phone["scrollWidth"] > PHONE and phone["offscreen"]


# ---------------------------------------------------------------------- reports
@pytest.mark.integration
@pytest.mark.parametrize("which", ["example", "malicious"])
def test_report_in_a_browser(  # type: ignore[no-untyped-def]
    which: str, example_report, malicious_compared_dir: Path, tmp_path: Path
):
    html = (
        example_report.paths.html if which == "example" else malicious_compared_dir / "index.html"
    )
    desktop, phone, console = _probe(html, tmp_path)
    assert console == [], console
    # every figure loads
    assert desktop["images"] >= 3 and desktop["brokenImages"] == []
    # every table-of-contents link lands on an element
    assert desktop["links"] >= 7 and desktop["deadLinks"] == []
    # a release reviewer reads the summary without scrolling, and the detail is folded
    assert desktop["summaryBottom"] is not None and desktop["summaryBottom"] <= DESKTOP[1]
    if which == "example":
        # 9,425 px before the summary and the folding; under 7,000 before the by-category and cost
        # sections (the example has both columns), whose tables are folded: 7,546 with them
        assert desktop["height"] < 8000
    # on a phone no text runs off the screen: the page does not scroll sideways
    assert phone["width"] == PHONE
    assert phone["scrollWidth"] <= PHONE and phone["offscreen"] == [], phone
    # screenshots for a person to look at: the whole page on a desktop, the phone's first screens
    shot = _screenshot(html, tmp_path / f"{which}-desktop.png", (DESKTOP[0], desktop["height"]))
    tall = tmp_path / "phone-tall.html"
    tall.write_text(PHONE_FRAME.format(width=PHONE, height=2400, src=html.resolve().as_uri()))
    _screenshot(tall, tmp_path / f"{which}-phone.png", (PHONE, 2400))
    print(f"screenshots: {shot.parent}")


@pytest.mark.integration
def test_dom_has_no_script_and_shows_the_sections(example_report) -> None:
    dom, console = _open(example_report.paths.html)
    assert console == []
    assert "<table" in dom and "1. Data" in dom and "Summary" in dom
    assert "<script" not in dom.lower()


def test_a_missing_browser_skips_locally_and_fails_under_ci(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    here = sys.modules[__name__]
    monkeypatch.setattr(here, "CHROMIUM", None)
    monkeypatch.setattr(here, "IN_CI", True)
    with pytest.raises(pytest.fail.Exception, match=r"CI=true needs the browser test to run"):
        _chromium()
    monkeypatch.setattr(here, "IN_CI", False)
    with pytest.raises(pytest.skip.Exception, match="not installed"):
        _chromium()
