#!/usr/bin/env bash
# A screenshot of wal_stall_bench's report.html as headless Chromium shows
# it: the first HEIGHT px (default 1000) of the page, 1400 px wide, as a PNG.
# The docs' picture of the report, docs/report.png, is made with it.
#
#   scripts/screenshot.sh REPORT_HTML [OUT_PNG [HEIGHT]]   (OUT_PNG: docs/report.png)
#
# Chromium is Debian's `chromium` (scripts/setup.sh installs it); run as
# root, it runs as the postgres account on a private copy of the report
# (test/report_in_browser.py --screenshot, which does the work).
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -lt 1 ] || [ $# -gt 3 ]; then
	sed -n '5p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
fi
report=$1
out=${2:-$top/docs/report.png}
height=${3:-1000}
python3 "$top/test/report_in_browser.py" --screenshot "$out" --height "$height" "$report"
echo "screenshot.sh: $out ($(stat -c %s "$out") bytes, 1400 x $height px)"
