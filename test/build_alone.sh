#!/usr/bin/env bash
# The extension and the harness build apart.  "make" builds and installs
# the extension alone: it needs neither libpq's headers nor R's standalone
# math library, which only the harness (bench/) links with, so a copy of
# the tree whose bench/Makefile fails at once still builds and stages it.
# "make -C bench" finds libpq's internal headers where a PostgreSQL built
# from source under a plain prefix puts them (PREFIX/include/postgresql/
# internal, the --pkgincludedir, not --includedir): a pg_config standing
# for such an install, over the headers of the one under test, is given
# to it.  PG_CONFIG names the PostgreSQL (default: pg_config).  Prints TAP.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
work_dir wal_stall_build_alone

cp -a "$top/." "$work/tree"
rm -rf "$work/tree/.git"
make -C "$work/tree" -s clean >/dev/null 2>&1
printf 'all %%:\n\t@echo "bench/Makefile was used" >&2; exit 1\n' >"$work/tree/bench/Makefile"
ok "make builds the extension without bench/'s Makefile" \
	make -C "$work/tree" -s PG_CONFIG="$PG_CONFIG" COPT=-Werror
ok "make install stages it (DESTDIR) without bench/'s Makefile" \
	make -C "$work/tree" -s PG_CONFIG="$PG_CONFIG" DESTDIR="$work/stage" install
ok "the staged library is there" \
	test -f "$work/stage$("$PG_CONFIG" --pkglibdir)/wal_stall.so"

# A plain prefix's include layout, from the headers of the PostgreSQL under
# test: libpq-fe.h in include/, pqexpbuffer.h in include/postgresql/internal.
plain=$work/plain
mkdir -p "$plain/include/postgresql/internal" "$plain/bin"
inc=$("$PG_CONFIG" --includedir)
internal=$("$PG_CONFIG" --pkgincludedir)/internal
cp "$inc"/libpq-fe.h "$inc"/postgres_ext.h "$inc"/pg_config_ext.h "$plain/include/"
cp -a "$internal/." "$plain/include/postgresql/internal/"
cat >"$plain/bin/pg_config" <<EOS
#!/bin/sh
case "\$1" in
	--includedir) echo "$plain/include" ;;
	--pkgincludedir) echo "$plain/include/postgresql" ;;
	*) exec "$PG_CONFIG" "\$@" ;;
esac
EOS
chmod 755 "$plain/bin/pg_config"
cp -a "$top/." "$work/plain_tree"
rm -rf "$work/plain_tree/.git"
make -C "$work/plain_tree/bench" -s clean >/dev/null 2>&1
ok "make -C bench builds against a plain prefix's headers (pqexpbuffer.h under --pkgincludedir)" \
	make -C "$work/plain_tree/bench" -s PG_CONFIG="$plain/bin/pg_config" CFLAGS="-O2 -Werror" wal_stall_bench
ok "the harness built there runs" "$work/plain_tree/bench/wal_stall_bench" --version
tap_plan
[ "$failed" -eq 0 ]
