# wal_stall: make WAL and CLOG stalls visible

MODULE_big = wal_stall
OBJS = \
	$(WIN32RES) \
	classify.o \
	collector.o \
	counters.o \
	fsync_probe.o \
	views.o \
	wal_stall.o

EXTENSION = wal_stall
DATA = wal_stall--1.0.sql wal_stall--1.0--1.1.sql wal_stall--1.1.sql
PGFILEDESC = "wal_stall - make WAL and CLOG stalls visible"

REGRESS = wal_stall fsync_probe bad_input upgrade
REGRESS_OPTS = --temp-instance=./tmp_check --temp-config=./wal_stall.conf
TAP_TESTS = 1

# Warning-free under -Wall -Wextra -Werror.  The server headers come in as
# system headers: their inline functions are not -Wextra clean.
PG_CPPFLAGS = -isystem $(includedir_server) -Wall -Wextra -Werror

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PGXS tracks no header dependencies: every object sees the shared structs.
$(OBJS): wal_stall.h compat.h
