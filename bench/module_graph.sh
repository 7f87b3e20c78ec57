#!/bin/sh
# bench/module_graph.sh OBJECT...
#	The module graph of wal_stall_bench, derived from its objects (the
#	program's, as make builds them): module A uses module B when A.o has an
#	undefined symbol that B.o defines (nm).  Prints TAP, one line a check:
#	  1  the graph has no cycle (tsort finds none; the cycle is printed)
#	  2  the list of who uses whom in ../docs/harness_internals.md ("The
#	     harness's modules") is this graph, edge for edge
#	  3  every function and variable a header declares is defined in a
#	     file its header names for it: the section line
#	     "/* ---------- ... x.c ... ---------- */" above the declaration,
#	     or, above any such line, the header's opening comment
#	  4  its "where to look first" table is true: each function
#	     it names is defined in the file it names (a line "name(" there)
#	Run by "make graph" (which builds the objects first) and by
#	scripts/test.sh with the bench unit tests.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).

cd "$(dirname "$0")" || exit 1
doc=../docs/harness_internals.md
[ $# -gt 0 ] || { echo "usage: $0 OBJECT..." >&2; exit 2; }
tmp=$(mktemp -d /tmp/wsb_graph.XXXXXX) || exit 1
trap '[ -n "$WSB_GRAPH_KEEP" ] || rm -rf "$tmp"' EXIT
failed=0

for o in "$@"; do
	[ -f "$o" ] || { echo "not ok 1 - module graph: no object $o (make it first)"; exit 1; }
	m=$(basename "$o" .o)
	nm -g --defined-only "$o" | awk -v m="$m" 'NF == 3 { print $3, m }' >>"$tmp/defs"
	nm -u "$o" | awk -v m="$m" '{ print $2, m }' >>"$tmp/uses"
done
sort -o "$tmp/defs" "$tmp/defs"
sort -o "$tmp/uses" "$tmp/uses"
# "user used": one line an edge
join "$tmp/uses" "$tmp/defs" | awk '$2 != $3 { print $2, $3 }' | sort -u >"$tmp/edges"

# 1: no cycle
if tsort "$tmp/edges" >/dev/null 2>"$tmp/tsort"; then
	echo "ok 1 - module graph: no cycle among the $# objects ($(wc -l <"$tmp/edges") edges)"
else
	echo "not ok 1 - module graph: a cycle: $(grep -v 'input contains a loop' "$tmp/tsort" |
		sed 's/^tsort: //' | tr '\n' ' ')"
	grep -v 'input contains a loop' "$tmp/tsort" | sed 's/^tsort: /#   /'
	failed=1
fi

# 2: the internals' page draws this graph
awk '/^<!-- module uses: begin -->/ { on = 1; next }
	/^<!-- module uses: end -->/ { on = 0 }
	on && /^[a-z_]+:/ { for (i = 2; i <= NF; i++) print substr($1, 1, length($1) - 1), $i }' "$doc" | sort -u >"$tmp/drawn"
if [ -s "$tmp/drawn" ] && cmp -s "$tmp/edges" "$tmp/drawn"; then
	echo "ok 2 - module graph: $doc lists every use between modules, and no other"
else
	echo "not ok 2 - module graph: $doc's list differs from the objects' (< objects, > $doc)"
	diff "$tmp/edges" "$tmp/drawn" | grep '^[<>]' | sed 's/^/#   /'
	failed=1
fi

# 3: each header names the file that defines what it declares
for h in *.h; do
	awk -v h="$h" '
		function files(line,   out, s) {
			out = ""; s = line
			while (match(s, /[a-z_0-9]+\.c/)) {
				out = out " " substr(s, RSTART, RLENGTH - 2)
				s = substr(s, RSTART + RLENGTH)
			}
			return out
		}
		NR == 1 { intop = 1 }
		intop { top = top files($0); if ($0 ~ /\*\//) { intop = 0; cur = top } ; next }
		/^\/\* ----------/ { cur = files($0); next }
		/^extern / {
			line = $0
			if (index(line, "(")) {
				sub(/[ \t]*\(.*/, "", line)
			} else {
				sub(/[ \t]*[\[;].*/, "", line)
			}
			n = split(line, w, /[^A-Za-z0-9_]+/)
			print w[n], h, cur
		}' "$h"
done >"$tmp/declared"
awk 'function names(line,   n, w, i, out) {
		n = split(line, w, " "); out = ""
		for (i = 3; i <= n; i++) out = out " " w[i] ".c"
		return (out == "" ? " none" : out)
	}
	NR == FNR { def[$1] = $2; next }
	{
		ok = 0
		for (i = 3; i <= NF; i++) if (def[$1] == $i) ok = 1
		if (!ok)
			printf("#   %s: %s is defined in %s, not in a file its section names:%s\n",
				   $2, $1, (($1 in def) ? def[$1] ".c" : "no object"), names($0))
	}' "$tmp/defs" "$tmp/declared" >"$tmp/wrong"
if [ ! -s "$tmp/wrong" ] && [ -s "$tmp/declared" ]; then
	echo "ok 3 - module graph: every header's file names match where its $(wc -l <"$tmp/declared") declarations are defined"
else
	echo "not ok 3 - module graph: a header names the wrong file"
	cat "$tmp/wrong"
	failed=1
fi
# 4: the newcomer's table names real functions in the right files
awk -F'|' '/^<!-- where: begin -->/ { on = 1; next } /^<!-- where: end -->/ { on = 0 }
	on && NF >= 4 && $3 ~ /\.c/ { gsub(/ /, "", $3); gsub(/ /, "", $4); print $3, $4 }' "$doc" >"$tmp/where"
: >"$tmp/where_wrong"
while read -r file fn; do
	grep -q "^$fn(" "$file" 2>/dev/null || echo "#   $fn is not defined in $file" >>"$tmp/where_wrong"
done <"$tmp/where"
if [ -s "$tmp/where" ] && [ ! -s "$tmp/where_wrong" ]; then
	echo "ok 4 - module graph: $doc's $(wc -l <"$tmp/where") places to look first are where it says"
else
	echo "not ok 4 - module graph: $doc's places to look first are wrong"
	cat "$tmp/where_wrong"
	failed=1
fi
exit $failed
