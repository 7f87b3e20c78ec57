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
DATA = wal_stall--1.0.sql
PGFILEDESC = "wal_stall - make WAL and CLOG stalls visible"

REGRESS = wal_stall fsync_probe
REGRESS_OPTS = --temp-instance=./tmp_check --temp-config=./wal_stall.conf
TAP_TESTS = 1

# -Wextra without -Wunused-parameter: PostgreSQL's own headers and callback
# signatures (hooks, bgworker main, before_shmem_exit) trip it everywhere.
PG_CPPFLAGS = -Wall -Wextra -Wno-unused-parameter -Werror

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PGXS tracks no header dependencies: every object sees the shared structs.
$(OBJS): wal_stall.h compat.h
