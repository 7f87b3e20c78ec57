#!/usr/bin/env python3
"""Check that the docs' package names, presets and run order match the tree.

    scripts/check_docs.py [--root DIR]
    scripts/check_docs.py --self-test

What the docs say against what the tree holds:

  packages   every Debian package name the docs write (a word with
             "wal-stall" in it) is debian/control.in's source or one of its
             binary packages (postgresql-PGVERSION-wal-stall may be written
             with NN or a major of debian/pgversions' range), and every
             package file or version written NAME_VERSION (such as
             postgresql-15-wal-stall_1.0-1_amd64.deb) has debian/changelog's
             version;
  presets    every preset the docs name (--preset NAME, presets/NAME.conf,
             the preset tables of bench/README.md and wal_stall_bench.1) is a
             file bench/presets/NAME.conf, both tables list every preset,
             and what a line says a preset compares is in its file: the
             values of a setting it lists ("wal_buffers 32kB vs 1MB",
             "shared_buffers 512MB, 32MB, 64MB"; a word value only when the
             file has it), its rounds, run length, margin, budget, slowed
             disk, clients and scale; a --set or --FLAG on the line is an
             override, not a claim;
  layout     README.md reaches its Install section within its first 60
             lines, is at most 15 KB (15,360 bytes) and has its sections in
             a newcomer's order (Install, Quick start, What it shows, The
             harness, the history only after them); bench/README.md is at
             most 400 lines;
  run order  no doc, man page or text of the harness (bench/*.c, *.h and
             the golden output) claims an order the plan does not make: the
             runs go in rounds, each in an order shuffled afresh, so a
             configuration can run twice in a row, and "A B C A B C",
             "never back to back", "interleaved order" or "round-robin" are
             wrong.

Checked: every markdown file check_links.py checks, bench/wal_stall_bench.1,
and for the run order also bench/*.c, bench/*.h and bench/t/golden/expected.
CHANGELOG.md and docs/studies/ tell what was, so only their package names
are checked.  Prints one TAP line per check and "N passed, N failed"; exits
non-zero on a mismatch.  --self-test builds a small tree, checks that it
passes, then plants one wrong name or claim at a time and checks that each
is found.

Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
"""
import glob
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

WRONG_ORDER = [
    (re.compile(r'\bA B C A B C\b'), 'a fixed cycle "A B C A B C"'),
    (re.compile(r'\bnever (?:one configuration )?back[- ]to[- ]back', re.I), '"never back to back"'),
    (re.compile(r'\binterleaved order\b', re.I), '"interleaved order"'),
    (re.compile(r'\bround[- ]robin\b', re.I), '"round-robin"'),
]
# a setting's value as the docs write it: a number with its unit, on/off,
# a quoted string, or one of the words the preset's file gives it
NUMBER = (r"(?:'[^'\n]*'|-?\d+(?:\.\d+)?(?:kB|MB|GB|TB|ms|s|min|h)?\b"
          r"(?!\s*(?:rounds?\b|runs?\b|s\b|x\b|clients\b|IOPS\b|MB/s|minutes?\b|-minute|%))|on\b|off\b)")
SEP = r'(?:,\s*(?:and\s+|or\s+)?|\s+(?:vs\.?|against|and|or|to)\s+|\.\.)'
BASELINE = r'(?:\s*\((?:the )?baseline\))?'


def load_check_links():
    sys.dont_write_bytecode = True     # no __pycache__ left in the tree
    spec = importlib.util.spec_from_file_location('check_links', os.path.join(HERE, 'check_links.py'))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# ---------- the tree's truth

def changelog_version(root):
    with open(os.path.join(root, 'debian/changelog'), encoding='utf-8') as f:
        m = re.match(r'^(\S+) \(([^)]+)\)', f.readline())
    if not m:
        raise SystemExit('Bail out! debian/changelog: no "SOURCE (VERSION)" first line')
    return m.group(1), m.group(2)


def control_packages(root):
    """The binary packages of debian/control.in, PGVERSION as a pattern."""
    path = os.path.join(root, 'debian/control.in')
    if not os.path.exists(path):
        path = os.path.join(root, 'debian/control')
    with open(path, encoding='utf-8') as f:
        return re.findall(r'^Package:\s*(\S+)', f.read(), re.M)


def supported_majors(root):
    """The majors debian/pgversions allows ("13+", "15", ...), as a test."""
    try:
        with open(os.path.join(root, 'debian/pgversions'), encoding='utf-8') as f:
            lines = [l.strip() for l in f if l.strip() and not l.startswith('#')]
    except FileNotFoundError:
        return lambda n: True
    tests = []
    for l in lines:
        if l.endswith('+'):
            tests.append(lambda n, lo=int(l[:-1]): n >= lo)
        elif l.isdigit():
            tests.append(lambda n, v=int(l): n == v)
    return lambda n: any(t(n) for t in tests)


def read_preset(path):
    """A preset file's keys: set lines as {guc: [values]}, the rest as text."""
    p = {'sets': {}, 'conf': []}
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith('#') or '=' not in line:
                continue
            key, _, val = line.partition('=')
            key, val = key.strip(), val.strip()
            if key in ('set', 'set_from_17'):
                guc, _, values = val.partition('=')
                p['sets'].setdefault(guc.strip(), []).extend(split_values(values))
            elif key == 'conf':
                p['conf'].append(val)
            elif key == 'optional_library':
                # one more value of the shared_preload_libraries set when installed
                p['sets'].setdefault('shared_preload_libraries', []).append(norm_value(val))
            else:
                p[key] = val
    return p


def split_values(values):
    """V1,V2,... as --set reads them: a quoted value may hold a comma."""
    out, cur, quoted = [], '', False
    for c in values:
        if c == "'":
            quoted = not quoted
            cur += c
        elif c == ',' and not quoted:
            out.append(cur.strip())
            cur = ''
        else:
            cur += c
    out.append(cur.strip())
    return [norm_value(v) for v in out]


def norm_value(v):
    v = v.strip()
    if len(v) >= 2 and v[0] == v[-1] == "'":
        v = v[1:-1]
    return v


def presets_of(root):
    """{name: its file's keys} of every bench/presets/NAME.conf."""
    return {os.path.basename(p)[:-5]: read_preset(p)
            for p in sorted(glob.glob(os.path.join(root, 'bench/presets/*.conf')))}


# ---------- the docs' text

def troff_to_text(text):
    """wal_stall_bench.1 as lines of plain text, line for line: font macros
    joined as they print, requests dropped, escapes resolved."""
    out = []
    for line in text.split('\n'):
        if line.startswith('.\\"'):
            out.append('')
            continue
        m = re.match(r'^\.(B|I|BI|IB|BR|RB|IR|RI|SH|SS)\s*(.*)$', line)
        if m:
            args = re.findall(r'"[^"]*"|\S+', m.group(2))
            args = [a.strip('"') for a in args]
            line = (' ' if m.group(1) in ('B', 'I', 'SH', 'SS') else '').join(args)
        elif line.startswith('.'):
            line = '\x00' + line   # a request: kept as a marker for the preset list
        line = line.replace('\\-', '-').replace("\\(aq", "'").replace('\\(en', '-')
        line = line.replace('\\e', '\\')
        line = re.sub(r'\\f[BIRP]', '', line)
        out.append(line)
    return out


def doc_files(root, links):
    """(path, kind) of every doc: 'md' (those check_links.py checks) or 'man'."""
    files = [(p, 'md') for p in links.markdown_files(root)]
    man = os.path.join(root, 'bench/wal_stall_bench.1')
    if os.path.exists(man):
        files.append((man, 'man'))
    return files


def is_history(root, path):
    """CHANGELOG.md and docs/studies/ tell what was true when written."""
    rel = os.path.relpath(path, root)
    return rel == 'CHANGELOG.md' or rel.startswith('docs/studies' + os.sep)


def doc_lines(path, kind):
    with open(path, encoding='utf-8', errors='replace') as f:
        text = f.read()
    if kind == 'man':
        return troff_to_text(text)
    return text.split('\n')


# ---------- the checks

class Tap:
    def __init__(self):
        self.n = self.failed = 0

    def ok(self, good, what, why=()):
        self.n += 1
        print('%s %d - %s' % ('ok' if good else 'not ok', self.n, what))
        if not good:
            self.failed += 1
            for w in why:
                print('#   %s' % w)


def check_packages(root, docs, tap):
    source, version = changelog_version(root)
    packages = control_packages(root)
    majors = supported_majors(root)
    wrong_name, wrong_version, seen_files = [], [], 0

    def known(name):
        if name == source or name in packages:
            return True
        for p in packages:
            if 'PGVERSION' in p:
                pat = re.escape(p).replace('PGVERSION', r'(NN|\d+)')
                m = re.fullmatch(pat, name)
                if m and (m.group(1) == 'NN' or majors(int(m.group(1)))):
                    return True
        return False

    for path, kind in docs:
        rel = os.path.relpath(path, root)
        for n, line in enumerate(doc_lines(path, kind), 1):
            for m in re.finditer(r'(?<![\w@-])((?:[a-z0-9]+-)*wal-stall(?:-[a-z0-9]+)*)(?:_([0-9][0-9A-Za-z.+~-]*))?', line):
                name, ver = m.group(1), m.group(2)
                if not known(name):
                    wrong_name.append('%s:%d: %s is no package of debian/control.in (%s)'
                                      % (rel, n, name, ', '.join([source] + packages)))
                if ver is not None and not is_history(root, path):
                    seen_files += 1
                    if ver != version:
                        wrong_version.append('%s:%d: %s_%s: debian/changelog is at %s'
                                             % (rel, n, name, ver, version))
    tap.ok(not wrong_name, 'packages: every package name in the docs is one of debian/control.in', wrong_name)
    tap.ok(not wrong_version, 'packages: the %d package files and versions in the docs are at %s (debian/changelog)'
           % (seen_files, version), wrong_version)


def preset_mentions(lines, names):
    """(line number, preset, text it governs) of each mention of a preset
    in running text: --preset NAME, presets/NAME.conf, "the NAME preset";
    the text runs from the mention to the next mention or the line's end."""
    pat = re.compile(r'--preset[ =]+([a-z][a-z0-9_]*)\b|presets/([a-z][a-z0-9_]*)\.conf\b'
                     r'|\b([a-z][a-z0-9_]*) preset\b')
    out = []
    for n, line in enumerate(lines, 1):
        line = line.replace('`', '')
        found = [m for m in pat.finditer(line)
                 if m.group(1) or m.group(2) or m.group(3) in names]
        for i, m in enumerate(found):
            end = found[i + 1].start() if i + 1 < len(found) else len(line)
            name = m.group(1) or m.group(2) or m.group(3)
            out.append((n, name, line[m.end():end], bool(m.group(1) or m.group(2))))
    return out


def readme_table(lines):
    """(line, preset, text) of the rows of bench/README.md's preset table."""
    out, on = [], False
    for n, line in enumerate(lines, 1):
        if line.startswith('## '):
            on = line.startswith('## Presets')
            continue
        m = re.match(r'^\|\s*`([a-z][a-z0-9_]*)`\s*\|(.*)\|\s*$', line)
        if on and m:
            out.append((n, m.group(1), m.group(2).replace('`', '')))
    return out


def man_table(lines):
    """(line, preset, text) of wal_stall_bench.1's "The presets shipped" list:
    a .TP, then the name in bold, then its text until the next request."""
    out, on = [], False
    i = 0
    while i < len(lines):
        line = lines[i]
        if 'presets shipped' in line:
            on = True
        elif on and line.startswith('\x00.SH'):
            break
        elif on and line == '\x00.TP' and i + 1 < len(lines):
            name = lines[i + 1].strip()
            text, j = [], i + 2
            while j < len(lines) and not lines[j].startswith('\x00'):
                text.append(lines[j])
                j += 1
            out.append((i + 2, name, ' '.join(text)))
            i = j
            continue
        i += 1
    return out


def claims_wrong(preset, text):
    """What the text says of the preset that its file does not."""
    wrong = []
    text = text.replace('`', '')
    for guc, values in preset['sets'].items():
        words = [re.escape(v) + r'\b' for v in values if re.fullmatch(r'[a-z][a-z_]*', v)]
        value = '(?:%s)' % '|'.join([NUMBER] + words)
        item = value + BASELINE
        # a --set on the command line overrides the file: not a claim about it
        for m in re.finditer(r'(?<!--set )(?<!--set=)\b%s\b\s*=?\s*(%s(?:%s%s)+)' % (re.escape(guc), item, SEP, item), text):
            said = [norm_value(re.sub(BASELINE, '', v)) for v in re.split(SEP, m.group(1))]
            extra = [v for v in said if v not in values]
            if extra:
                wrong.append("%s %s: %s not among the file's %s"
                             % (guc, m.group(1).strip(), ', '.join(extra), ','.join(values)))
    figures = [
        (r'\b(\d+) rounds\b|\b(\d+) runs of\b', 'runs', '3', 'rounds'),
        (r'\b(\d+) s runs\b|\bruns of (\d+) s\b', 'duration', '30', 'seconds a run'),
        (r'\b(\d+)-minute runs\b', 'duration_min', None, 'minutes a run'),
        (r'\bmargin (\d+)%', 'margin', '5', 'margin'),
        (r'\bbudget (\d+[smh])\b', 'budget', None, 'budget'),
        (r'\b(\d+) (?:write )?IOPS\b', 'slow_wal', None, 'IOPS'),
        (r'\b(\d+) MB/s\b', 'slow_wal_mbps', None, 'MB/s'),
        (r'\b(\d+) clients\b', 'clients', '4', 'clients'),
        (r'\bscale (\d+)\b', 'scale', '10', 'scale'),
    ]
    for rx, key, default, what in figures:
        for m in re.finditer(rx, text):
            if text[:m.start()].endswith('--'):
                continue        # --budget 20m, --margin 20: a flag overriding the file
            said = [g for g in m.groups() if g is not None]
            if key == 'duration_min':
                have = str(int(preset.get('duration', '0')) // 60) if preset.get('duration') else None
            else:
                have = preset.get(key, default)
            if have is None or said[0] != have:
                wrong.append('%s: "%s", the file says %s' % (what, m.group(0), have if have is not None else 'none'))
    return wrong


def check_presets(root, docs, tap):
    presets = presets_of(root)
    names = set(presets)
    unknown, wrong = [], []
    tables = {}
    for path, kind in docs:
        if is_history(root, path):
            continue
        rel = os.path.relpath(path, root)
        lines = doc_lines(path, kind)
        entries = [(n, name, text, True) for n, name, text in
                   (readme_table(lines) if rel == os.path.join('bench', 'README.md') else
                    man_table(lines) if kind == 'man' else [])]
        if rel == os.path.join('bench', 'README.md') or kind == 'man':
            tables[rel] = set(name for _, name, _, _ in entries)
        entries += preset_mentions(lines, names)
        for n, name, text, named in entries:
            if name not in names:
                if named:
                    unknown.append('%s:%d: preset "%s": no bench/presets/%s.conf' % (rel, n, name, name))
                continue
            for w in claims_wrong(presets[name], text):
                wrong.append('%s:%d: %s: %s' % (rel, n, name, w))
    tap.ok(not unknown, 'presets: every preset the docs name is a file of bench/presets (%s)'
           % ', '.join(sorted(names)), unknown)
    for rel in (os.path.join('bench', 'README.md'), os.path.join('bench', 'wal_stall_bench.1')):
        have = tables.get(rel, set())
        tap.ok(have == names, "presets: %s's preset list names every preset file, and no other" % rel,
               ['missing: %s' % ', '.join(sorted(names - have))] * bool(names - have) +
               ['no file: %s' % ', '.join(sorted(have - names))] * bool(have - names))
    tap.ok(not wrong, 'presets: what the docs say each preset compares is in its file', wrong)


def check_run_order(root, docs, tap):
    files = [(p, k) for p, k in docs if not is_history(root, p)]
    files += [(p, 'text') for p in sorted(glob.glob(os.path.join(root, 'bench/*.[ch]')))]
    files += [(p, 'text') for p in sorted(glob.glob(os.path.join(root, 'bench/t/golden/expected/*')))
              if os.path.isfile(p)]
    wrong = []
    for path, kind in files:
        rel = os.path.relpath(path, root)
        lines = doc_lines(path, kind)
        for n, line in enumerate(lines, 1):
            for rx, what in WRONG_ORDER:
                if rx.search(line):
                    wrong.append('%s:%d: %s: every round runs in an order shuffled afresh '
                                 '(bench/plan.c, wsb_round_order)' % (rel, n, what))
    tap.ok(not wrong, 'run order: no doc or text of the harness claims an order other than '
           'rounds shuffled afresh (%d files)' % len(files), wrong)


README_ORDER = ['Install', 'Quick start', 'What it shows', 'The harness']


def check_layout(root, tap):
    with open(os.path.join(root, 'README.md'), encoding='utf-8') as f:
        readme = f.read()
    lines = readme.split('\n')
    heads = [(n, l[3:].strip()) for n, l in enumerate(lines, 1) if l.startswith('## ')]
    install = [n for n, h in heads if h == 'Install']
    tap.ok(install and install[0] <= 60, 'layout: README.md reaches Install within its first 60 lines',
           ['its "## Install" is at line %s' % (install[0] if install else 'none')])
    size = len(readme.encode('utf-8'))
    tap.ok(size <= 15 * 1024, 'layout: README.md is at most 15 KB (%d bytes)' % size)
    # the history (Why, History) may follow them, never come first
    order = [w for _, h in heads for w in README_ORDER + ['Why', 'History'] if h.startswith(w)]
    order = [w if w in README_ORDER else 'history' for w in order]
    tap.ok(order[:len(README_ORDER)] == README_ORDER and set(order[len(README_ORDER):]) <= {'history'},
           "layout: README.md's sections come in a newcomer's order: %s, then the history"
           % ', '.join(README_ORDER),
           ['its sections: %s' % ', '.join(h for _, h in heads)])
    with open(os.path.join(root, 'bench/README.md'), encoding='utf-8') as f:
        n = len(f.read().rstrip('\n').split('\n'))
    tap.ok(n <= 400, 'layout: bench/README.md is at most 400 lines (%d)' % n)


def run(root):
    links = load_check_links()
    docs = doc_files(root, links)
    tap = Tap()
    check_packages(root, docs, tap)
    check_presets(root, docs, tap)
    check_run_order(root, docs, tap)
    check_layout(root, tap)
    print('1..%d' % tap.n)
    print('%d passed, %d failed' % (tap.n - tap.failed, tap.failed))
    return 1 if tap.failed else 0


# ---------- --self-test

FIXTURE = {
    'debian/changelog': 'wal-stall (2.1-1) unstable; urgency=medium\n\n  * 2.1.\n',
    'debian/control.in': 'Source: wal-stall\n\nPackage: postgresql-PGVERSION-wal-stall\n\nPackage: wal-stall-bench\n',
    'debian/pgversions': '13+\n',
    'bench/presets/quick.conf': '# quick\nset = wal_buffers=32kB,1MB\nslow_wal = 100\nslow_wal_mbps = 4\n'
                                'runs = 3\nduration = 10\nmargin = 10\nbudget = 2m\n',
    'bench/presets/overhead.conf': "set = shared_preload_libraries='',wal_stall\nruns = 5\n",
    'README.md': '# t\n\n## Install\n\n```sh\napt-get install ./postgresql-15-wal-stall_2.1-1_amd64.deb ./wal-stall-bench_2.1-1_amd64.deb\n'
                 'scripts/demo.sh     # the quick preset: wal_buffers 32kB vs 1MB, 3 rounds of 10 s runs, margin 10%\n```\n\n'
                 'One `postgresql-NN-wal-stall` per major; `scripts/demo.sh --preset overhead` runs 5 rounds.\n'
                 '\n## Quick start\n\n## What it shows\n\n## The harness: wal_stall_bench\n\n## Why\n',
    'bench/README.md': '# b\n\nRuns go in rounds, each in an order shuffled from the seed.\n\n## Presets (bench/presets/NAME.conf)\n\n'
                       '| preset | what |\n|---|---|\n'
                       '| `quick` | wal_buffers 32kB vs 1MB on a slow WAL disk (100 IOPS, 4 MB/s), 10 s runs, margin 10%, budget 2m |\n'
                       "| `overhead` | shared_preload_libraries '' vs 'wal_stall' |\n\n## Output\n",
    'bench/wal_stall_bench.1': '.TH WAL_STALL_BENCH 1\n.SH DESCRIPTION\nThe runs go in rounds, each shuffled afresh.\n'
                               '.SH PRESETS\nThe presets shipped:\n.TP\n.B quick\nwal_buffers 32kB against 1MB, 3 rounds of 10 s.\n'
                               '.TP\n.B overhead\nshared_preload_libraries \\(aq\\(aq against \\(aqwal_stall\\(aq.\n'
                               '.SH SEE ALSO\n.BI postgresql- NN -wal-stall\n',
    'bench/report.c': 'static const char *m = "Runs go in rounds, each in an order shuffled from the seed.";\n',
    'CHANGELOG.md': '# Changelog\n\n## 0.9\n\n`postgresql-15-wal-stall_0.9-1_amd64.deb`; runs went A B C A B C then.\n',
    'docs/studies/old.md': '# Old\n\nThe quick preset then compared wal_buffers 32kB vs 16MB.\n',
}

PLANTS = [
    ('a package file at another version', 'README.md', 'wal-stall_2.1-1_amd64.deb ./wal', 'wal-stall_2.0-1_amd64.deb ./wal',
     'debian/changelog is at 2.1-1'),
    ('a package name debian/control.in does not build', 'README.md', 'One `postgresql-NN-wal-stall`', 'One `postgresql-NN-walstall-ext wal-stall-tools`',
     'wal-stall-tools is no package'),
    ('a --preset that has no file', 'README.md', '--preset overhead', '--preset overheads',
     'preset "overheads": no bench/presets/overheads.conf'),
    ('a preset file missing from the README table', 'bench/presets/sync_method.conf', None, 'set = wal_sync_method=fsync,fdatasync\n',
     'missing: sync_method'),
    ('a README table row comparing a value the file does not', 'bench/README.md', '32kB vs 1MB on', '32kB vs 16MB on',
     "16MB not among the file's 32kB,1MB"),
    ('a README line comparing a value the file does not', 'README.md', 'wal_buffers 32kB vs 1MB, 3', 'wal_buffers 32kB vs 16MB, 3',
     'wal_buffers 32kB vs 16MB: 16MB not among'),
    ('a quoted value the file does not hold', 'bench/README.md', "'' vs 'wal_stall'", "'' vs 'pg_wait_sampling'",
     'pg_wait_sampling not among'),
    ('a man page entry with the wrong number of rounds', 'bench/wal_stall_bench.1', '3 rounds of 10 s', '2 runs of 10 s',
     'rounds: "2 runs of", the file says 3'),
    ('a wrong run length', 'bench/README.md', '4 MB/s), 10 s runs', '4 MB/s), 30 s runs',
     'seconds a run: "30 s runs", the file says 10'),
    ('a wrong margin', 'README.md', 'margin 10%', 'margin 5%', 'margin: "margin 5%", the file says 10'),
    ('a wrong slowed disk', 'bench/README.md', '(100 IOPS', '(50 IOPS', 'IOPS: "50 IOPS", the file says 100'),
    ('a README that reaches Install after line 60', 'README.md', '# t\n', '# t\n' + 'text\n' * 60,
     'its "## Install" is at line 63'),
    ('a README over 15 KB', 'README.md', '## Why\n', '## Why\n' + 'x' * 15360,
     'not ok layout: README.md is at most 15 KB'),
    ('a README with the history before the quick start', 'README.md', '\n## Quick start\n', '\n## Why\n\n## Quick start\n',
     "not ok layout: README.md's sections"),
    ('a README with the views before the quick start', 'README.md', '## Quick start\n\n## What it shows\n',
     '## What it shows\n\n## Quick start\n', "not ok layout: README.md's sections"),
    ('a bench/README.md over 400 lines', 'bench/README.md', '## Output\n', '## Output\n' + 'line\n' * 400,
     'not ok layout: bench/README.md is at most 400 lines'),
    ('a fixed cycle in the report', 'bench/report.c', 'Runs go in rounds, each in an order shuffled from the seed.',
     'Runs are interleaved (A B C A B C ...).', 'a fixed cycle "A B C A B C"'),
    ('"never back to back" in the man page', 'bench/wal_stall_bench.1', 'each shuffled afresh.',
     'never one configuration back to back.', '"never back to back"'),
    ('"interleaved order" in a README', 'bench/README.md', 'in an order shuffled from the seed',
     'in interleaved order', '"interleaved order"'),
]


def self_test():
    tap = Tap()
    scratch = tempfile.mkdtemp(prefix='wal_stall_check_docs.')
    try:
        def make_tree():
            tree = os.path.join(scratch, 'tree')
            shutil.rmtree(tree, ignore_errors=True)
            for rel, text in FIXTURE.items():
                path = os.path.join(tree, rel)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, 'w', encoding='utf-8') as f:
                    f.write(text)
            os.makedirs(os.path.join(tree, 'scripts'))
            for s in ('check_docs.py', 'check_links.py'):
                shutil.copy(os.path.join(HERE, s), os.path.join(tree, 'scripts', s))
            return tree

        def check(tree):
            p = subprocess.run([sys.executable, os.path.join(tree, 'scripts/check_docs.py'), '--root', tree],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
            return p.returncode, p.stdout

        tree = make_tree()
        rc, out = check(tree)
        tap.ok(rc == 0 and '0 failed' in out, 'self-test: the fixture tree passes',
               [l for l in out.split('\n') if l.startswith(('not ok', '#'))])
        for what, rel, old, new, expect in PLANTS:
            tree = make_tree()
            path = os.path.join(tree, rel)
            if old is None:
                text = new
            else:
                with open(path, encoding='utf-8') as f:
                    text = f.read()
                if old not in text:
                    tap.ok(False, 'self-test: %s (the plant\'s text is not in %s)' % (what, rel))
                    continue
                text = text.replace(old, new, 1)
            with open(path, 'w', encoding='utf-8') as f:
                f.write(text)
            rc, out = check(tree)
            if expect.startswith('not ok '):
                found = re.search(r'^not ok \d+ - ' + re.escape(expect[len('not ok '):]), out, re.M)
            else:
                found = expect in out
            tap.ok(rc != 0 and found, 'self-test: found %s' % what,
                   ['exit %d, output:' % rc] + out.split('\n'))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print('1..%d' % tap.n)
    print('%d passed, %d failed' % (tap.n - tap.failed, tap.failed))
    return 1 if tap.failed else 0


def main(argv):
    root = os.path.dirname(HERE)
    args = iter(argv)
    for a in args:
        if a == '--self-test':
            return self_test()
        if a == '--root':
            root = os.path.abspath(next(args, '') or '.')
        elif a.startswith('--root='):
            root = os.path.abspath(a[len('--root='):])
        elif a in ('-h', '--help'):
            print(__doc__.split('\n\n')[1])
            return 0
        else:
            print('check_docs.py: unknown argument "%s"' % a, file=sys.stderr)
            return 2
    return run(root)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
