# wal_stall: make WAL and CLOG stalls visible

MODULE_big = wal_stall
OBJS = \
	$(WIN32RES) \
	advice.o \
	classify.o \
	collector.o \
	counters.o \
	fsync_probe.o \
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
endif
EXTRA_CLEAN = test/test_functions.o test/test_functions.bc

EXTENSION = wal_stall
DATA = wal_stall--1.0.sql wal_stall--1.0--1.1.sql wal_stall--1.1.sql \
	wal_stall--1.1--1.2.sql wal_stall--1.2.sql
PGFILEDESC = "wal_stall - make WAL and CLOG stalls visible"

# setup first: it creates the helpers the others use (sql/setup.sql)
REGRESS = setup wal_stall fsync_probe bad_input upgrade
REGRESS_OPTS = --temp-instance=./tmp_check --temp-config=./wal_stall.conf
TAP_TESTS = 1

# Warning-free under -Wall -Wextra; CI adds -Werror (COPT=-Werror), the
# Makefile does not, so that a newer compiler's new warnings do not stop a
# user's build.  The server headers come in as system headers: their inline
# functions are not -Wextra clean.
PG_CPPFLAGS = -isystem $(includedir_server) -Wall -Wextra

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# Settings the temporary instance gets only where they exist:
# track_wal_io_timing from 14 (13 refuses to start with it).
ifeq ($(shell test $(VERSION_NUM) -ge 140000 && echo y),y)
REGRESS_OPTS += --temp-config=./wal_stall_pg14.conf
endif

# PGXS tracks no header dependencies: every object sees the shared structs.
$(OBJS): wal_stall.h compat.h cadence.h advice.h result_row.h

# The configuration-comparison harness (bench/), built and cleaned with the
# extension, for the same PostgreSQL.
all: bench
bench:
	$(MAKE) -C bench PG_CONFIG=$(PG_CONFIG)
clean: clean-bench
clean-bench:
	$(MAKE) -C bench clean
.PHONY: bench clean-bench
