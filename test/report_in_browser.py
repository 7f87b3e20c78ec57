#!/usr/bin/env python3
"""Open wal_stall_bench's report.html in headless Chromium, as a reader would.

    test/report_in_browser.py REPORT_HTML
    test/report_in_browser.py --self-test REPORT_HTML
    test/report_in_browser.py --screenshot OUT_PNG [--height PX] REPORT_HTML

Renders a copy of the report in Debian's `chromium` (headless, a window
1400 px wide and 800 px high) and prints TAP lines ("ok N - ..." /
"not ok N - ...", then "N passed, N failed"); exits non-zero on a failure:

  1. Chromium rendered the page and the check in it ran (exit status 0,
     the check's result in the dumped DOM);
  2. the page loaded without an error: no console message in Chromium's
     log (the report runs no script of its own, so any message there is
     the browser's complaint or a script that should not be there), no
     script error, unhandled rejection, console.error or console.warn, no
     element whose resource failed to load, and every image decoded;
  3. the page is 1400 px wide (what the positions below are measured in);
  4. the answer (the sentence at the top, `<p class="answer">`) lies whole
     within the first 800 px of the page;
  5. so does the verdict table (the first table under "Verdict by rounds").

How: a small script is put at the start of a copy's <head>.  It records
errors as they happen and, at the load event, measures the answer and the
table (getBoundingClientRect, plus the scroll offset: positions in the
page, whatever the window's height) and writes its findings as JSON into
an element of the DOM, which `chromium --dump-dom` prints.

--self-test checks REPORT_HTML as above, then copies of it with one fault
planted in each, every one of which must be caught: a script error, a
missing image, a console.error call, a block 900 px high above the answer,
and no answer (bench/t/e2e.sh runs this on a report of its own).

--screenshot writes a PNG of the first PX (default 1000) px of the page,
1400 px wide, to OUT_PNG (scripts/screenshot.sh).

Run as root, Chromium runs as the postgres account (with Chromium's own
sandbox as well): the copies of the page are in a private directory of
root's (mode 0711, the copies 0644), each run's profile, home and
temporary files in a directory of postgres's inside it, and what the
browser writes (its DOM on stdout, its log on stderr) comes through pipes;
the screenshot is read back by the postgres account, never by root through
a path that account controls.  Run as another account, Chromium runs as it.  Everything
is removed at exit.  Uses python3's standard library only.

Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
"""
import html
import json
import os
import pwd
import re
import shutil
import signal
import subprocess
import sys
import tempfile

WIDTH = 1400
HEIGHT = 800
TIMEOUT = 120
RESULT_ID = 'wsb-browser-check'
UNPRIVILEGED = 'postgres'

# Put at the start of the copy's <head>: it runs before anything of the
# page's own.
PROBE = r"""<script>
(function () {
  var problems = [];
  function short(s) { s = String(s); return s.length > 160 ? s.slice(0, 160) + '...' : s; }
  window.addEventListener('error', function (e) {
    var t = e.target;
    if (t && t !== window && t.tagName)
      problems.push('failed to load: <' + t.tagName.toLowerCase() + '> ' + short(t.src || t.href || ''));
    else
      problems.push('script error: ' + short(e.message));
  }, true);
  window.addEventListener('unhandledrejection', function (e) {
    problems.push('unhandled rejection: ' + short(e.reason));
  });
  ['error', 'warn'].forEach(function (level) {
    var original = console[level];
    console[level] = function () {
      problems.push('console.' + level + ': ' + short(Array.prototype.join.call(arguments, ' ')));
      return original.apply(console, arguments);
    };
  });
  function box(el) {
    if (!el)
      return null;
    var r = el.getBoundingClientRect();
    return { top: Math.round(r.top + window.scrollY), bottom: Math.round(r.bottom + window.scrollY),
             text: short(el.textContent.replace(/\s+/g, ' ').trim()) };
  }
  window.addEventListener('load', function () {
    Array.prototype.forEach.call(document.images, function (img) {
      if (!img.complete || img.naturalWidth === 0)
        problems.push('image not shown: ' + short(img.alt || img.src));
    });
    var table = null;
    Array.prototype.some.call(document.querySelectorAll('h2'), function (h) {
      if (h.textContent.trim() !== 'Verdict by rounds')
        return false;
      for (var e = h.nextElementSibling; e && e.tagName !== 'H2'; e = e.nextElementSibling)
        if (e.tagName === 'TABLE') { table = e; break; }
      return true;
    });
    var found = { width: window.innerWidth, problems: problems,
                  answer: box(document.querySelector('p.answer')), verdict_table: box(table) };
    var out = document.createElement('pre');
    out.id = '""" + RESULT_ID + r"""';
    out.hidden = true;
    out.textContent = JSON.stringify(found);
    document.body.appendChild(out);
  });
})();
</script>
"""

RESULT_RE = re.compile(r'<pre id="' + RESULT_ID + r'"[^>]*>(.*?)</pre>', re.S)
# Chromium's log line of a console message: "...:INFO:CONSOLE:12] "text",
# source: URL (12)" (older versions: "CONSOLE(12)")
CONSOLE_RE = re.compile(r':CONSOLE[:(]')


def with_probe(page):
    """The page with PROBE at the start of its <head> (or of the page)."""
    m = re.search(r'<head\b[^>]*>', page, re.I)
    if m:
        return page[:m.end()] + PROBE + page[m.end():]
    return PROBE + page


class Browser:
    """A private directory for the copies of pages and the browser's files."""

    def __init__(self):
        self.chromium = shutil.which('chromium')
        self.base = tempfile.mkdtemp(prefix='wsb_browser.')
        self.as_other = os.geteuid() == 0
        if self.as_other:
            self.pw = pwd.getpwnam(UNPRIVILEGED)
            # the other account reaches its own directories and the copies
            # (0644) here, and can list or change nothing else
            os.chmod(self.base, 0o711)
        self.n = 0

    def close(self):
        shutil.rmtree(self.base, ignore_errors=True)

    def _run(self, argv, stdout=subprocess.PIPE):
        """argv as the unprivileged account when root; (status, stdout, stderr)."""
        if self.as_other:
            argv = ['runuser', '-u', UNPRIVILEGED, '--'] + argv
        try:
            p = subprocess.Popen(argv, stdout=stdout, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                 start_new_session=True)
        except OSError as e:
            return None, b'', str(e).encode()
        try:
            out, err = p.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
            return None, out, err
        finally:
            # nothing of the browser's outlives the check
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return p.returncode, out, err

    def prepare(self, page):
        """A copy of the page's text, readable by the browser, and a home of
        the browser's own (a fresh profile per run); (file: URL, home)."""
        self.n += 1
        path = os.path.join(self.base, 'page%d.html' % self.n)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        with os.fdopen(fd, 'w', encoding='utf-8') as f:
            f.write(page)
        home = os.path.join(self.base, 'home%d' % self.n)
        os.mkdir(home, 0o700)
        if self.as_other:
            os.chown(home, self.pw.pw_uid, self.pw.pw_gid)
        return 'file://' + path, home

    def chromium_argv(self, home, height, *what):
        env = ['env', 'HOME=' + home, 'XDG_CONFIG_HOME=' + home + '/.config',
               'XDG_CACHE_HOME=' + home + '/.cache', 'TMPDIR=' + home]
        return env + [self.chromium, '--headless', '--user-data-dir=' + home + '/profile',
                      '--window-size=%d,%d' % (WIDTH, height), '--hide-scrollbars',
                      '--no-first-run', '--disable-background-networking', '--disable-component-update',
                      '--disable-sync', '--disable-extensions', '--disable-default-apps', '--mute-audio',
                      '--enable-logging=stderr', '--v=0'] + list(what)

    def render(self, prepared):
        """Dump the DOM of a prepared page; (status, findings or None, log lines)."""
        url, home = prepared
        status, out, err = self._run(self.chromium_argv(home, HEIGHT, '--dump-dom', url))
        log = err.decode('utf-8', 'replace').splitlines()
        m = None
        for m in RESULT_RE.finditer(out.decode('utf-8', 'replace')):
            pass
        found = json.loads(html.unescape(m.group(1))) if m else None
        return status, found, log

    def check(self, page):
        """Render the page with the probe; (status, findings or None, log lines)."""
        return self.render(self.prepare(with_probe(page)))

    def screenshot(self, page, height, out_png):
        url, home = self.prepare(page)
        shot = os.path.join(home, 'shot.png')
        status, _, err = self._run(self.chromium_argv(home, height, '--screenshot=' + shot, url))
        if status != 0:
            return status, err
        # read back by the account that wrote it
        with open(out_png, 'wb') as f:
            status, _, err2 = self._run(['cat', shot], stdout=f)
        return status, err + err2


class Tap:
    def __init__(self):
        self.n = self.passed = self.failed = 0

    def ok(self, good, what, notes=()):
        self.n += 1
        if good:
            self.passed += 1
            print('ok %d - %s' % (self.n, what))
        else:
            self.failed += 1
            print('not ok %d - %s' % (self.n, what))
            for line in notes:
                print('#   ' + line)
        sys.stdout.flush()

    def summary(self):
        print('%d passed, %d failed' % (self.passed, self.failed))
        return 0 if self.failed == 0 else 1


def problems_of(found, log):
    """Every error the page and the browser reported."""
    problems = ['console: ' + line.split('] ', 1)[-1] for line in log if CONSOLE_RE.search(line)]
    if found:
        problems += found['problems']
    return problems


def within(found, key):
    b = found and found.get(key)
    return bool(b) and b['top'] >= 0 and b['bottom'] <= HEIGHT


def where(found, key):
    b = found and found.get(key)
    return 'missing' if not b else 'at %d-%d px' % (b['top'], b['bottom'])


def check_report(tap, name, rendered):
    """The checks of a rendered report: (findings, problems)."""
    status, found, log = rendered
    # the browser's last words, less its complaints about the D-Bus a
    # headless machine does not run
    tail = [line for line in log if 'dbus' not in line.lower()][-8:]
    tap.ok(status == 0 and found is not None,
           '%s: rendered in headless Chromium, %d x %d, the check in the page ran' % (name, WIDTH, HEIGHT),
           ['status %s, %s' % (status, 'findings read' if found else 'no findings in the DOM')] + tail)
    problems = problems_of(found, log)
    tap.ok(found is not None and not problems,
           '%s: loads without a console message, a script error or a failed load' % name, problems[:10])
    tap.ok(found is not None and found['width'] == WIDTH,
           '%s: the page is %d px wide' % (name, WIDTH), ['window.innerWidth: %s' % (found and found['width'])])
    tap.ok(within(found, 'answer'),
           '%s: the answer is within the first %d px (%s)' % (name, HEIGHT, where(found, 'answer')),
           [(found and found.get('answer') or {}).get('text', 'no <p class="answer">')])
    tap.ok(within(found, 'verdict_table'),
           '%s: the verdict table is within the first %d px (%s)' % (name, HEIGHT, where(found, 'verdict_table')))
    return found, problems


def self_test(browser, tap, page):
    """Each planted fault must be caught; the report as it is must pass."""
    def planted(fault):
        return page.replace('<body>', '<body>' + fault, 1)

    cases = [
        ('a script error', planted('<script>wsb_no_such_function();</script>'), 'problem'),
        ('a missing image', planted('<img src="wsb_missing.png" alt="missing">'), 'problem'),
        ('a console.error call', planted('<script>console.error("planted");</script>'), 'problem'),
        ('a block 900 px high above the answer', planted('<div style="height:900px"></div>'), 'position'),
        ('no answer', page.replace('<p class="answer">', '<p>', 1), 'answer'),
    ]
    # one after another: a render is mostly the browser starting, which
    # keeps both of this machine's cores busy (side by side, the six took
    # as long)
    results = [browser.check(p) for p in [page] + [c[1] for c in cases]]
    _, problems = check_report(tap, 'report.html', results[0])
    for (what, _, kind), (status, found, log) in zip(cases, results[1:]):
        if kind == 'problem':
            caught = problems_of(found, log)
            tap.ok(status == 0 and found is not None and len(caught) > len(problems),
                   'self-test: %s is caught' % what, caught or ['nothing reported'])
        elif kind == 'position':
            tap.ok(found is not None and not within(found, 'answer') and not within(found, 'verdict_table'),
                   'self-test: %s pushes the answer (%s) and the verdict table (%s) out of the first %d px'
                   % (what, where(found, 'answer'), where(found, 'verdict_table'), HEIGHT))
        else:
            tap.ok(found is not None and not within(found, 'answer'),
                   'self-test: %s is caught (%s)' % (what, where(found, 'answer')))


def main(argv):
    mode = 'check'
    out_png = None
    height = 1000
    args = list(argv)
    rest = []
    while args:
        a = args.pop(0)
        if a == '--self-test':
            mode = 'self-test'
        elif a == '--screenshot' and args:
            mode, out_png = 'screenshot', args.pop(0)
        elif a == '--height' and args:
            height = int(args.pop(0))
        elif a in ('-h', '--help'):
            print(__doc__.split('\n\n')[1])
            return 0
        else:
            rest.append(a)
    if len(rest) != 1:
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        return 2
    with open(rest[0], encoding='utf-8') as f:
        page = f.read()

    # stopped (as by scripts/test.sh's time limit): the browser and the
    # directory go too
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    browser = Browser()
    try:
        if browser.chromium is None:
            if mode == 'screenshot':
                print('report_in_browser.py: no chromium on the PATH (scripts/setup.sh installs it)',
                      file=sys.stderr)
                return 1
            tap = Tap()
            tap.ok(False, 'chromium is on the PATH', ['scripts/setup.sh installs it'])
            return tap.summary()
        if mode == 'screenshot':
            status, err = browser.screenshot(page, height, out_png)
            if status != 0:
                sys.stderr.write(err.decode('utf-8', 'replace')[-2000:])
                print('report_in_browser.py: the screenshot failed (status %s)' % status, file=sys.stderr)
                return 1
            return 0
        tap = Tap()
        if mode == 'self-test':
            self_test(browser, tap, page)
        else:
            check_report(tap, 'report.html', browser.check(page))
        return tap.summary()
    finally:
        browser.close()


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
