/*-------------------------------------------------------------------------
 *
 * test_unit_validate.c
 *		wal_stall_bench unit tests of --validate's pure parts: which runs
 *		are traced, the bpftrace program's text, the parser of bpftrace's
 *		output (a real capture from this machine, and broken ones), the
 *		classification of processes, the comparison with wal_stall's rows,
 *		the per-configuration sums, the tracer's cost, and the CSV columns.
 *
 * Expected figures are worked by hand from the crafted inputs (shown in
 * the comments), not computed by the code under test.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "validate.h"
#include "test_unit.h"

static bool
near(double a, double b, double tol)
{
	return fabs(a - b) <= tol;
}

/* What one of --validate's writers writes for the runs, as a malloc'd text. */
static char *
written_by(void (*write) (FILE *, const WsbPlan *, const WsbRun *, int),
		   const WsbPlan *plan, const WsbRun *runs, int nruns)
{
	char	   *text = NULL;
	size_t		len;
	FILE	   *f = open_memstream(&text, &len);

	if (f == NULL)
		return strdup("");
	write(f, plan, runs, nruns);
	fclose(f);
	return text;
}

/* What bpftrace printed for a real 8 s pgbench run here (blank lines kept). */
static const char real_capture[] =
"Attaching 22 probes...\n"
"wsb_validate ready\n"
"wsb_validate end\n"
"\n"
"\n"
"@dirty_n[13167]: 1\n"
"@dirty_ns[13167]: 323243\n"
"@flush_n[13160]: 1\n"
"@flush_ns[13160]: 2711445\n"
"\n"
"@sync_n[13160]: 1\n"
"@sync_n[10534]: 42\n"
"@sync_ns[13160]: 2151392\n"
"@sync_ns[10534]: 158640308\n"
"@write_n[13167]: 1\n"
"@write_n[13160]: 1\n"
"@write_n[10534]: 562\n"
"@write_ns[13167]: 96723\n"
"@write_ns[13160]: 355725\n"
"@write_ns[10534]: 44757677\n";

static void
test_traced_and_program(void)
{
	WsbOptions	o;
	char	   *buf;
	char		path[256];

	wsb_options_defaults(&o);
	o.runs = 3;
	check(!wsb_validate_traced(&o, 0, 1), "validate: no run traced without --validate");
	o.validate = true;
	check(wsb_validate_traced(&o, 0, 1) && !wsb_validate_traced(&o, 0, 2) && wsb_validate_traced(&o, 0, 3),
		  "validate: --runs 3 traces rounds 1 and 3, not 2");
	check(wsb_validate_traced(&o, 1, 1) && !wsb_validate_traced(&o, 1, 2) && wsb_validate_traced(&o, 1, 3),
		  "validate: every configuration of a traced round is traced, so untraced rounds are complete pairs");
	o.runs = 1;
	check(wsb_validate_traced(&o, 0, 1) && wsb_validate_traced(&o, 1, 1),
		  "validate: --runs 1 traces every run");

	buf = wsb_validate_program("/pg/bin/postgres", "/lib/libc.so.6");
	check(strstr(buf, "usdt:/pg/bin/postgres:postgresql:lwlock__wait__start\n") != NULL &&
		  strstr(buf, "usdt:/pg/bin/postgres:postgresql:wal__buffer__write__dirty__done\n") != NULL &&
		  strstr(buf, "uretprobe:/pg/bin/postgres:XLogFlush\n") != NULL,
		  "validate: program probes the given binary");
	check(strstr(buf, "\"WALWrite\"") && strstr(buf, "\"WALBufMapping\"") && strstr(buf, "\"WALInsert\""),
		  "validate: program matches the three WAL tranches by name");
	check(strstr(buf, "uprobe:/pg/bin/postgres:PostgresMain, uprobe:/pg/bin/postgres:ParallelWorkerMain\n"),
		  "validate: program tags processes that enter PostgresMain or ParallelWorkerMain");
	check(strstr(buf, "curtask->real_parent->tgid == $1") != NULL,
		  "validate: program counts only the children of the postmaster given as $1");
	check(strstr(buf, "uprobe:/lib/libc.so.6:pwrite64") && strstr(buf, "uprobe:/lib/libc.so.6:fdatasync"),
		  "validate: program traces libc's write and fsync when libc is known");
	check(strstr(buf, WSB_TRACE_READY) && strstr(buf, WSB_TRACE_END),
		  "validate: program prints the ready and end markers");
	check(strstr(buf, "uprobe:/pg/bin/postgres:XLogInsertRecord\n") &&
		  strstr(buf, "uretprobe:/pg/bin/postgres:XLogInsertRecord\n") &&
		  strstr(buf, "if ($d >= 50000) { @insert_ns[pid] = sum($d)") &&
		  strstr(buf, "if ($d >= 50000) { @flushw_ns[pid] = sum($d)"),
		  "validate: program times XLogInsertRecord and XLogFlush calls of 50 us or more per side");
	free(buf);
	buf = wsb_validate_program("/pg/bin/postgres", "");
	check(strstr(buf, "pwrite64") == NULL && strstr(buf, "clear(@wr_t0)") == NULL,
		  "validate: without libc, no write/fsync probes and no clear() of their maps");
	free(buf);

	check(wsb_maps_libc("55d0-55d1 r--p 00000000 08:01 123 /usr/lib/postgresql/15/bin/postgres\n"
						"7f00-7f01 r-xp 00028000 08:01 456 /usr/lib/x86_64-linux-gnu/libc.so.6\n",
						path, sizeof(path)) && strcmp(path, "/usr/lib/x86_64-linux-gnu/libc.so.6") == 0,
		  "validate: libc found in /proc/PID/maps");
	check(!wsb_maps_libc("7f00-7f01 r-xp 0 08:01 456 /usr/lib/x86_64-linux-gnu/libcrypto.so.3\n"
						 "7f00-7f01 rw-p 0 00:00 0 [heap]\n", path, sizeof(path)),
		  "validate: libcrypto is not libc");

	/* the cluster's owner shapes /proc/PID/maps (shared_preload_libraries
	 * paths): a path that is not plain never reaches root's program */
	check(wsb_maps_libc("7f00-7f01 r-xp 0 08:01 9 /tmp/x:y{ system(\"id\") }/libc.so.6\n"
						"7f00-7f01 r-xp 0 08:01 456 /usr/lib/x86_64-linux-gnu/libc.so.6\n",
						path, sizeof(path)) && strcmp(path, "/usr/lib/x86_64-linux-gnu/libc.so.6") == 0,
		  "validate: a libc path with ':', '{' and blanks in maps is passed over for the plain one");
	check(!wsb_maps_libc("7f00-7f01 r-xp 0 08:01 456 /usr/lib/libc.so.6 (deleted)\n", path, sizeof(path)),
		  "validate: a deleted libc (\" (deleted)\") is not taken");
	check(wsb_plain_path("/usr/lib/postgresql/15/bin/postgres") && wsb_plain_path("/opt/pg-17.2+x/lib/libc.so.6") &&
		  !wsb_plain_path("lib/libc.so.6") && !wsb_plain_path("/a/../etc/x") && !wsb_plain_path("/a/..") &&
		  wsb_plain_path("/a/..b/c") && !wsb_plain_path("/a b") && !wsb_plain_path("/a:b") &&
		  !wsb_plain_path("/a\nb") && !wsb_plain_path("/a\"b") && !wsb_plain_path(""),
		  "validate: plain paths: absolute, letters, digits and /._+- only, no .. component");
	check(wsb_validate_program("/pg/bin/post gres:x { system(\"id\") }", "") == NULL,
		  "validate: no program for a server binary whose path is not plain");
	buf = wsb_validate_program("/pg/bin/postgres", "/tmp/a\"b/libc.so.6");
	check(buf && strstr(buf, "libc.so") == NULL && strstr(buf, "pwrite64") == NULL,
		  "validate: a libc path that is not plain is left out, as an unknown libc");
	free(buf);
}

static void
test_parse_classify(void)
{
	WsbTrace	t;
	WsbBackendTypes bt = {0};
	WsbValidation v;
	const WsbTracePid *p = NULL;
	int			rc;

	check(wsb_trace_parse(real_capture, &t) == 0 && t.ended && t.bad_lines == 0,
		  "validate: real capture parses, end marker seen");
	check(t.npids == 3, "validate: real capture has 3 processes (got %d)", t.npids);
	for (int i = 0; i < t.npids; i++)
		if (t.pids[i].pid == 10534)
			p = &t.pids[i];
	check(p && p->sync_n == 42 && p->sync_ns == 158640308 && p->write_n == 562 &&
		  p->write_ns == 44757677 && p->lock_ns == 0,
		  "validate: the WAL writer's sums as printed");

	/*
	 * 13160 and 13167 are client backends, 10534 the walwriter.  client
	 * traced = flush 2.711445 + dirty 0.323243 = 3.034688 ms; writes
	 * 1 + 1 + 562 = 564 in 0.096723 + 0.355725 + 44.757677 = 45.210125 ms;
	 * fsyncs 43 in 2.151392 + 158.640308 = 160.7917 ms.
	 */
	wsb_backends_note(&bt, 13160, "client backend");
	wsb_backends_note(&bt, 13167, "autovacuum worker");
	wsb_backends_note(&bt, 13167, "client backend");	/* newest wins */
	wsb_backends_note(&bt, 10534, "walwriter");
	memset(&v, 0, sizeof(v));
	wsb_trace_classify(&t, &bt, &v);
	check(v.client_pids == 2 && v.other_pids == 1 && v.unclassified_pids == 0,
		  "validate: 2 clients, 1 other (got %d, %d, %d)", v.client_pids, v.other_pids,
		  v.unclassified_pids);
	check(near(v.client_traced_ms, 3.034688, 1e-9) && near(v.client_flush_ms, 2.711445, 1e-9) &&
		  near(v.client_dirty_write_ms, 0.323243, 1e-9) && v.client_lock_wait_ms == 0,
		  "validate: client WAL-path time 3.034688 ms (got %.6f)", v.client_traced_ms);
	check(v.wal_writes == 564 && near(v.wal_write_ms, 45.210125, 1e-9) &&
		  v.wal_fsyncs == 43 && near(v.wal_fsync_ms, 160.7917, 1e-9),
		  "validate: io sums over every process: 564 writes 45.210125 ms, 43 fsyncs 160.7917 ms");
	check(v.dirty_writes == 1 && v.client_dirty_writes == 1, "validate: one wrap-around write");

	/* a pid never seen in pg_stat_activity is apart */
	wsb_backends_free(&bt);
	wsb_backends_note(&bt, 10534, "walwriter");
	wsb_trace_classify(&t, &bt, &v);
	check(v.client_pids == 0 && v.unclassified_pids == 2 && near(v.unclassified_ms, 3.034688, 1e-9) &&
		  v.client_traced_ms == 0,
		  "validate: unseen pids are unclassified, not clients");
	wsb_backends_free(&bt);
	wsb_trace_free(&t);

	/*
	 * unseen, but tagged by the program as having entered PostgresMain:
	 * 13160 is a client (flush 2.711445 ms), 13167 stays unclassified
	 * (dirty 0.323243 ms)
	 */
	{
		char	   *tagged = malloc(sizeof(real_capture) + 64);

		strcpy(tagged, real_capture);
		strcat(tagged, "@client[13160]: 1\n");
		rc = wsb_trace_parse(tagged, &t);
		free(tagged);
	}
	wsb_backends_note(&bt, 10534, "walwriter");
	wsb_trace_classify(&t, &bt, &v);
	check(rc == 0 && v.client_pids == 1 && v.unclassified_pids == 1 &&
		  near(v.client_traced_ms, 2.711445, 1e-9) && near(v.unclassified_ms, 0.323243, 1e-9),
		  "validate: a process tagged by PostgresMain is a client though never polled");
	wsb_backends_free(&bt);
	wsb_trace_free(&t);

	check(wsb_trace_parse("Attaching 22 probes...\nwsb_validate ready\n@lock_ns[12]: 5\n", &t) == -1 &&
		  !t.ended, "validate: output without the end marker is incomplete");
	wsb_trace_free(&t);
	rc = wsb_trace_parse("@lock_ns[12]: 5\n@lock_ns[12, WALWrite]: 5\n@lock_ns[x]: 5\n"
						 "@nosuch[12]: 5\n@lock_n[12]: -3\n@lock_n[12]: 7 ms\n"
						 "@lock_n[12]: 2\nwsb_validate end\n", &t);
	check(rc == 0 && t.bad_lines == 5 && t.npids == 1 && t.pids[0].lock_ns == 5 && t.pids[0].lock_n == 2,
		  "validate: malformed map lines are counted, not summed (bad %d)", t.bad_lines);
	wsb_trace_free(&t);
	check(wsb_trace_parse("", &t) == -1 && t.npids == 0, "validate: empty output is incomplete");
	wsb_trace_free(&t);

	/* the two sides: pid 12 a client (backend type), 13 the WAL writer */
	{
		WsbBackendTypes bt = {0};
		WsbValidation v;

		memset(&v, 0, sizeof(v));
		wsb_backends_note(&bt, 12, "client backend");
		wsb_backends_note(&bt, 13, "walwriter");
		rc = wsb_trace_parse("@insert_ns[12]: 3000000\n@insert_n[12]: 4\n@flushw_ns[12]: 500000\n"
							 "@flushw_n[12]: 2\n@insert_ns[13]: 7000000\n@flushw_ns[13]: 9000000\n"
							 "wsb_validate end\n", &t);
		wsb_trace_classify(&t, &bt, &v);
		check(rc == 0 && near(v.client_insert_side_ms, 3, 1e-9) && v.client_insert_waits == 4 &&
			  near(v.client_flush_side_ms, 0.5, 1e-9) && v.client_flush_waits == 2,
			  "validate: the sides of client backends only: insert 3 ms in 4 calls, flush 0.5 ms in 2");
		wsb_trace_free(&t);
		wsb_backends_free(&bt);
	}
}

static WsbRows
summary_rows(const char *full, const char *flush, const char *insert, const char *exact)
{
	const char *names[] = {"class", "total_ms", "exact_count"};
	const char *cells[] = {
		"wal_buffer_full", full, exact,
		"wal_flush", flush, NULL,
		"wal_insert", insert, NULL,
		"clog", "99", NULL,
		"wal_write", "40.5", "564",
		"wal_fsync", "170.25", "43",
		"slru_io", "0", "0",
	};

	return make_rows(3, names, 7, cells);
}

static void
test_compare_config(void)
{
	WsbRows		s = summary_rows("1000", "80", "20", "300");
	const char *wn[] = {"wal_buffers_full"};
	const char *wc[] = {"310"};
	WsbRows		w = make_rows(1, wn, 1, wc);
	WsbRows		empty = {0};
	const char *hn[] = {"wal_buffer_full_ms", "wal_flush_ms", "wal_insert_ms"};
	const char *hc[] = {"600", "30", "10", "350", NULL, "5"};
	WsbRows		h = make_rows(3, hn, 2, hc);
	WsbValidation v;
	WsbRun		runs[4];
	WsbPlan		plan;
	WsbValidation sum;
	double		tt,
				tu;
	char	   *text = NULL;
	size_t		len = 0;
	FILE	   *f;

	/* sampled = 1000 + 80 + 20 = 1100 ms (clog is not WAL path); traced 1000 */
	memset(&v, 0, sizeof(v));
	v.client_traced_ms = 1000;
	v.client_insert_side_ms = 1000;
	v.client_flush_side_ms = 100;
	wsb_validate_compare(&v, &s, &w, &h);
	check(near(v.client_sampled_ms, 1100, 1e-9) && near(v.ratio, 1.1, 1e-12),
		  "validate: sampled 1100 ms against traced 1000: ratio 1.1 (got %.4f)", v.ratio);
	check(v.exact_count == 300 && v.wal_buffers_full == 310 &&
		  near(v.sampled_wal_write_ms, 40.5, 1e-9) && near(v.sampled_wal_fsync_ms, 170.25, 1e-9),
		  "validate: core's and wal_stall's counts copied");

	/*
	 * Per side: summary 1000 + 20 = 1020 insert, 80 flush; history rows
	 * 600 + 10 + 350 + 5 = 965 insert, 30 + NULL = 30 flush; traced 1000
	 * and 100.
	 */
	check(near(v.summary_insert_side_ms, 1020, 1e-9) && near(v.summary_flush_side_ms, 80, 1e-9) &&
		  near(v.history_insert_side_ms, 965, 1e-9) && near(v.history_flush_side_ms, 30, 1e-9),
		  "validate: the sides from the summary (1020, 80) and the history (965, 30)");
	check(near(wsb_validate_side_ratio(v.history_flush_side_ms, v.client_flush_side_ms), 0.3, 1e-12) &&
		  isnan(wsb_validate_side_ratio(80, 0)) && isnan(wsb_validate_side_ratio(NAN, 10)),
		  "validate: side ratio 30 / 100 = 0.3; none when nothing traced or nothing sampled");
	v.client_traced_ms = 0;
	wsb_validate_compare(&v, &s, &w, &h);
	check(isnan(v.ratio), "validate: nothing traced: no ratio");
	v.client_traced_ms = 5;
	wsb_validate_compare(&v, &empty, &empty, &empty);
	check(isnan(v.client_sampled_ms) && isnan(v.ratio) && v.exact_count == -1 && v.wal_buffers_full == -1 &&
		  isnan(v.history_insert_side_ms) && isnan(v.summary_flush_side_ms),
		  "validate: wal_stall not loaded: sampled unknown, no ratio");

	/*
	 * One configuration, four runs: repeats 1 and 3 traced (sampled 1100
	 * and 500 against traced 1000 and 500: ratio 1600 / 1500), tps 90 and
	 * 110 traced, 100 and 120 untraced: cost 100 / 110 - 1 = -9.0909%.
	 */
	memset(runs, 0, sizeof(runs));
	memset(&plan, 0, sizeof(plan));
	plan.nconfigs = 1;
	strcpy(plan.configs[0].label, "wal_buffers=32kB");
	for (int i = 0; i < 4; i++)
	{
		runs[i].config = 0;
		runs[i].repeat = i + 1;
		runs[i].order = i + 1;
		runs[i].ok = true;
		runs[i].tps = (double[]) {90, 100, 110, 120}[i];
		runs[i].validation.requested = true;
		runs[i].validation.traced = i % 2 == 0;
		runs[i].validation.ok = i % 2 == 0;
		runs[i].validation.io_traced = true;
		runs[i].validation.wal_buffers_full = 10;
		runs[i].validation.exact_count = 9;
	}
	runs[0].validation.client_traced_ms = 1000;
	runs[0].validation.client_sampled_ms = 1100;
	runs[0].validation.ratio = 1.1;
	runs[2].validation.client_traced_ms = 500;
	runs[2].validation.client_sampled_ms = 500;
	/* per side: traced 800 + 400 insert, 200 + 100 flush; history 780 + 420, 220 + 80 */
	runs[0].validation.client_insert_side_ms = 800;
	runs[0].validation.client_flush_side_ms = 200;
	runs[0].validation.history_insert_side_ms = 780;
	runs[0].validation.history_flush_side_ms = 220;
	runs[2].validation.client_insert_side_ms = 400;
	runs[2].validation.client_flush_side_ms = 100;
	runs[2].validation.history_insert_side_ms = 420;
	runs[2].validation.history_flush_side_ms = 80;
	{
		int			n = wsb_validate_config(runs, 4, 0, &sum, &tt, &tu);

		check(n == 2 && near(sum.ratio, 1600.0 / 1500.0, 1e-12) && near(tt, 100, 1e-9) &&
			  near(tu, 110, 1e-9),
			  "validate: configuration ratio of the sums 1.0667 (got %.4f), tps 100 traced / 110 untraced",
			  sum.ratio);
	}
	check(sum.wal_buffers_full == 20 && sum.exact_count == 18,
		  "validate: counts summed over the traced runs only");
	check(near(sum.client_insert_side_ms, 1200, 1e-9) && near(sum.history_insert_side_ms, 1200, 1e-9) &&
		  near(sum.client_flush_side_ms, 300, 1e-9) && near(sum.history_flush_side_ms, 300, 1e-9),
		  "validate: the sides summed over the traced runs (1200 and 300 each)");
	check(near(wsb_validate_overall_cost(&plan, runs, 4), 100.0 * (100.0 / 110.0 - 1), 1e-9),
		  "validate: tracer's cost -9.09%%");
	runs[1].ok = runs[3].ok = false;
	check(isnan(wsb_validate_overall_cost(&plan, runs, 4)),
		  "validate: no untraced run: cost not measured");
	runs[1].ok = runs[3].ok = true;

	/* the CSV columns: as many cells as header names, empty when untraced */
	f = open_memstream(&text, &len);
	wsb_validate_csv_header(f);
	fputc('\n', f);
	wsb_validate_csv_row(f, &runs[0]);
	fputc('\n', f);
	wsb_validate_csv_row(f, &runs[1]);
	fputc('\n', f);
	fclose(f);
	{
		int			commas[3] = {0};
		int			line = 0;

		for (char *p = text; *p; p++)
		{
			if (*p == '\n')
				line++;
			else if (*p == ',' && line < 3)
				commas[line]++;
		}
		check(line == 3 && commas[0] == 30 && commas[1] == 30 && commas[2] == 30,
			  "validate: CSV header and rows have 30 cells each (%d, %d, %d)",
			  commas[0], commas[1], commas[2]);
		check(strstr(text, ",true,") && strstr(text, ",1.1000,") && strstr(text, "\n,false,,,"),
			  "validate: traced row has its ratio, untraced row empty cells");
		/* run 1: history 780 / traced 800 insert, 220 / 200 flush */
		check(strstr(text, ",history_insert_ratio,history_flush_ratio,validate_error\n") &&
			  strstr(text, ",0.9750,1.1000,"),
			  "validate: CSV has the per-side ratios (history 0.9750 insert, 1.1000 flush)");
		check(strstr(text, ",traced_dirty_writes,traced_client_dirty_writes,wal_buffer_full_exact_count,") &&
			  strstr(text, ",true,") && strstr(text, ",0,0,9,"),
			  "validate: traced wrap-around writes beside wal_stall's exact_count (9)");
	}
	free(text);

	/* the terminal table says the ratio and the cost */
	text = written_by(wsb_validate_print, &plan, runs, 4);
	check(strstr(text, "measurement error") && strstr(text, "1.067") &&
		  strstr(text, "tracer's cost: -9.1% tps") && strstr(text, "20 / 20 / 18") == NULL &&
		  strstr(text, "/ 20 / 18"),
		  "validate: terminal table has the ratio, the counts and the cost");
	check(strstr(text, "per side, clients") && strstr(text, "1200.0 / 0.0 / 1200.0 (0.000, 1.000)") &&
		  strstr(text, "300.0 / 0.0 / 300.0 (0.000, 1.000)"),
		  "validate: terminal table has both sides, traced / summary / history");
	free(text);
	text = written_by(wsb_validate_html, &plan, runs, 4);
	check(strstr(text, "<h2>Measurement error</h2>") && strstr(text, "1.067") &&
		  strstr(text, "<strong>-9.1%</strong>") && strstr(text, "not traced"),
		  "validate: report section has the ratio, the cost and the untraced runs");
	free(text);

	wsb_rows_free(&s);
	wsb_rows_free(&w);
	wsb_rows_free(&h);
}

void
test_validate(void)
{
	test_traced_and_program();
	test_parse_classify();
	test_compare_config();
}
