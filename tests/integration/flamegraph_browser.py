#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Drive prof's SVG flame graph in a real headless Chromium, over the DevTools
protocol on a pipe (--remote-debugging-pipe: no network port, no extra module).

  flamegraph_browser.py check FLAME.SVG   zoom in, zoom out (Reset Zoom, a caller),
                                          searches with regex characters
  flamegraph_browser.py load FLAME.SVG... print each file's load time in ms

Exit 0 on success, 1 on a failed check (with what failed), 77 without Chromium."""
import fcntl, json, os, select, shutil, subprocess, sys, tempfile, time


class Browser:
    def __init__(self):
        exe = shutil.which("chromium") or shutil.which("chromium-browser")
        if not exe:
            print("SKIP: needs chromium (Debian package chromium)")
            sys.exit(77)
        self.profile = tempfile.mkdtemp(prefix="prof-chromium.")
        to_browser, self.w = os.pipe()
        self.r, from_browser = os.pipe()
        # the browser reads commands on fd 3 and writes replies on fd 4
        def fds():      # out of the way first: the pipes may be fds 3 and 4 already
            a, b = fcntl.fcntl(to_browser, fcntl.F_DUPFD, 10), fcntl.fcntl(from_browser, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)
        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-extensions", "--disable-background-networking", "--mute-audio",
             "--remote-debugging-pipe", "--user-data-dir=" + self.profile, "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=fds, pass_fds=(3, 4))
        os.close(to_browser)
        os.close(from_browser)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"], flatten=True)["sessionId"]
        self.call("Page.enable")
        self.call("Runtime.enable")

    def close(self):
        try:
            self.call("Browser.close")
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)

    def _read(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.r], [], [], left)[0]:
                raise TimeoutError("the browser did not answer")
            chunk = os.read(self.r, 1 << 20)
            if not chunk:
                raise EOFError("the browser went away")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, timeout=120, **params):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if self.session:
            msg["sessionId"] = self.session
        os.write(self.w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            m = self._read(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.on_event(m)

    def on_event(self, m):
        self.events.append(m)
        if m.get("method") == "Page.javascriptDialogOpening":
            # answer a prompt() as a user would: with the text queued for it
            os.write(self.w, json.dumps({
                "id": 0, "sessionId": self.session, "method": "Page.handleJavaScriptDialog",
                "params": {"accept": True, "promptText": self.prompt_text}}).encode() + b"\0")

    def wait_event(self, name, timeout=120):
        deadline = time.monotonic() + timeout
        while True:
            for i, m in enumerate(self.events):
                if m.get("method") == name:
                    return self.events.pop(i)
            self.on_event(self._read(deadline))

    def load(self, path, scripts=True):
        """Open path; the time until it is loaded and drawn, in ms."""
        self.events.clear()
        t0 = time.monotonic()
        self.call("Page.navigate", url="file://" + os.path.abspath(path))
        self.wait_event("Page.loadEventFired")
        if scripts:
            self.eval("new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)))")
        return (time.monotonic() - t0) * 1000

    def eval(self, expr):
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expr}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def click(self, x, y):
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def exceptions(self):
        return [m for m in self.events if m.get("method") == "Runtime.exceptionThrown"]


# The page's frames, each {name, x, w, shown, opacity, fill} in screen pixels.
FRAMES = """Array.from(document.querySelectorAll('g.f')).map(g => {
  const r = g.querySelector('rect'), b = r.getBoundingClientRect(), t = g.querySelector('title').textContent;
  return {name: t.substring(0, t.lastIndexOf(' (')), x: b.x, y: b.y, w: b.width, h: b.height,
          shown: getComputedStyle(g).display !== 'none', opacity: getComputedStyle(g).opacity,
          fill: r.getAttribute('fill'), label: (g.querySelector('text') || {}).textContent || ''};
})"""


def element_center(b, selector):
    r = b.eval(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); "
               "if (!e || getComputedStyle(e).display === 'none') return null; "
               "const b = e.getBoundingClientRect(); return [b.x + b.width / 2, b.y + b.height / 2]; })()")
    return r


def frame(frames, name):
    hits = [f for f in frames if f["name"] == name]
    assert hits, f"no frame {name} in {[f['name'] for f in frames][:20]}"
    return max(hits, key=lambda f: f["w"])


def click_frame(b, name):
    f = frame(b.eval(FRAMES), name)
    assert f["shown"], f"{name} is not shown"
    b.click(f["x"] + min(f["w"] / 2, 20), f["y"] + f["h"] / 2)


def zoom_in(b, before):
    full = frame(before, "all")["w"]
    assert element_center(b, "#unzoom") is None, "Reset Zoom shown before any zoom"
    # zoom into hot_function: it fills the width, its callers too (faded), others hide
    click_frame(b, "hot_function")
    z = b.eval(FRAMES)
    assert abs(frame(z, "hot_function")["w"] - full) < 1, f"zoomed hot_function is {frame(z, 'hot_function')['w']} px, not {full}"
    assert frame(z, "all")["shown"] and float(frame(z, "all")["opacity"]) < 1, "the root is not shown faded under the zoomed frame"
    assert not frame(z, "cold_function")["shown"], "cold_function still shown when zoomed into hot_function"
    assert frame(z, "hot_function")["label"].startswith("hot_function"), "no label on the zoomed frame"
    return "click zooms into hot_function; callers faded, others hidden"


def reset_zoom(b, before):
    click_frame(b, "hot_function")
    xy = element_center(b, "#unzoom")
    assert xy, "no Reset Zoom after zooming"
    b.click(*xy)                    # a real click on it
    r = b.eval(FRAMES)
    for f0, f1 in zip(before, r):
        assert f1["shown"] and abs(f0["w"] - f1["w"]) < 0.01 and abs(f0["x"] - f1["x"]) < 0.01, f"{f1['name']} not restored: {f0} {f1}"
    assert element_center(b, "#unzoom") is None, "Reset Zoom still shown after resetting"
    return "Reset Zoom restores every frame"


def caller_zooms_out(b, before):
    click_frame(b, "hot_function")
    click_frame(b, "all")
    r = b.eval(FRAMES)
    assert all(f["shown"] for f in r), "a frame hidden after clicking the root"
    assert abs(frame(r, "hot_function")["w"] - frame(before, "hot_function")["w"]) < 0.01, "hot_function not back to its width"
    return "clicking the faded root zooms back out"


def searches(b, before):
    # typed into the prompt as a user would; what is not a regex is taken literally
    # hot_function may show up under more than one caller: its share is all of them
    hot, end = 0, -1
    for f in sorted((f for f in before if "hot_func" in f["name"]), key=lambda f: (f["x"], -f["w"])):
        if f["x"] + f["w"] > end + 0.01:
            hot, end = hot + f["w"], f["x"] + f["w"]
    hot = hot / frame(before, "all")["w"] * 100
    out = []
    for term, want in (("(", None), ("[", None), ("hot_func", hot), ("hot_function|cold_function", None)):
        b.prompt_text = term
        b.events = [m for m in b.events if m.get("method") != "Runtime.exceptionThrown"]
        b.click(*element_center(b, "#search"))
        b.eval("0")      # let the click's handler and the dialog finish
        assert not b.exceptions(), f"search {term!r} threw: {b.exceptions()[0]['params']['exceptionDetails']['exception']['description']}"
        matched = b.eval("document.getElementById('matched').textContent")
        assert matched.startswith("Matched: "), f"search {term!r}: {matched!r}"
        pct = float(matched.split()[1].rstrip("%"))
        if want is not None:
            assert abs(pct - want) < 0.05, f"search {term!r}: {pct}%, want {want:.2f}%"
        frames = b.eval(FRAMES)
        magenta = sorted(f["name"] for f in frames if f["fill"] == "rgb(230,0,230)")
        if term in ("(", "[", "hot_func"):
            assert magenta == sorted(f["name"] for f in frames if term in f["name"]), f"search {term!r} marked {magenta}"
        if term == "hot_func":
            assert magenta, "search hot_func marked nothing"
        out.append(f"{term!r} {matched}")
    return "searches " + ", ".join(out)


def no_script_labels(b, svg):
    """Labels are in the file: with scripts off the frames still say what they are
    (read through the DOM domain, which needs no script on the page)."""
    b.call("Emulation.setScriptExecutionDisabled", value=True)
    try:
        b.load(svg, scripts=False)
        root = b.call("DOM.getDocument", depth=0)["root"]["nodeId"]
        label, width = None, 0
        for g in b.call("DOM.querySelectorAll", nodeId=root, selector="g.f")["nodeIds"]:
            html = b.call("DOM.getOuterHTML", nodeId=g)["outerHTML"]
            if "<title>hot_function (" in html:
                t = b.call("DOM.querySelector", nodeId=g, selector="text")["nodeId"]
                if t:
                    label = b.call("DOM.getOuterHTML", nodeId=t)["outerHTML"]
                    quad = b.call("DOM.getBoxModel", nodeId=t)["model"]["content"]
                    width = quad[2] - quad[0]
                break
    finally:
        b.call("Emulation.setScriptExecutionDisabled", value=False)
    assert label and ">hot_func" in label, f"hot_function has no label without scripts: {label}"
    assert width > 20, f"hot_function's label is not drawn ({width} px wide)"
    return f"without scripts hot_function is labelled {label}, drawn {width:.0f} px wide"


def check(b, svg):
    """Each check on a freshly loaded page; every failure is told, not only the first."""
    b.call("Emulation.setDeviceMetricsOverride", width=1200, height=4000, deviceScaleFactor=1, mobile=False)
    failed = 0
    try:
        print(f"ok: {no_script_labels(b, svg)}")
    except AssertionError as e:
        print(f"FAIL: no_script_labels: {e}")
        failed += 1
    for test in (zoom_in, reset_zoom, caller_zooms_out, searches):
        b.load(svg)
        try:
            print(f"ok: {test(b, b.eval(FRAMES))}")
        except AssertionError as e:
            print(f"FAIL: {test.__name__}: {e}")
            failed += 1
    return 1 if failed else 0


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("check", "load"):
        print(__doc__)
        return 2
    b = Browser()
    try:
        if sys.argv[1] == "load":
            for svg in sys.argv[2:]:
                print(f"{svg}: {b.load(svg):.0f} ms")
        else:
            return check(b, sys.argv[2])
    finally:
        b.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
