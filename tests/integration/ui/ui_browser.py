#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Drive prof ui's page in a real headless Chromium (flamegraph_browser.py's
Browser: the DevTools protocol on a pipe, no network port, no extra module).

  ui_browser.py URL SCREENSHOT.PNG FUNCTION [GREW]
  ui_browser.py measure URL [N]     (bench/ui) one JSON line: the first view's ms and
                                    bytes, N window changes' ms (default 10)

The timeline draws; a drag over its first half selects a window, whose flame graph
holds fewer samples, as /api/top says for that window; a search for FUNCTION
highlights it and gives its share; the numbers the page shows are the API's.  With
GREW (and a second source where that function grew): a click on FUNCTION in the
table shows its callers and callees, a group's row filters, and the diff of the two
sources draws GREW red (a second screenshot, SCREENSHOT-diff.png).
Prints the page's own performance.now() timings and the bytes of the first view.
Exit 0 on success, 1 on a failed check, 77 without Chromium."""
import base64, json, os, sys, time, urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from flamegraph_browser import Browser   # noqa: E402

W, H = 1280, 900


def wait(b, expr, what, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = b.eval(expr)
        if v:
            return v
        time.sleep(0.05)
    shown = b.eval("document.getElementById('msg').textContent")
    raise AssertionError(f"timed out waiting for {what}: {shown}")


def api_text(url, path):
    base, token = url.split("/?token=")
    sep = "&" if "?" in path else "?"
    with urllib.request.urlopen(f"{base}{path}{sep}token={token}") as r:
        return r.read().decode()


def api(url, path):
    return json.loads(api_text(url, path))


def drag(b, selector, x0, x1):
    r = b.eval(f"(() => {{ const b = document.querySelector({json.dumps(selector)}).getBoundingClientRect();"
               " return [b.x, b.y, b.width, b.height]; })()")
    y = r[1] + r[3] / 2
    b.call("Input.dispatchMouseEvent", type="mousePressed", x=r[0] + x0 * r[2], y=y, button="left", clickCount=1)
    for k in range(1, 6):
        b.call("Input.dispatchMouseEvent", type="mouseMoved", x=r[0] + (x0 + (x1 - x0) * k / 5) * r[2], y=y,
               button="left", buttons=1)
    b.call("Input.dispatchMouseEvent", type="mouseReleased", x=r[0] + x1 * r[2], y=y, button="left", clickCount=1)


def painted(b, canvas):
    """How many pixels of the canvas are not blank."""
    return b.eval(f"(() => {{ const c = document.getElementById({json.dumps(canvas)}), g = c.getContext('2d'),"
                  " d = g.getImageData(0, 0, c.width, c.height).data; let n = 0;"
                  " for (let i = 3; i < d.length; i += 4) n += d[i] > 0; return n; })()")


def click_el(b, expr):
    """A real click in the middle of the element expr gives (scrolled into view)."""
    r = b.eval(f"(() => {{ const e = {expr}; if (!e) return null; e.scrollIntoView({{block: 'center'}});"
               " const b = e.getBoundingClientRect(); return [b.x + b.width / 2, b.y + b.height / 2]; })()")
    assert r, f"nothing to click: {expr}"
    b.click(r[0], r[1])


def views(b, url, shot, func, grew):
    """The sandwich of func, a group's filter, and the diff of the two sources, in
    which the function grew is drawn red."""
    lo_ns, hi_ns = b.eval("win")
    top = api(url, f"/api/top?from={lo_ns}&until={hi_ns}")
    want = next(r["total"] for r in top["rows"] if r["sym"] == func)
    click_el(b, "[...document.querySelectorAll('#top tbody tr')].find(tr => tr.cells[0].textContent === "
             + json.dumps(func) + ")")
    wait(b, "profUi.sandwich && profUi.sandwich.sym === " + json.dumps(func), "the sandwich")
    sw = b.eval("profUi.sandwich")
    assert sw["total"] == want == sw["callers"][1] == sw["callees"][1], (sw["total"], want)
    assert painted(b, "swc") > 500 and painted(b, "swe") > 500, "the sandwich is blank"
    print(f"ok: a click on {func} in the table shows its callers and callees ({want} samples)")

    b.eval("(() => { const g = document.getElementById('gk'); g.value = 'comm'; g.dispatchEvent(new Event('change')); })()")
    wait(b, "profUi.groups && profUi.groups.key === 'comm'", "the groups")
    g = b.eval("profUi.groups")
    assert g["total"] == b.eval("profUi.total") and sum(r["samples"] for r in g["rows"]) == g["total"], g
    row = g["rows"][0]
    n = len(b.eval("profUi.windows"))
    click_el(b, "document.querySelector('#groups tbody tr')")
    wait(b, f"profUi.windows.length > {n} && document.getElementById('status').textContent.indexOf('filtered') > 0",
         "the filter")
    assert b.eval("profUi.total") == row["samples"], (b.eval("profUi.total"), row)
    click_el(b, "document.querySelector('#filters .chip')")
    wait(b, "document.getElementById('status').textContent.indexOf('filtered') < 0 && "
         "document.getElementById('status').textContent.indexOf('ms') > 0", "the filter dropped")
    print(f"ok: grouped by command, a click keeps {row['value']}'s {row['samples']} samples; dropped again")

    # the diff: the first source whole is A, the second (where grew grew) is B
    click_el(b, "document.getElementById('all')")
    wait(b, "document.getElementById('win').textContent === 'whole source' && "
         "document.getElementById('status').textContent.indexOf('ms') > 0", "the whole source")
    click_el(b, "document.getElementById('markA')")
    wait(b, "profUi.diff", "the diff")
    b.eval("(() => { const s = document.getElementById('src'); s.value = '1'; s.dispatchEvent(new Event('change')); })()")
    wait(b, "profUi.diff && src === 1 && document.getElementById('status').textContent.indexOf('ms') > 0", "the diff of two files")
    d = b.eval("profUi.diff")
    assert d["total_a"] == api(url, "/api/top?src=0")["total"] and d["total_b"] == api(url, "/api/top?src=1")["total"], d
    b.eval("document.getElementById('fg').scrollIntoView()")
    box = b.eval("(() => { const r = rects.filter(r => r[3].name === " + json.dumps(grew) + ").sort((a, b) => b[2] - a[2])[0];"
                 " if (!r) return null; const c = document.getElementById('fg'), g = c.getContext('2d'),"
                 " p = g.getImageData(Math.floor(r[0] + r[2] / 2), Math.floor(r[1] + 8), 1, 1).data;"
                 " return [deltaOf(r[3], profUi.diff), p[0], p[1], p[2], r[3].a, r[3].value]; })()")
    assert box, f"no {grew} drawn in the diff"
    assert box[0] > 0 and box[1] == 255 and box[2] == box[3] < 200, f"{grew} is not marked as grown: {box}"
    shrank = b.eval("(() => { const r = rects.filter(r => r[3].name === " + json.dumps(func) + ").sort((a, b) => b[2] - a[2])[0];"
                    " return r && deltaOf(r[3], profUi.diff); })()")
    print(f"ok: the diff of the two files draws {grew} red (+{100 * box[0]:.1f} points: {box[4]} -> {box[5]} samples;"
          f" {func} {100 * (shrank or 0):+.1f} points)")
    b.eval("window.scrollTo(0, 0)")
    shot_b64 = b.call("Page.captureScreenshot", format="png")["data"]
    with open(shot.replace(".png", "-diff.png"), "wb") as f:
        f.write(base64.b64decode(shot_b64))


def main():
    url, shot, func = sys.argv[1:4]
    grew = sys.argv[4] if len(sys.argv) > 4 else None
    b = Browser()
    try:
        b.call("Emulation.setDeviceMetricsOverride", width=W, height=H, deviceScaleFactor=1, mobile=False)
        b.events.clear()
        b.call("Page.navigate", url=url)
        wait(b, "window.profUi && profUi.ready", "the first view")
        first = b.eval("profUi.firstView")
        whole = api(url, "/api/top")
        src = api(url, "/api/sources")["sources"][0]
        assert b.eval("profUi.total") == whole["total"] == src["samples"] > 0, "the page's total is not the API's"
        assert b.eval("profUi.timelineBars") == len(src["counts"]), "the timeline has not one bar per bucket"
        assert painted(b, "tl") > 500, "the timeline is blank"
        assert painted(b, "fg") > 5000 and b.eval("profUi.drawn") > 3, "the flame graph is blank"
        rows = b.eval("document.querySelectorAll('#top tbody tr').length")
        shown = api(url, "/api/top?limit=300")
        assert rows == len(shown["rows"]) and shown["functions"] == len(whole["rows"]), \
            f"{rows} rows in the table, {len(shown['rows'])} in /api/top?limit=300"
        assert b.eval("flame.value") == whole["total"], "the flame graph's root is not the total"
        print(f"ok: the timeline draws ({len(src['counts'])} bars), the flame graph and the table of "
              f"{whole['total']} samples")

        # a drag over the first half of the timeline: the window's numbers
        drag(b, "#tl", 0.02, 0.5)
        wait(b, "profUi.windows.length >= 2 && document.getElementById('status').textContent.indexOf('ms') > 0",
             "the window")
        n = len(src["counts"])
        lo, hi = round(0.02 * n - 0.5), round(0.5 * n + 0.5)
        t = b.eval("[profUi.total, document.getElementById('win').textContent]")
        assert 0 < t[0] < whole["total"], f"the window has {t[0]} of {whole['total']} samples"
        expect = sum(src["counts"][max(lo - 1, 0):hi + 1])
        assert sum(src["counts"][lo + 1:hi - 1]) <= t[0] <= expect, \
            f"the window's {t[0]} samples are not its bars' ({expect})"
        assert t[0] == b.eval("flame.value"), "the flame graph's root is not the window's total"
        lo_ns, hi_ns = b.eval("win")
        folded = api_text(url, f"/api/folded?from={lo_ns}&until={hi_ns}")
        assert t[0] == sum(int(l.rsplit(" ", 1)[1]) for l in folded.splitlines()), \
            "the window's total is not its folded stacks'"
        win_ms = b.eval("profUi.windows[profUi.windows.length - 1]")
        print(f"ok: a drag selects a window ({t[1]}): its flame graph holds {t[0]} of {whole['total']} samples")

        # the search highlights the function and gives its share
        b.eval("(() => { const q = document.getElementById('q'); q.focus(); q.value = ''; })()")
        b.call("Input.insertText", text=func)
        wait(b, "profUi.share !== null", "the search")
        share = b.eval("profUi.share")
        matched = b.eval("profUi.matched")
        assert func in matched, f"{func} not among the matches {matched}"
        assert 0.5 < share["samples"] / share["total"] <= 1, f"{func}'s share is {share}"
        lines = [l.rsplit(" ", 1) for l in folded.splitlines()]
        want = sum(int(n) for stack, n in lines if func in stack)
        assert share["samples"] == want and share["total"] == t[0], \
            f"the share {share} is not the folded stacks' ({want} of {t[0]})"
        magenta = b.eval("(() => { const c = document.getElementById('fg'), d = c.getContext('2d')"
                         ".getImageData(0, 0, c.width, c.height).data; let n = 0;"
                         " for (let i = 0; i < d.length; i += 4) n += d[i] == 0xee && d[i+1] == 0 && d[i+2] == 0xee;"
                         " return n; })()")
        assert magenta > 1000, f"the search highlights {magenta} pixels"
        text = b.eval("document.getElementById('share').textContent")
        assert f"{share['samples']} of {share['total']}" in text, text
        print(f"ok: a search for {func} highlights it: {text}")

        shot_b64 = b.call("Page.captureScreenshot", format="png")["data"]
        with open(shot, "wb") as f:
            f.write(base64.b64decode(shot_b64))

        # a click on the function's frame zooms into it
        b.eval("document.getElementById('fg').scrollIntoView()")
        box = b.eval("(() => { const r = rects.filter(r => r[3].name === " + json.dumps(func) +
                     ").sort((a, b) => b[2] - a[2])[0], c = document.getElementById('fg').getBoundingClientRect();"
                     " return r && [c.x + 1 + r[0] + r[2] / 2, c.y + 1 + r[1] + 8, r[2], document.getElementById('fg').clientWidth]; })()")
        assert box, f"no frame {func} drawn"
        b.click(box[0], box[1])
        z = b.eval("(() => { const r = rects.filter(r => r[3].name === " + json.dumps(func) +
                   ").sort((a, b) => b[2] - a[2])[0]; return [zoom && zoom.name, r[2]]; })()")
        assert z[0] == func and abs(z[1] - box[3]) < 2, f"the click did not zoom into {func}: {z}"
        print(f"ok: a click zooms into {func}")

        if grew:
            views(b, url, shot, func, grew)

        weight = b.eval("(() => { const n = performance.getEntriesByType('navigation')[0];"
                        " let t = n.transferSize, d = n.decodedBodySize;"
                        " for (const r of performance.getEntriesByType('resource'))"
                        "  if (!/[?&]from=/.test(r.name)) { t += r.transferSize; d += r.decodedBodySize; }"
                        " return [t, d]; })()")
        errs = b.exceptions()
        assert not errs, f"the page threw: {errs[0]}"
        print(f"# first view {first:.0f} ms (page's performance.now()), window change {win_ms:.0f} ms; "
              f"first view {weight[0]} bytes transferred ({weight[1]} of bodies)")
    finally:
        b.close()


def measure():
    url, n = sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 10
    b = Browser()
    try:
        b.call("Emulation.setDeviceMetricsOverride", width=W, height=H, deviceScaleFactor=1, mobile=False)
        b.call("Page.navigate", url=url)
        wait(b, "window.profUi && profUi.ready", "the first view", timeout=600)
        first = b.eval("profUi.firstView")
        weight = b.eval("(() => { const n = performance.getEntriesByType('navigation')[0]; let t = n.transferSize;"
                        " for (const r of performance.getEntriesByType('resource')) t += r.transferSize;"
                        " return t; })()")
        total = b.eval("profUi.total")
        wins = []
        for k in range(n):
            a = 0.05 + 0.4 * k / max(n, 1)
            drag(b, "#tl", a, a + 0.3 + 0.02 * k)
            wait(b, f"profUi.windows.length >= {k + 2} && "
                 "document.getElementById('status').textContent.indexOf('ms') > 0", "a window", timeout=600)
            wins.append(b.eval("profUi.windows[profUi.windows.length - 1]"))
        print(json.dumps({"first_view_ms": first, "first_view_bytes": weight, "window_ms": wins,
                          "samples": total}))
    finally:
        b.close()


if __name__ == "__main__":
    try:
        measure() if sys.argv[1] == "measure" else main()
    except AssertionError as e:
        print(f"FAIL: {e}")
        sys.exit(1)
