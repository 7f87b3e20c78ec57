#!/usr/bin/env python3
"""Check the relative links of every markdown file of the wal_stall tree.

    scripts/check_links.py [--root DIR] [FILE.md ...]

For each link or image of a markdown file (inline `[text](target)`,
reference definitions `[name]: target`, and `href`/`src` attributes of
HTML tags) whose target is not an external URL, check that the file or
directory it names exists, relative to the linking file, and that a
`#anchor`, on a markdown target or on the file itself, is the anchor of
one of its headings as GitHub makes them: the heading's text without its
markdown (code backticks, link syntax, HTML tags), lowercased, every
character but letters, digits, '_', '-' and spaces removed, each space
replaced by '-', and "-1", "-2" ... added to repeated ones
(`## --validate: wal_stall's own measurement error` ->
`#--validate-wal_stalls-own-measurement-error`).  An HTML `id` or `name`
attribute is an anchor too; on a file that is not markdown, only GitHub's
line anchors (`#L10`, `#L10-L20`) are accepted.  Links inside code (fenced
blocks, code spans) are not links and are skipped.  External links
(http:, https:, mailto:, any "scheme://") are not fetched.

Without FILE arguments it checks every *.md file under the root (default:
the directory above this script), leaving out hidden directories, test
and build output (tmp_check, results, log) and debian/'s package staging
directories.  Prints one TAP line per link and ends with
"N passed, N failed"; exits non-zero if any link is broken.

Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
"""
import os
import re
import sys
import urllib.parse

SKIP_DIRS = {'tmp_check', 'tmp_install', 'results', 'log', 'output_iso', 'node_modules'}
FENCE = re.compile(r'^ {0,3}(?:[-*+] +|\d+[.)] +)?\s*(`{3,}|~{3,})')
ATX = re.compile(r'^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$')
SETEXT = re.compile(r'^ {0,3}(=+|-+)[ \t]*$')
HTML_ID = re.compile(r'<[A-Za-z][^>]*?\b(?:id|name)\s*=\s*["\']([^"\']+)["\']', re.I)
HTML_LINK = re.compile(r'<(?:a|img)\b[^>]*?\b(?:href|src)\s*=\s*["\']([^"\']+)["\']', re.I)
REF_DEF = re.compile(r'^ {0,3}\[[^\]]+\]:[ \t]*<?([^\s>]+)>?')
EXTERNAL = re.compile(r'^(?:[A-Za-z][A-Za-z0-9+.-]*://|mailto:|tel:|data:)')


def split_fences(text):
    """Lines of text, each with a flag: True inside a fenced code block."""
    out = []
    fence = None
    for line in text.split('\n'):
        m = FENCE.match(line)
        if fence is None:
            if m:
                fence = m.group(1)
                out.append((line, True))
                continue
            out.append((line, False))
        else:
            out.append((line, True))
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) \
                    and line.strip().strip(fence[0]) == '':
                fence = None
    return out


def blank_code_spans(text):
    """Replace the content of code spans by spaces (newlines kept), so that
    a `[x](y)` in code is not taken for a link.  A span ends at the next
    run of as many backticks, and never crosses a blank line."""
    res = []
    i, n = 0, len(text)
    while i < n:
        if text[i] != '`':
            res.append(text[i])
            i += 1
            continue
        j = i
        while j < n and text[j] == '`':
            j += 1
        run = j - i
        k = j
        end = -1
        while k < n:
            if text[k] == '`':
                m = k
                while m < n and text[m] == '`':
                    m += 1
                if m - k == run:
                    end = m
                    break
                k = m
                continue
            if text.startswith('\n', k) and re.match(r'\n[ \t]*\n', text[k:]):
                break
            k += 1
        if end < 0:
            res.append(text[i:j])
            i = j
            continue
        res.append(''.join(c if c == '\n' else ' ' for c in text[i:end]))
        i = end
    return ''.join(res)


def heading_text_to_slug(text):
    text = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', text)  # links, images: their text
    text = re.sub(r'<[^>]+>', '', text)                      # HTML tags
    text = text.replace('`', '')
    s = text.strip().lower()
    s = re.sub(r'[^\w\- ]', '', s)
    return s.replace(' ', '-')


def anchors_of(path, cache={}):
    """The set of anchors a markdown file offers."""
    if path in cache:
        return cache[path]
    with open(path, encoding='utf-8') as f:
        lines = split_fences(f.read())
    seen = {}
    anchors = set()

    def add(slug):
        if slug in seen:
            seen[slug] += 1
            anchors.add('%s-%d' % (slug, seen[slug]))
        else:
            seen[slug] = 0
            anchors.add(slug)

    prev = None
    for line, in_code in lines:
        if in_code:
            prev = None
            continue
        m = ATX.match(line)
        if m:
            add(heading_text_to_slug(m.group(2) or ''))
            prev = None
            continue
        m = SETEXT.match(line)
        if m and prev is not None and prev.strip() and not prev.lstrip().startswith(('|', '-', '*', '+', '>')):
            add(heading_text_to_slug(prev))
            prev = None
            continue
        for a in HTML_ID.findall(line):
            anchors.add(a)
        prev = line
    cache[path] = anchors
    return anchors


def links_of(path):
    """(line number, target) of every link of a markdown file."""
    with open(path, encoding='utf-8') as f:
        text = f.read()
    lines = split_fences(text)
    # code blocks become empty lines, so that line numbers stay right
    prose = '\n'.join('' if in_code else line for line, in_code in lines)
    prose = blank_code_spans(prose)
    found = []
    # inline links and images; the text may hold one level of brackets and
    # span lines; the target may be <...> and be followed by a title
    for m in re.finditer(r'\]\(\s*(<[^>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)'
                         r'(?:\s+(?:"[^"]*"|\'[^\']*\'|\([^)]*\)))?\s*\)', prose):
        found.append((prose.count('\n', 0, m.start()) + 1, m.group(1).strip('<>')))
    for n, line in enumerate(prose.split('\n'), 1):
        m = REF_DEF.match(line)
        if m:
            found.append((n, m.group(1)))
        for t in HTML_LINK.findall(line):
            found.append((n, t))
    return sorted(found)


def check(md, target, root):
    """None if the link resolves, else why not."""
    if EXTERNAL.match(target):
        return None
    path, _, anchor = target.partition('#')
    path = urllib.parse.unquote(path.split('?', 1)[0])
    if path == '':
        dest = md
    elif path.startswith('/'):
        dest = os.path.join(root, path.lstrip('/'))
    else:
        dest = os.path.normpath(os.path.join(os.path.dirname(md), path))
    if not os.path.exists(dest):
        return 'no such file: %s' % os.path.relpath(dest, root)
    if not anchor:
        return None
    anchor = urllib.parse.unquote(anchor)
    if os.path.isdir(dest):
        return 'an anchor on a directory: %s' % target
    if dest.endswith('.md'):
        if anchor.lower() not in anchors_of(dest) and anchor not in anchors_of(dest):
            return 'no heading of %s has the anchor #%s' % (os.path.relpath(dest, root), anchor)
        return None
    if re.fullmatch(r'L\d+(?:-L\d+)?', anchor):
        return None
    return 'an anchor on a file that is not markdown: %s' % target


def markdown_files(root):
    out = []
    for d, dirs, files in os.walk(root):
        rel = os.path.relpath(d, root)
        parts = [] if rel == '.' else rel.split(os.sep)
        dirs[:] = sorted(x for x in dirs
                         if not x.startswith('.') and x not in SKIP_DIRS
                         and not (parts == ['debian'] and x != 'source'))
        out.extend(os.path.join(d, f) for f in sorted(files) if f.endswith('.md'))
    return out


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    files = []
    args = iter(argv)
    for a in args:
        if a == '--root':
            root = os.path.abspath(next(args))
        elif a.startswith('--root='):
            root = os.path.abspath(a[len('--root='):])
        elif a in ('-h', '--help'):
            print(__doc__.split('\n\n')[1])
            return 0
        else:
            files.append(os.path.abspath(a))
    if not files:
        files = markdown_files(root)
    n = failed = external = 0
    for md in files:
        rel = os.path.relpath(md, root)
        for line, target in links_of(md):
            if EXTERNAL.match(target):
                external += 1
                continue
            n += 1
            why = check(md, target, root)
            if why is None:
                print('ok %d - %s:%d %s' % (n, rel, line, target))
            else:
                failed += 1
                print('not ok %d - %s:%d %s' % (n, rel, line, target))
                print('#   %s' % why)
    print('1..%d' % n)
    print('# %d markdown files, %d relative links checked, %d external links not fetched'
          % (len(files), n, external))
    print('%d passed, %d failed' % (n - failed, failed))
    return 1 if failed or n == 0 else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
