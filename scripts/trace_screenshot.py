#!/usr/bin/env python3
"""Renders a Chrome trace (`xlite sched --trace t.json`) in the trace viewer
of chrome://tracing and saves a PNG: Catapult's `trace2html` embeds the trace
in the viewer's one-page HTML, headless Chromium loads it, the longest slice
is selected so its `args` (shape, op_name, source, flops, bytes) show in the
details pane, and DevTools takes the screenshot. Works offline (the Perfetto
UI needs the network).

Usage: scripts/trace_screenshot.py --catapult DIR TRACE.json OUT.png
       [--width 1400 --height 900] [--timeout 60]
DIR is a checkout of github.com/catapult-project/catapult (its tracing/ and
third_party/ folders). Chromium: `scripts/install-deps.sh browser`.
Exit 1 with a message when a step fails.
"""
import argparse
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

# Selects the longest slice in the loaded model; answers its title, or
# "loading" while the viewer is still importing.
SELECT_LONGEST = """(() => {
  const view = document.querySelector('tr-ui-timeline-view');
  if (!view || !view.model) return 'loading';
  let best = null;
  for (const thread of view.model.getAllThreads()) {
    for (const s of thread.sliceGroup.slices) if (!best || s.duration > best.duration) best = s;
  }
  if (!best) return 'no slices';
  view.brushingStateController.changeSelectionFromTimeline(new tr.model.EventSet([best]));
  return 'selected ' + best.title;
})()"""


class DevTools:
    """Chromium's DevTools protocol over --remote-debugging-pipe (fds 3, 4)."""

    def __init__(self, width, height):
        to_chrome, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()

        def wire():
            os.dup2(to_chrome, 3)
            os.dup2(from_chrome_w, 4)

        self.proc = subprocess.Popen(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             "--remote-debugging-pipe", f"--window-size={width},{height}", "about:blank"],
            pass_fds=(3, 4), preexec_fn=wire, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        os.close(to_chrome)
        os.close(from_chrome_w)
        self._pending = b""
        self._next_id = 0

    def call(self, method, params=None, session=None):
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self._pending:
                chunk = os.read(self._from_chrome, 1 << 20)
                if not chunk:
                    raise RuntimeError("Chromium closed the DevTools pipe")
                self._pending += chunk
            raw, self._pending = self._pending.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error'].get('message')}")
                return reply.get("result", {})

    def close(self):
        self.proc.kill()
        self.proc.wait()


def render(html, png, width, height, timeout):
    tools = DevTools(width, height)
    try:
        target = tools.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = tools.call("Target.attachToTarget",
                             {"targetId": target, "flatten": True})["sessionId"]
        tools.call("Page.navigate", {"url": "file://" + os.path.abspath(html)}, session)
        deadline = time.time() + timeout
        state = "loading"
        while state == "loading" and time.time() < deadline:
            time.sleep(1)
            state = tools.call("Runtime.evaluate", {"expression": SELECT_LONGEST,
                                                    "returnByValue": True},
                               session)["result"].get("value", "loading")
        if not state.startswith("selected"):
            raise RuntimeError(f"the trace viewer did not load the trace ({state})")
        time.sleep(2)  # the details pane draws on the next frames
        shot = tools.call("Page.captureScreenshot", {"format": "png"}, session)
        with open(png, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        return state
    finally:
        tools.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace")
    parser.add_argument("png")
    parser.add_argument("--catapult", required=True, help="a catapult-project/catapult checkout")
    parser.add_argument("--width", type=int, default=1400)
    parser.add_argument("--height", type=int, default=900)
    parser.add_argument("--timeout", type=float, default=60)
    args = parser.parse_args()
    if not os.path.isfile(args.trace):
        print(f"trace_screenshot: {args.trace}: no such file", file=sys.stderr)
        return 1
    trace2html = os.path.join(args.catapult, "tracing", "bin", "trace2html")
    if not os.path.isfile(trace2html):
        print(f"trace_screenshot: no tracing/bin/trace2html under {args.catapult}", file=sys.stderr)
        return 1
    if shutil.which("chromium") is None:
        print("trace_screenshot: chromium is not installed (scripts/install-deps.sh browser)",
              file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as work:
        html = os.path.join(work, "trace.html")
        made = subprocess.run([sys.executable, trace2html, args.trace, "--output", html],
                              capture_output=True, text=True)
        if made.returncode != 0:
            print(f"trace_screenshot: trace2html failed: {made.stderr.strip()[-500:]}",
                  file=sys.stderr)
            return 1
        try:
            state = render(html, args.png, args.width, args.height, args.timeout)
        except (RuntimeError, OSError) as e:
            print(f"trace_screenshot: {e}", file=sys.stderr)
            return 1
    print(f"trace_screenshot: wrote {args.png} ({state})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
