/*-------------------------------------------------------------------------
 *
 * test_unit.h
 *		wal_stall_bench: the unit tests' check() (test/tap.h, shared with
 *		test/unit/) and the test groups of the other files
 *		(test_unit_engine.c, test_unit_validate.c, test_unit_verdict.c,
 *		test_unit_sim.c, test_unit_files.c, test_unit_answer.c,
 *		test_unit_tipping.c, test_unit_disk.c).
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WSB_TEST_UNIT_H
#define WSB_TEST_UNIT_H

#include "tap.h"
#include "wsb.h"

/* test_unit.c: a WsbRows of malloc'd text cells, row major, NULL for a
 * NULL cell; freed by wsb_rows_free */
WsbRows make_rows(int ncols, const char *const *names, int nrows,
				  const char *const *cells);

/* test_unit.c: wsb_plan_text into a fixed buffer */
void		plan_text(const WsbOptions *o, const WsbPlan *plan, char *text, size_t len);

void test_autoconf(void);
void test_options(void);
void test_pgbench(void);
void test_proc(void);
void test_validate(void);
void test_verdict(void);
void test_simulation(void);
void test_files(void);
void test_answer(void);
void test_tipping(void);
void test_disk_profiles(void);

#endif							/* WSB_TEST_UNIT_H */
