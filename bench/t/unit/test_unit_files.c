/*-------------------------------------------------------------------------
 *
 * test_unit_files.c
 *		wal_stall_bench: unit tests of the files the harness reads back
 *		(results.csv or any CSV for --judge, plan.txt for --resume) and of
 *		results.csv's replacement, and of the judgement at sizes a file can
 *		declare: a round numbered a million, a thousand rounds of the
 *		signed-rank test.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "expbuffer.h"
#include "wsb.h"
#include "engine.h"
#include "verdict.h"
#include "experiment.h"
#include "ring_report.h"
#include "test_unit.h"

/* text (len bytes, NULs allowed) into a new temporary file: its path */
static const char *
file_of(const char *text, size_t len)
{
	static char path[64];
	FILE	   *f;

	strcpy(path, "/tmp/wsb_unit_files.XXXXXX");
	close(mkstemp(path));
	f = fopen(path, "w");
	fwrite(text, 1, len, f);
	fclose(f);
	return path;
}

/* Judge text as a CSV: 0 or -1, the error in err. */
static int
judge_text(const char *text, size_t len, WsbVerdicts *vs, char *err, size_t errlen)
{
	const char *path = file_of(text, len);
	int			rc = wsb_verdicts_from_csv(path, NULL, NAN, 0, 0, vs, err, errlen);

	unlink(path);
	return rc;
}

static double
seconds_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* the numbers a file declares pass the options' own range checks */
static void
test_declared_numbers(void)
{
	static const struct
	{
		const char *csv;
		const char *message;
		const char *what;
	}			cases[] = {
		{"configuration,round,tps,margin_pct\nA,1,1000,-5\nB,1,970,-5\nA,2,1000,-5\nB,2,971,-5\n"
			"A,3,1000,-5\nB,3,969,-5\n",
		"line 2: margin_pct: \"-5\" is not a percentage above 0 and below 100",
		"margin_pct = -5 (the 3% slower configuration would read \"faster by >= -5%\")"},
		{"configuration,round,tps,margin_pct\nA,1,1000,100\nB,1,970,100\n",
		"margin_pct: \"100\" is not a percentage above 0 and below 100", "margin_pct = 100"},
		{"configuration,round,tps,seed\nA,1,1000,7\nB,1,970,-3\n",
		"line 3: seed: \"-3\" is not an integer from 0 to 2^53 - 1", "a negative seed"},
		{"configuration,round,tps,seed\nA,1,1000,9007199254740992\nB,1,970,\n",
		"seed: \"9007199254740992\" is not an integer", "a seed of 2^53"},
		{"configuration,round,tps,budget_looks\nA,1,1000,-1\nB,1,970,-1\n",
		"budget_looks: \"-1\" is not an integer from 1 to 998", "budget_looks = -1"},
		{"configuration,round,tps,budget_looks\nA,1,1000,999\nB,1,970,999\n",
		"budget_looks: \"999\" is not an integer from 1 to 998", "budget_looks = 999"},
		{"configuration,round,tps\nA,1,1000\nB,1,nan\n",
		"line 3: tps: \"nan\" is not a number from 0", "tps = nan"},
		{"configuration,round,tps\nA,1,1000\nB,1,-4\n", "tps: \"-4\" is not a number", "a negative tps"},
		{"configuration,round,tps,clients\nA,1,1000,0\nB,1,900,0\n",
		"clients: \"0\" is not a whole number from 1 to 10000", "clients = 0 (as --clients refuses)"},
		{"configuration,round,tps\nA,1e10,1000\nB,1e10,900\n",
		"line 2: a configuration and a whole round number from 1 to 1000000000 are needed",
		"a round past the int range"},
		{"configuration,round,tps,wal_flush_total_ms\nA,1,1000,inf\nB,1,900,1\n",
		"wal_flush_total_ms: \"inf\" is not a number", "an infinite stall time"},
	};
	WsbVerdicts vs;
	char		err[1024] = "";
	WsbOptions	o;
	char		dir[] = "/tmp/wsb_unit_files_plan.XXXXXX";
	char		path[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		err[0] = '\0';
		check(judge_text(cases[i].csv, strlen(cases[i].csv), &vs, err, sizeof(err)) != 0 &&
			  strstr(err, cases[i].message) != NULL,
			  "CSV: %s is refused naming the line (%s)", cases[i].what, err);
	}
	{
		/* results.csv writes budget_looks 0 when there was no --budget */
		const char *none = "configuration,round,tps,budget_looks,margin_pct,seed\nA,1,1000,0,5,7\n"
			"B,1,970,0,5,7\n";

		err[0] = '\0';
		check(judge_text(none, strlen(none), &vs, err, sizeof(err)) == 0 && vs.spec.nlooks == 0 &&
			  vs.table.seed == 7 && vs.spec.margin_pct == 5,
			  "CSV: budget_looks 0 is no budget; margin_pct 5 and seed 7 taken (%s)", err);
		wsb_verdicts_free(&vs);
	}
	/* the option refuses it with the same check */
	wsb_options_defaults(&o);
	check(wsb_check_margin("margin", "-5", &o.margin_pct, err, sizeof(err)) != 0 &&
		  strcmp(err, "margin: \"-5\" is not a percentage above 0 and below 100") == 0 &&
		  o.margin_pct == 5, "--margin -5: the same check (%s)", err);

	/* plan.txt read back by --resume: the same checks */
	if (mkdtemp(dir) == NULL)
	{
		check(false, "temporary directory for plan.txt");
		return;
	}
	snprintf(path, sizeof(path), "%s/plan.txt", dir);
	wsb_write_file(path, "# wal_stall_bench plan\nseed = 7\nmargin = -5\n");
	wsb_options_defaults(&o);
	wsb_strlcpy(o.resume, dir, sizeof(o.resume));
	check(wsb_resume_prepare(&o, false, err, sizeof(err)) != 0 &&
		  strstr(err, "plan.txt: margin: \"-5\" is not a percentage above 0 and below 100") != NULL,
		  "plan.txt with margin = -5: --resume refuses it (%s)", err);
	wsb_write_file(path, "# wal_stall_bench plan\nseed = 12abc\nmargin = 5\n");
	check(wsb_resume_prepare(&o, false, err, sizeof(err)) != 0 &&
		  strstr(err, "plan.txt: seed: \"12abc\" is not an integer") != NULL,
		  "plan.txt with seed = 12abc: --resume refuses it (%s)", err);
	unlink(path);
	rmdir(dir);
}

/* what is not CSV text: an error naming the line, never a silent end */
static void
test_malformed(void)
{
	static const char nul[] = "configuration,round,tps\nA,1,1000\nB,1,9\0" "00\nA,2,1000\nB,2,900\n";
	const char *quote = "configuration,round,tps\nA,1,1000\nB,\"1,900\nA,2,1000\n";
	size_t		big = 1024 * 1024 + 10;
	char	   *longrow = malloc(big + 64);
	WsbVerdicts vs;
	char		err[1024] = "";

	check(judge_text(nul, sizeof(nul) - 1, &vs, err, sizeof(err)) != 0 &&
		  strstr(err, "line 3: a NUL byte") != NULL,
		  "CSV: a NUL byte is an error naming its line (%s)", err);
	check(judge_text(quote, strlen(quote), &vs, err, sizeof(err)) != 0 &&
		  strstr(err, "line 3: unterminated quoted field") != NULL,
		  "CSV: an unterminated quote is an error naming its line (%s)", err);
	if (longrow == NULL)
		return;
	strcpy(longrow, "configuration,round,tps\nA,1,1000\n");
	memset(longrow + strlen(longrow), 'x', big);
	strcpy(longrow + strlen("configuration,round,tps\nA,1,1000\n") + big, ",1,900\n");
	check(judge_text(longrow, strlen(longrow), &vs, err, sizeof(err)) != 0 &&
		  strstr(err, "line 3: a row longer than 1048576 bytes") != NULL,
		  "CSV: a line past 1 MB is an error naming its line (%s)", err);
	free(longrow);
}

/* a column found by its name in the header, the first of two alike */
static void
test_csv_column(void)
{
	const char *text = "round,\"tps\",configuration,tps\r\n1,900,A,1\n";
	WsbCsvReader r;
	char		err[256] = "";

	if (!wsb_csv_reader_init(&r, text, strlen(text)))
		return;
	check(wsb_csv_next_row(&r, err, sizeof(err)) == 1 &&
		  wsb_csv_column(&r, "configuration") == 2 && wsb_csv_column(&r, "tps") == 1 &&
		  wsb_csv_column(&r, "config") == -1 && wsb_csv_column(&r, "") == -1,
		  "CSV: a column by its name (quoted or not), the first of two alike; "
		  "none by a prefix or an empty name");
	wsb_csv_reader_free(&r);
}

/* the last line of a file another account wrote, fit for root's terminal */
static void
test_last_line(void)
{
	static const char *const noise[] = {"progress:", "pgbench: hint:", NULL};
	char		log[] = "initdb: error: directory \"x\" exists but is not empty\r\n"
		"progress: 1.0 s\npgbench: hint: try this\n\n";
	char		esc[] = "first\nmoved \x1b[2J\x07 t\xc3\xa9\n";
	char		blank[] = "\n\r\n";
	char		longline[WSB_QUOTED_LINE_MAX + 50];
	char	   *line;

	line = wsb_last_line(log, noise);
	check(line && strcmp(line, "initdb: error: directory \"x\" exists but is not empty") == 0,
		  "last line: progress and hints skipped, CRLF ended (%s)", line ? line : "NULL");
	line = wsb_last_line(esc, NULL);
	check(line && strcmp(line, "moved ?[2J? t??") == 0,
		  "last line: control and non-ASCII bytes made '?' (%s)", line ? line : "NULL");
	check(wsb_last_line(blank, NULL) == NULL, "last line: none in blank lines");
	memset(longline, 'a', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	line = wsb_last_line(longline, NULL);
	check(line && strlen(line) == WSB_QUOTED_LINE_MAX,
		  "last line: cut at %d bytes", WSB_QUOTED_LINE_MAX);
}

/* round numbers far apart: the judgement is linear in the rows, not in
 * the largest round number */
static void
test_sparse_rounds(void)
{
	const char *crafted = "configuration,round,tps\nA,1000000,1\nB,1000000,1\n";
	const char *two = "configuration,round,tps\nA,5,1000\nB,5,1100\nA,1000000000,1000\nB,1000000000,1120\n"
		"A,77,1000\n";
	WsbVerdicts vs;
	char		err[1024] = "";
	double		t0 = seconds_now(),
				took;
	int			rc = judge_text(crafted, strlen(crafted), &vs, err, sizeof(err));

	took = seconds_now() - t0;
	check(rc == 0 && vs.v[WSB_N_METRICS].rounds == 1 &&
		  strcmp(vs.v[WSB_N_METRICS].words, "too few rounds") == 0 && took < 2,
		  "CSV A,1000000,1 / B,1000000,1: one round, \"too few rounds\", judged in %.3f s (%s)", took,
		  rc == 0 ? vs.v[WSB_N_METRICS].words : err);
	if (rc == 0)
		wsb_verdicts_free(&vs);
	rc = judge_text(two, strlen(two), &vs, err, sizeof(err));
	check(rc == 0 && vs.v[WSB_N_METRICS].rounds == 2, "CSV rounds 5, 77 and 10^9: two complete (%s)", err);
	if (rc == 0)
	{
		PQExpBufferData left;

		initPQExpBuffer(&left);
		wsb_left_out_rounds(&vs.table, &left);
		check(strcmp(left.data, "round 77 (not every configuration ran)") == 0,
			  "the rounds left out: round 77 alone (got \"%s\")", left.data);
		termPQExpBuffer(&left);
		wsb_verdicts_free(&vs);
	}
}

/* the signed-rank test takes every round, exact or approximated */
static void
test_rank_all_rounds(void)
{
	int			n = 1000;
	double	   *d = malloc(sizeof(double) * n);
	double		exact,
				normal;
	WsbPaired	p;
	WsbJudgeSpec spec = {5, 0.05, 0, 0};
	PQExpBufferData method;

	if (d == NULL)
		return;
	/* the first 64 rounds cancel (+k, -k), the other 936 all go up */
	for (int i = 0; i < 64; i++)
		d[i] = (i % 2 ? -1 : 1) * (0.001 * (i / 2 + 1));
	for (int i = 64; i < n; i++)
		d[i] = 0.0001 * (i + 1);
	check(wsb_signed_rank_p(d, 64) > 0.5, "signed-rank p of the 64 rounds that cancel: above 0.5 (%g)",
		  wsb_signed_rank_p(d, 64));
	check(wsb_signed_rank_p(d, n) < 1e-100, "signed-rank p of all 1000 rounds: every round counts (%g)",
		  wsb_signed_rank_p(d, n));
	/*
	 * at the switch from exact to normal the two agree closely: the same
	 * 200 values, and a zero (dropped) that takes the count past 200
	 */
	for (int i = 0; i < 200; i++)
		d[i] = (i % 5 < 2 ? -1 : 1) * (0.001 * (i + 1));
	d[200] = 0;
	exact = wsb_signed_rank_p(d, WSB_RANK_EXACT_MAX);
	normal = wsb_signed_rank_p(d, WSB_RANK_EXACT_MAX + 1);
	check(exact > 0.001 && exact < 0.2 && fabs(normal - exact) / exact < 0.05,
		  "signed-rank p of 200 values: exact %.5g, normal approximation %.5g: within 5%%", exact, normal);
	memset(&p, 0, sizeof(p));
	p.rounds = WSB_RANK_EXACT_MAX + 1;
	p.rank_p = normal;
	p.level = 0.95;
	initPQExpBuffer(&method);
	wsb_method_text(&spec, WSB_M_TPS, &p, &method);
	check(strstr(method.data, "signed-rank p") &&
		  strstr(method.data, "(normal approximation: more than 200 rounds)"),
		  "the method says which signed-rank test stood in (%s)", method.data);
	p.rounds = 12;
	resetPQExpBuffer(&method);
	wsb_method_text(&spec, WSB_M_TPS, &p, &method);
	check(strstr(method.data, "(exact)") != NULL, "the method says the p is exact at 12 rounds (%s)",
		  method.data);
	termPQExpBuffer(&method);
	free(d);
}

/* plan.txt names the target; --resume elsewhere is refused on that line */
static void
test_plan_target(void)
{
	WsbOptions	o;
	WsbPlan		plan;
	char		dir[] = "/tmp/wsb_unit_files_target.XXXXXX";
	char		path[256],
				err[1024],
				text[8192];

	wsb_options_defaults(&o);
	o.seed = 7;
	o.nsets = 1;
	wsb_strlcpy(o.pg_version, "PostgreSQL 15.10 (Debian 15.10-0+deb12u1)", sizeof(o.pg_version));
	wsb_strlcpy(o.pg_config, "/usr/lib/postgresql/15/bin/pg_config", sizeof(o.pg_config));
	if (wsb_parse_set("wal_buffers=1MB,4MB", &o.sets[0], err, sizeof(err)) != 0 ||
		wsb_make_plan(&o, &plan, err, sizeof(err)) != 0 || mkdtemp(dir) == NULL)
	{
		check(false, "plan for the target test: %s", err);
		return;
	}
	plan_text(&o, &plan, text, sizeof(text));
	check(strstr(text, "\ntarget = temporary\nserver_version = 15\n") != NULL &&
		  strstr(text, "\npg_config_version = PostgreSQL 15.10 (Debian 15.10-0+deb12u1)\n") != NULL &&
		  strstr(text, "\npg_config = /") != NULL,
		  "plan.txt: the target, the server's major version, pg_config and its version");
	snprintf(path, sizeof(path), "%s/plan.txt", dir);
	wsb_write_file(path, text);
	wsb_strlcpy(o.resume, dir, sizeof(o.resume));
	wsb_strlcpy(o.cluster, "15/main", sizeof(o.cluster));
	check(wsb_resume_check(&o, &plan, err, sizeof(err)) != 0 &&
		  strstr(err, "stored \"target = temporary\", now \"target = --cluster 15/main\"") != NULL,
		  "--resume of a temporary cluster's plan with --cluster 15/main: refused on the target line (%s)", err);
	o.cluster[0] = '\0';
	wsb_strlcpy(o.pg_version, "PostgreSQL 17.2", sizeof(o.pg_version));
	check(wsb_resume_check(&o, &plan, err, sizeof(err)) != 0 &&
		  strstr(err, "stored \"server_version = 15\", now \"server_version = 17\"") != NULL,
		  "--resume with another PostgreSQL: refused on the server_version line (%s)", err);
	wsb_strlcpy(o.pg_version, "PostgreSQL 15.10 (Debian 15.10-0+deb12u1)", sizeof(o.pg_version));
	check(wsb_resume_check(&o, &plan, err, sizeof(err)) == 0, "the same target passes (%s)", err);
	wsb_write_file(path, strstr(text, "seed = "));
	check(wsb_resume_check(&o, &plan, err, sizeof(err)) != 0 && strstr(err, "plan.txt names no target") != NULL,
		  "a plan.txt without the target line: refused, saying so (%s)", err);

	/* a --pgdata cluster's PG_VERSION is its owner's: a link there is not
	 * read through into plan.txt, a FIFO does not block */
	wsb_strlcpy(o.pgdata, dir, sizeof(o.pgdata));
	snprintf(path, sizeof(path), "%s/PG_VERSION", dir);
	wsb_write_file(path, "16\n");
	plan_text(&o, &plan, text, sizeof(text));
	check(strstr(text, "\nserver_version = 16\n") != NULL, "plan.txt: a --pgdata cluster's PG_VERSION read");
	unlink(path);
	snprintf(err, sizeof(err), "%s/secret", dir);
	wsb_write_file(err, "root's secret\n");
	check(symlink(err, path) == 0, "PG_VERSION made a link to a file of root's");
	plan_text(&o, &plan, text, sizeof(text));
	check(strstr(text, "\nserver_version = unknown\n") != NULL && strstr(text, "secret") == NULL,
		  "plan.txt: a PG_VERSION that links to a file of root's is not read through");
	unlink(path);
	unlink(err);
	check(mkfifo(path, 0600) == 0, "PG_VERSION made a FIFO");
	plan_text(&o, &plan, text, sizeof(text));
	check(strstr(text, "\nserver_version = unknown\n") != NULL, "plan.txt: a PG_VERSION that is a FIFO: unknown, at once");
	unlink(path);
	snprintf(path, sizeof(path), "%s/plan.txt", dir);
	wsb_plan_free(&plan);
	unlink(path);
	rmdir(dir);
}

/* Runs for a results.csv of a few hundred kB. */
static int
many_runs(WsbPlan *plan, WsbRun **runs)
{
	WsbOptions	o;
	char		err[512] = "";
	int			n;

	wsb_options_defaults(&o);
	o.seed = 3;
	o.nsets = 1;
	o.runs = 1000;
	if (wsb_parse_set("wal_buffers=1MB,4MB", &o.sets[0], err, sizeof(err)) != 0 ||
		wsb_make_plan(&o, plan, err, sizeof(err)) != 0)
		return -1;
	n = plan->nruns;
	*runs = calloc(n, sizeof(WsbRun));
	if (*runs == NULL)
		return -1;
	for (int i = 0; i < n; i++)
	{
		WsbRun	   *r = &(*runs)[i];

		r->config = plan->order[i];
		r->repeat = i / plan->nconfigs + 1;
		r->position = i % plan->nconfigs + 1;
		r->order = i + 1;
		r->ok = true;
		r->seconds = 30;
		r->tps = 1000 + i;
		r->collector_cpu_share = -1;
		r->started_at = (time_t) 1764496800 + 40 * i;
	}
	return n;
}

static int
count_rows(const char *text)
{
	int			n = 0;

	for (const char *p = text; *p; p++)
		n += *p == '\n';
	return n;
}

/*
 * SIGKILL while results.csv is written, again and again: every time the
 * file that is left is whole (a header, a row per run, the last line
 * ended).  Written in place (truncate, then write) a kill inside the write
 * leaves a part.
 */
static void
test_results_replaced_whole(void)
{
	WsbPlan		plan;
	WsbRun	   *runs = NULL;
	int			n = many_runs(&plan, &runs);
	char		dir[] = "/tmp/wsb_unit_files_kill.XXXXXX";
	char		path[256],
				cmd[300];
	int			whole = 0,
				tries = 40;
	size_t		len = 0;

	if (n < 0 || mkdtemp(dir) == NULL)
	{
		check(false, "runs and a directory for the SIGKILL test");
		free(runs);
		return;
	}
	snprintf(path, sizeof(path), "%s/results.csv", dir);
	check(wsb_write_results_csv(path, &plan, runs, n) == 0, "results.csv of %d runs written", n);
	for (int i = 0; i < tries; i++)
	{
		pid_t		pid = fork();
		char	   *text;
		int			status;

		if (pid == 0)
		{
			for (;;)
				(void) wsb_write_results_csv(path, &plan, runs, n);
		}
		/* somewhere inside a write: they take a few ms each */
		wsb_sleep(0.005 + 0.0013 * i);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		text = wsb_read_file(path, &len);
		if (text && count_rows(text) == n + 1 && len > 0 && text[len - 1] == '\n')
			whole++;
		free(text);
	}
	check(whole == tries, "SIGKILL during the results.csv write, %d times: the file left is whole %d times",
		  tries, whole);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	wsb_plan_free(&plan);
	free(runs);
}

/*
 * In a child, read path as --judge reads a CSV: 0 when it was refused with
 * a message holding want, 1 when it was read or refused otherwise, 2 when
 * it did not return within 5 s (a FIFO waited on, /dev/zero read on).
 */
static int
judge_refuses(const char *path, const char *want)
{
	pid_t		pid = fork();
	int			status;

	if (pid == 0)
	{
		WsbRoundTable t;
		char		err[512] = "";

		if (wsb_round_table_read_csv(path, NULL, NULL, 0, &t, err, sizeof(err)) == 0)
			_exit(1);
		_exit(strstr(err, want) ? 0 : 1);
	}
	for (int i = 0; i < 500; i++)
	{
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
		wsb_sleep(0.01);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return 2;
}

/* a CSV read back is read as untrusted input: regular files of a bounded
 * size only, never through a link */
static void
test_read_back(void)
{
	char		dir[] = "/tmp/wsb_unit_read_back.XXXXXX";
	char		fifo[64],
				link[64],
				big[64],
				csv[64],
				why[256];
	char	   *text;
	size_t		len = 0;
	FILE	   *f;

	if (mkdtemp(dir) == NULL)
	{
		check(false, "a directory for the read-back tests");
		return;
	}
	snprintf(fifo, sizeof(fifo), "%s/fifo.csv", dir);
	snprintf(link, sizeof(link), "%s/link.csv", dir);
	snprintf(big, sizeof(big), "%s/big.csv", dir);
	snprintf(csv, sizeof(csv), "%s/ok.csv", dir);
	f = fopen(csv, "w");
	if (f)
	{
		fputs("configuration,round,tps\nA,1,1000\nB,1,900\n", f);
		fclose(f);
	}
	check(mkfifo(fifo, 0600) == 0 && judge_refuses(fifo, "it is a FIFO, not a regular file") == 0,
		  "--judge on a FIFO: refused at once as no regular file");
	check(symlink(csv, link) == 0 && judge_refuses(link, "it is a symbolic link, which is not followed") == 0,
		  "--judge on a symbolic link to a CSV: refused, not followed");
	check(judge_refuses("/dev/zero", "it is a character device, not a regular file") == 0,
		  "--judge on /dev/zero: refused at once as no regular file");
	/* a sparse file: its size is declared, nothing of it is read */
	f = fopen(big, "w");
	check(f != NULL && ftruncate(fileno(f), (off_t) WSB_RESULTS_CSV_MAX + 1) == 0 && fclose(f) == 0 &&
		  judge_refuses(big, "more than the 268435456 bytes such a file may have") == 0,
		  "--judge on a file past the size cap: refused before it is read");
	f = fopen(csv, "w");
	if (f)
	{
		fputs("configuration,round,tps\nA,1,1000\nB,1,900\n", f);
		fclose(f);
	}
	text = wsb_read_back(csv, 41, &len, why, sizeof(why));
	check(text && len == 41 && strcmp(text, "configuration,round,tps\nA,1,1000\nB,1,900\n") == 0,
		  "wsb_read_back: a regular file of exactly the cap is read whole (%s)", text ? "" : why);
	free(text);
	text = wsb_read_back(csv, 40, &len, why, sizeof(why));
	check(text == NULL && errno == EFBIG, "wsb_read_back: a byte past the cap is refused (%s)", why);
	free(text);
	text = wsb_read_back(dir, 1024, &len, why, sizeof(why));
	check(text == NULL && strcmp(why, "it is a directory, not a regular file") == 0,
		  "wsb_read_back: a directory is refused (%s)", why);
	unlink(fifo);
	unlink(link);
	unlink(big);
	unlink(csv);
	rmdir(dir);
}

/* --cluster VERSION/NAME: kept whole up to 127 bytes, else one message */
static void
test_cluster_names(void)
{
	char		name[260],
				arg[300],
				err[512] = "";
	char	   *argv[4] = {"wal_stall_bench", "--cluster", arg, NULL};
	WsbOptions	o;

	memset(name, 'n', 100);
	name[100] = '\0';
	snprintf(arg, sizeof(arg), "15/%s", name);
	check(wsb_parse_args(3, argv, "presets", &o, err, sizeof(err)) == 0 && strcmp(o.cluster, arg) == 0,
		  "--cluster with a 100-byte name: kept whole (%s)", err);
	memset(name, 'n', 200);
	name[200] = '\0';
	snprintf(arg, sizeof(arg), "15/%s", name);
	check(wsb_parse_args(3, argv, "presets", &o, err, sizeof(err)) != 0 &&
		  strstr(err, "--cluster: name too long") && strstr(err, "(203 bytes, at most 127)"),
		  "--cluster with a 200-byte name: refused as too long (%.80s)", err);
	snprintf(arg, sizeof(arg), "15/two words");
	check(wsb_parse_args(3, argv, "presets", &o, err, sizeof(err)) != 0 &&
		  strstr(err, "is not VERSION/NAME") != NULL, "--cluster with a blank in the name: refused (%s)", err);
	snprintf(arg, sizeof(arg), "v15/main");
	check(wsb_parse_args(3, argv, "presets", &o, err, sizeof(err)) != 0 &&
		  strstr(err, "is not VERSION/NAME") != NULL, "--cluster with a version not of digits: refused (%s)", err);
}

/*
 * --judge DIR of a wal_buffers sweep: the section again from the run's
 * ring.csv, with the verdicts judged now; its cells read as untrusted.
 */
static void
test_ring_judged(void)
{
	static const char ring_head[] =
		"configuration,wal_buffers_bytes,runs,wrap_around_share,settled,tps_median,tps_by_rounds\n";
	PQExpBufferData csv;
	WsbVerdicts vs;
	char		err[1024] = "";
	char		dir[] = "/tmp/wsb_unit_ring.XXXXXX";
	char		ring[64];
	const char *text;
	char	   *out = NULL;
	size_t		outlen = 0;
	FILE	   *f;
	int			rc;

	initPQExpBuffer(&csv);
	appendPQExpBufferStr(&csv, "configuration,round,tps\n");
	for (int r = 1; r <= 8; r++)
		appendPQExpBuffer(&csv, "wal_buffers=16MB,%d,%d\nwal_buffers=1MB,%d,%d\n"
						  "wal_buffers=64kB,%d,%d\n", r, 1000 + r % 3, r, 1001 - r % 2, r,
						  999 + r % 2);
	rc = judge_text(csv.data, csv.len, &vs, err, sizeof(err));
	termPQExpBuffer(&csv);
	check(rc == 0, "a sweep's results judged (%s)", err);
	if (rc != 0)
		return;
	if (mkdtemp(dir) == NULL)
	{
		check(false, "a temporary directory for ring.csv");
		wsb_verdicts_free(&vs);
		return;
	}
	snprintf(ring, sizeof(ring), "%s/ring.csv", dir);

	text = "configuration,wal_buffers_bytes,runs,wrap_around_share,settled,tps_median,"
		"tps_by_rounds\nwal_buffers=64kB,65536,8,0.020000,false,999.500,\n"
		"wal_buffers=4MB,4194304,8,0.000100,true,1000.000,\n"
		"wal_buffers=1MB,1048576,8,0.001000,true,1000.500,\n"
		"wal_buffers=16MB,16777216,8,0.000000,true,nan,\n";
	f = open_memstream(&out, &outlen);
	rc = f ? wsb_ring_judge_print(f, ring, text, strlen(text), &vs, err, sizeof(err)) : -2;
	if (f)
		fclose(f);
	check(rc == 0 && out && strstr(out, "\n64kB       2.000        1000     equivalent within +-5%") &&
		  strstr(out, "\n16MB       0.000        nan      baseline\n") && !strstr(out, "4MB"),
		  "--judge of a sweep: its sizes from ring.csv, the verdicts judged now, a row of no "
		  "configuration judged left out, \"nan\" a figure the run lacked");
	check(out && strstr(out, "The tipping point on this machine: 1MB."),
		  "... and the tipping-point sentence");
	free(out);
	out = NULL;

	/* the same section in report.html, the chart beside it */
	f = open_memstream(&out, &outlen);
	rc = f ? wsb_ring_judge_html(f, dir, ring, text, strlen(text), &vs, err, sizeof(err)) : -2;
	if (f)
		fclose(f);
	check(rc == 0 && out && strstr(out, "<h2>wal_buffers by size</h2>") &&
		  strstr(out, "<tr><td>64kB</td><td>wal_buffers=64kB</td><td class=\"n\">2.000</td>") &&
		  strstr(out, "The tipping point on this machine: 1MB.") && !strstr(out, "4MB"),
		  "--judge --out of a sweep: the same rows and sentence in report.html");
	free(out);
	out = NULL;
	/* a chart that cannot be drawn is named missing, the section stands */
	f = open_memstream(&out, &outlen);
	rc = f ? wsb_ring_judge_html(f, "/nonexistent/wsb_plots", ring, text, strlen(text), &vs, err,
								 sizeof(err)) : -2;
	if (f)
		fclose(f);
	check(rc == 0 && out && strstr(out, "The tipping point on this machine: 1MB.") &&
		  strstr(out, "<p class=\"missing\">wal_buffers chart missing: ring.svg could not be "
				 "read</p>"),
		  "... and without its chart: the section, the chart named missing");
	free(out);
	out = NULL;

	/* its cells are untrusted input */
	{
		FILE	   *devnull = fopen("/dev/null", "w");

		if (devnull == NULL)
		{
			check(false, "/dev/null opened");
			devnull = stdout;
		}
		static const struct
		{
			const char *row;
			const char *message;
		}			cases[] = {
			{"wal_buffers=1MB,1048576,8,abc,true,1000,\n",
			"line 2: wrap_around_share is not a number in its range: \"abc\""},
			{"wal_buffers=1MB,1048576,8,-0.1,true,1000,\n",
			"line 2: wrap_around_share is not a number in its range: \"-0.1\""},
			{"wal_buffers=1MB,1048576,8,\"0.1\x1b[2J\",true,1000,\n",
			"line 2: wrap_around_share is not a number in its range"},
			{"wal_buffers=1MB,1048576,8,0.1,true,1000,\nwal_buffers=1MB,1048576,8,0.1,true,1000,\n",
			"line 3: a second row of one configuration"},
			{"wal_buffers=1MB,-8,8,0.1,true,1000,\n",
			"line 2: wal_buffers_bytes is not a number in its range: \"-8\""},
			{"wal_buffers=1MB,1048576,8,0.1,true,1e400,\n",
			"line 2: tps_median is not a number in its range: \"1e400\""},
			{"wal_buffers=1MB,1MB,8,0.1,true,1000,\n",
			"line 2: wal_buffers_bytes is not a number in its range: \"1MB\""},
			{"wal_buffers=1MB,1048576.5,8,0.1,true,1000,\n",
			"line 2: wal_buffers_bytes is not a number in its range: \"1048576.5\""},
		};

		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		{
			char		bad[512];
			size_t		tail = strlen(cases[i].message);

			snprintf(bad, sizeof(bad), "%s%s", ring_head, cases[i].row);
			err[0] = '\0';
			rc = wsb_ring_judge_print(devnull, ring, bad, strlen(bad), &vs, err, sizeof(err));
			check(rc == -1 && strlen(err) >= tail &&
				  strcmp(err + strlen(err) - tail, cases[i].message) == 0 &&
				  strchr(err, '\x1b') == NULL,
				  "ring.csv %s: refused, no control character echoed (%s)", cases[i].message, err);
		}
		text = "configuration,runs\nwal_buffers=1MB,8\n";
		rc = wsb_ring_judge_print(devnull, ring, text, strlen(text), &vs, err, sizeof(err));
		check(rc == -1 && strstr(err, "needs the columns configuration, wal_buffers_bytes, "
								 "wrap_around_share and tps_median"),
			  "ring.csv without its columns: refused (%s)", err);
		if (devnull != stdout)
			fclose(devnull);
	}
	snprintf(ring, sizeof(ring), "rm -rf '%s'", dir);
	if (system(ring) != 0)
		check(false, "%s", ring);
	wsb_verdicts_free(&vs);
}

void
test_files(void)
{
	test_cluster_names();
	test_declared_numbers();
	test_malformed();
	test_csv_column();
	test_last_line();
	test_sparse_rounds();
	test_rank_all_rounds();
	test_plan_target();
	test_results_replaced_whole();
	test_read_back();
	test_ring_judged();
}
