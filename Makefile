# wal_stall: make WAL and CLOG stalls visible

MODULE_big = wal_stall
OBJS = \
	$(WIN32RES) \
	advice.o \
	cadence.o \
	classify.o \
	collector.o \
	counters.o \
	fsync_probe.o \
	histogram.o \
	persist.o \
	queries.o \
	views.o \
	wal_stall.o

# Functions only the tests call (test/test_functions.c), built into the
# library with "make WS_TEST_FUNCTIONS=1", as scripts/test.sh builds it;
# never by default, so that "make install" and the Debian packages leave
# them out.  Switching needs "make clean": the library is not relinked when
# only the flag changes.
ifeq ($(WS_TEST_FUNCTIONS),1)
OBJS += test/test_functions.o
WS_TEST_CPPFLAGS = -DWS_TEST_FUNCTIONS
endif
EXTRA_CLEAN = test/test_functions.o test/test_functions.bc

EXTENSION = wal_stall
EXTVERSION = $(shell sed -n "s/^default_version = '\(.*\)'/\1/p" $(EXTENSION).control)

# The install script is kept as one file, sql/wal_stall.sql, and copied to
# the versioned name PostgreSQL looks for; a later version adds its update
# script, wal_stall--OLD--NEW.sql, beside it (CONTRIBUTING.md).
DATA_built = $(EXTENSION)--$(EXTVERSION).sql
PGFILEDESC = "wal_stall - make WAL and CLOG stalls visible"

# The tests are under test/: pg_regress's in test/sql and test/expected
# (setup first: it creates the helpers the others use), Perl TAP's in test/t.
REGRESS = setup extension fsync_probe bad_input
REGRESS_OPTS = --inputdir=test --temp-instance=./tmp_check --temp-config=./wal_stall.conf
TAP_TESTS = 1
PROVE_TESTS = test/t/*.pl
# which tests run alone and which two at a time under PROVE_FLAGS=-j2
export HARNESS_RULESFILE = test/t/testrules.yml

# Warning-free under -Wall -Wextra; CI adds -Werror (COPT=-Werror), the
# Makefile does not, so that a newer compiler's new warnings do not stop a
# user's build.  The server headers come in as system headers: their inline
# functions are not -Wextra clean.
PG_CPPFLAGS = -isystem $(includedir_server) -Wall -Wextra $(WS_TEST_CPPFLAGS)

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# Settings the temporary instance gets only where they exist:
# track_wal_io_timing from 14 (13 refuses to start with it).
ifeq ($(shell test $(VERSION_NUM) -ge 140000 && echo y),y)
REGRESS_OPTS += --temp-config=./wal_stall_pg14.conf
endif

# PGXS tracks no header dependencies: each object depends on the headers its
# .c includes, directly or through another of ours (shared_state.h includes
# counters.h, histogram.h and queries.h; queries.h histogram.h), as
# test/header_deps.sh checks against the compiler.
WS_SHARED_STATE_H = shared_state.h counters.h histogram.h queries.h wal_stall.h
advice.o: advice.h
cadence.o: cadence.h
classify.o: classify.h compat.h $(WS_SHARED_STATE_H)
collector.o: cadence.h classify.h compat.h $(WS_SHARED_STATE_H)
counters.o: compat.h counters.h wal_stall.h
fsync_probe.o: compat.h
histogram.o: histogram.h wal_stall.h
persist.o: compat.h $(WS_SHARED_STATE_H)
queries.o: compat.h result_row.h $(WS_SHARED_STATE_H)
views.o: advice.h classify.h compat.h result_row.h $(WS_SHARED_STATE_H)
wal_stall.o: compat.h $(WS_SHARED_STATE_H)
test/test_functions.o: classify.h compat.h counters.h histogram.h queries.h $(WS_SHARED_STATE_H) wal_stall.h

$(EXTENSION)--$(EXTVERSION).sql: sql/$(EXTENSION).sql $(EXTENSION).control
	cp $< $@

# The PGXN archive of this version, in DISTDIR: the commit checked out,
# META.json at its top (its version is the control file's:
# test/check_versions.sh).
DISTDIR ?= .
dist:
	git archive --format=zip --prefix=$(EXTENSION)-$(EXTVERSION)/ -o $(DISTDIR)/$(EXTENSION)-$(EXTVERSION).zip HEAD
.PHONY: dist

# The configuration-comparison harness (bench/) is built on its own, with
# "make -C bench" (or "make bench"): it needs libpq's and R's standalone math
# library's headers, which the extension does not.  "make clean" cleans both.
bench:
	$(MAKE) -C bench PG_CONFIG=$(PG_CONFIG)
clean: clean-bench
clean-bench:
	$(MAKE) -C bench clean
.PHONY: bench clean-bench
