/*-------------------------------------------------------------------------
 *
 * run.c
 *		wal_stall_bench: one run.
 *
 * Before: CHECKPOINT, pg_stat_reset_shared('wal'), wal_stall_reset().
 * During: pgbench -T duration with its per-transaction log (-l) and
 * --progress=1; every second the harness polls wal_stall_history(since)
 * over libpq and reads pgbench's newest progress line for the live line.
 * After: pgbench's summary tps; the log parsed into per-second buckets and
 * a latency histogram (p99); a pause of 1.5 s, since backends publish
 * their WAL counters at most once a second; then wal_stall_summary and
 * the history rows closed since the run ended, wal_stall_clog, pg_stat_wal (reset before, so the run's delta),
 * wal_stall_status() and wal_stall_advice(); with pg_stat_statements
 * preloaded (and reset before the run too), the five statements with the
 * most stall time in wal_stall_queries, with their text; the collector's
 * CPU share from /proc/PID/schedstat.
 * When wal_stall is not loaded (shared_preload_libraries = '' in the
 * overhead preset) its rows stay empty and the pgbench figures remain.
 * With --validate, every other run is traced (validate.c): bpftrace is
 * attached after the resets and before pgbench, pg_stat_activity is polled
 * each second to tell client backends from the other processes, and the
 * tracer is stopped after the pause, right before the figures are read.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <libpq-fe.h>

#include "aged.h"
#include "engine.h"
#include "expbuffer.h"
#include "gauge.h"
#include "sql.h"
#include "validate.h"

/*
 * pgbench's arguments.  random_seed: pgbench --random-seed, the same for
 * every configuration of a round, so that their clients draw the same
 * accounts in the same order as far as scheduling lets them (common random
 * numbers: a difference in what the draws hit is not taken for one of the
 * configurations); NULL leaves it out (the report's copy says "ROUND").
 * A --random-seed in --pgbench-args wins.
 */
static void
add_pgbench_args(WsbCommand *c, const WsbTarget *t, const WsbOptions *o, int seconds,
				 const char *logprefix, const char *random_seed)
{
	const char *user = getenv("PGUSER");

	wsb_cmd_add(c, "%s/pgbench", o->bindir);
	wsb_cmd_add(c, "-h");
	wsb_cmd_add(c, "%s", t->sockdir);
	wsb_cmd_add(c, "-p");
	wsb_cmd_add(c, "%d", t->port);
	wsb_cmd_add(c, "-U");
	wsb_cmd_add(c, "%s", user && *user ? user : t->owner);
	wsb_cmd_add(c, "-c");
	wsb_cmd_add(c, "%d", o->clients);
	wsb_cmd_add(c, "-j");
	wsb_cmd_add(c, "%d", o->jobs);
	wsb_cmd_add(c, "-T");
	wsb_cmd_add(c, "%d", seconds);
	if (logprefix)
	{
		wsb_cmd_add(c, "--progress=1");
		wsb_cmd_add(c, "-l");
		wsb_cmd_add(c, "--log-prefix=%s", logprefix);
	}
	if (strstr(o->pgbench_args, "--random-seed") == NULL)
		wsb_cmd_add(c, "--random-seed=%s", random_seed ? random_seed : "ROUND");
	if (o->script[0] || o->aged_pages > 0)
		wsb_cmd_add(c, "--file=%s/script.sql", t->workdir);
	else
		wsb_cmd_add(c, "--builtin=%s", o->builtin);
	if (o->pgbench_args[0])
	{
		char		buf[1024];
		char	   *save = NULL;

		wsb_strlcpy(buf, o->pgbench_args, sizeof(buf));
		for (char *a = strtok_r(buf, " \t", &save); a; a = strtok_r(NULL, " \t", &save))
			wsb_cmd_add(c, "%s", a);
	}
	if (o->aged_pages > 0)
	{
		wsb_cmd_add(c, "-D");
		wsb_cmd_add(c, "aged_rows=%lld", wsb_aged_rows(o));
		wsb_cmd_add(c, "%s", WSB_AGED_RUN_DB);	/* the run's fresh copy */
	}
	else
		wsb_cmd_add(c, "%s", t->dbname);
}

/* The pgbench command line of a run, for the report: malloc'd. */
char *
wsb_pgbench_command(const WsbTarget *t, const WsbOptions *o)
{
	WsbCommand	c;
	PQExpBufferData buf;
	char	   *line;

	wsb_cmd_init(&c, (uid_t) -1, (gid_t) -1);
	add_pgbench_args(&c, t, o, o->duration, "DIR/pgbench_log", NULL);
	initPQExpBuffer(&buf);
	for (int i = 0; i < c.argc; i++)
		appendPQExpBuffer(&buf, "%s%s", i > 0 ? " " : "", c.argv[i]);
	line = wsb_xstrdup(wsb_buffer_text(&buf));
	termPQExpBuffer(&buf);
	wsb_cmd_free(&c);
	return line;
}

static double
schedstat_ns(int pid)
{
	char		path[64];
	char	   *text;
	double		ns = -1;

	if (pid <= 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
	text = wsb_read_file(path, NULL);
	if (text)
		ns = strtod(text, NULL);
	free(text);
	return ns;
}

/* Append the history rows newer than *since; move *since on. */
static void
poll_history(WsbTarget *t, WsbRun *run, char *since, size_t sincelen, WsbRows *newest)
{
	WsbRows		r;
	char		err[256];
	const char *p[1] = {since};

	/* sample_epoch: the row's time as Unix seconds, for the per-second join
	 * (figures.c) */
	if (wsb_sql_rows(t->conn,
					 "SELECT h.*, pg_catalog.date_part('epoch', h.sample_time) AS sample_epoch "
					 "FROM public.wal_stall_history($1::pg_catalog.timestamptz) h ORDER BY h.sample_time",
					 1, p, &r, err, sizeof(err)) != 0)
	{
		if (!run->error[0])		/* said once per run; the run goes on */
		{
			wsb_note("run %d: wal_stall_history: %s", run->order, err);
			snprintf(run->error, sizeof(run->error), "wal_stall_history: %.400s", err);
		}
		return;
	}
	if (r.nrows > 0)
	{
		const char *last = wsb_rows_get(&r, r.nrows - 1, "sample_time");

		if (last)
			wsb_strlcpy(since, last, sincelen);
		wsb_rows_append(&run->history, &r);
		wsb_rows_free(newest);
		*newest = (WsbRows) {0};
		/* keep only the newest row for the progress line */
		{
			WsbRows		one = r;

			one.cells = &r.cells[r.nrows - 1];
			one.nrows = 1;
			wsb_rows_append(newest, &one);
		}
	}
	wsb_rows_free(&r);
}

/*
 * The newest "progress:" line pgbench wrote to its stderr file, which is
 * the owner's: opened without following a link, and only a regular file.
 */
static bool
read_progress(const char *path, long *offset, double *tps)
{
	int			fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	FILE	   *f;
	char		line[512];
	bool		found = false;

	if (fd < 0)
		return false;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (f = fdopen(fd, "r")) == NULL)
	{
		close(fd);
		return false;
	}
	if (fseek(f, *offset, SEEK_SET) != 0)
	{
		fclose(f);
		return false;
	}
	while (fgets(line, sizeof(line), f))
	{
		double		el,
					tp,
					lat;

		if (line[strlen(line) - 1] != '\n')
			break;				/* half-written: read it next time */
		*offset = ftell(f);
		if (wsb_pgbench_parse_progress(line, &el, &tp, &lat))
		{
			*tps = tp;
			found = true;
		}
	}
	fclose(f);
	return found;
}

static void
progress_line(const WsbPlan *plan, const WsbRun *run, int nruns, double elapsed,
			  int duration, double tps, const WsbRows *newest, bool tty)
{
	PQExpBufferData line;
	const char *classes[][2] = {
		{"wal_buffer_full_ms", "buffer_full"}, {"wal_flush_ms", "flush"},
		{"wal_insert_ms", "insert"}, {"clog_ms", "clog"}
	};

	initPQExpBuffer(&line);
	if (isnan(tps))				/* pgbench's first progress line comes at 1 s */
		appendPQExpBuffer(&line, "run %d/%d  %s  %3.0f/%d s       - tps",
						  run->order, nruns, plan->configs[run->config].label, elapsed, duration);
	else
		appendPQExpBuffer(&line, "run %d/%d  %s  %3.0f/%d s  %6.0f tps",
						  run->order, nruns, plan->configs[run->config].label, elapsed, duration, tps);
	if (newest->nrows > 0)
	{
		appendPQExpBufferStr(&line, "  stall ms");
		for (int i = 0; i < 4; i++)
			appendPQExpBuffer(&line, " %s %.0f",
							  classes[i][1], wsb_rows_double(newest, 0, classes[i][0], 0));
		appendPQExpBuffer(&line, "  ring %.0f%%",
						  100 * wsb_rows_double(newest, 0, "buffer_fill_max", 0));
	}
	if (tty)
		fprintf(stderr, "\r%s\033[K", wsb_buffer_text(&line));
	else
		fprintf(stderr, "%s\n", wsb_buffer_text(&line));
	termPQExpBuffer(&line);
}

static void
fetch_after(WsbTarget *t, const char *sql, WsbRows *into)
{
	char		err[256];

	if (wsb_sql_rows(t->conn, sql, 0, NULL, into, err, sizeof(err)) != 0)
		memset(into, 0, sizeof(*into));
}

/*
 * Can the run read pg_stat_statements?  It must be preloaded (the
 * configuration decides shared_preload_libraries) and the extension must
 * exist in the harness's database.  There the harness creates it when the
 * database is its own (the temporary cluster's, or wal_stall_bench when it
 * created it for --pgdata, dropped at the end); in a wal_stall_bench
 * database it found, only an extension already there is used.  false with
 * why otherwise.
 */
static bool
statements_ready(WsbTarget *t, char *why, size_t whylen)
{
	char		v[WSB_VALUE_LEN],
				err[256];

	if (wsb_target_preload_libraries(t, v, sizeof(v), err, sizeof(err)) != 0)
	{
		snprintf(why, whylen, "could not read shared_preload_libraries: %.200s", err);
		return false;
	}
	if (strstr(v, "pg_stat_statements") == NULL)
	{
		snprintf(why, whylen, "pg_stat_statements is not in shared_preload_libraries");
		return false;
	}
	if (wsb_sql_value(t->conn, "SELECT pg_catalog.count(*) FROM pg_catalog.pg_extension WHERE extname = 'pg_stat_statements'::pg_catalog.name",
					  NULL, v, sizeof(v), err, sizeof(err)) != 0)
	{
		snprintf(why, whylen, "could not look for extension pg_stat_statements: %.200s", err);
		return false;
	}
	if (strcmp(v, "0") != 0)
		return true;
	/* created only when absent: IF NOT EXISTS would print its notice */
	if (t->temporary || t->created_db)
	{
		if (wsb_sql_exec(t->conn, "CREATE EXTENSION pg_stat_statements SCHEMA public", err, sizeof(err)) == 0)
			return true;
		snprintf(why, whylen, "could not create extension pg_stat_statements: %.200s", err);
		return false;
	}
	snprintf(why, whylen, "extension pg_stat_statements does not exist in database \"%s\"",
			 t->dbname);
	return false;
}

/*
 * The five statements with the most client stall time, with their text.
 * pg_stat_statements keeps a top-level and a nested entry per statement
 * from 1.9 (PostgreSQL 14) on; wal_stall_queries charges top-level
 * statements, so the join takes the top-level one where the column exists.
 */
static void
fetch_statements(WsbTarget *t, WsbRun *run)
{
	PQExpBufferData sql;
	char		v[16] = "0",
				err[256];

	wsb_sql_value(t->conn, "SELECT pg_catalog.count(*) FROM pg_catalog.pg_attribute "
				  "WHERE attrelid = 'public.pg_stat_statements'::pg_catalog.regclass "
				  "AND attname = 'toplevel'::pg_catalog.name",
				  NULL, v, sizeof(v), err, sizeof(err));
	initPQExpBuffer(&sql);
	appendPQExpBuffer(&sql,
					  "SELECT q.queryid, pg_catalog.left(s.query, 200) AS query, pg_catalog.sum(q.total_ms) AS stall_ms, "
					  "pg_catalog.string_agg(q.class || ' ' || pg_catalog.round(q.total_ms::pg_catalog.numeric, 1), ', ' "
					  "ORDER BY q.total_ms DESC) AS by_class "
					  "FROM public.wal_stall_queries q LEFT JOIN public.pg_stat_statements s "
					  "ON s.userid = q.userid AND s.dbid = q.dbid AND s.queryid = q.queryid%s "
					  "WHERE q.class IN ('wal_buffer_full', 'wal_flush', 'wal_insert', 'clog') "
					  "GROUP BY q.queryid, s.query ORDER BY stall_ms DESC LIMIT 5",
					  strcmp(v, "0") != 0 ? " AND s.toplevel" : "");
	if (wsb_sql_rows(t->conn, wsb_buffer_text(&sql), 0, NULL, &run->statements, err, sizeof(err)) != 0)
	{
		memset(&run->statements, 0, sizeof(run->statements));
		snprintf(run->statements_why, sizeof(run->statements_why), "%.250s", err);
	}
	termPQExpBuffer(&sql);
}

/* --validate: the backend types of the cluster's processes, for the tracer */
static void
note_backends(WsbTarget *t, WsbTracer *tracer)
{
	WsbRows		a;

	fetch_after(t, "SELECT pid, backend_type FROM pg_catalog.pg_stat_activity", &a);
	wsb_tracer_note(tracer, &a);
	wsb_rows_free(&a);
}

/* --validate: bpftrace on the cluster of our own connection's backend */
static WsbTracer *
start_tracer(WsbTarget *t, const WsbOptions *o, const WsbRun *run, char *err, size_t errlen)
{
	WsbRows		b;
	WsbTracer  *tracer;

	fetch_after(t, "SELECT pg_catalog.pg_backend_pid() AS pid", &b);
	tracer = wsb_tracer_start(o, t->workdir, run->order, (int) wsb_rows_double(&b, 0, "pid", 0),
							  err, errlen);
	wsb_rows_free(&b);
	if (tracer)
		note_backends(t, tracer);
	return tracer;
}

/*
 * Does this configuration run with its instrument?  One that names
 * shared_preload_libraries decides alone (the overhead preset's '' is a
 * baseline without wal_stall); every other one must have wal_stall loaded
 * and its collector running after the restart, or the run would measure
 * nothing and read as a run without stalls.  The collector is a background
 * worker the postmaster starts shortly after the restart: waited for, 10 s
 * at most.  0, or -1 with why.
 */
static int
instrument_ready(WsbTarget *t, const WsbConfig *cf, bool loaded, char *why, size_t whylen)
{
	bool		wanted = true;
	char		spl[WSB_VALUE_LEN] = "",
				pid[32] = "",
				err[256];

	for (int i = 0; i < cf->nsettings; i++)
		if (strcasecmp(cf->names[i], "shared_preload_libraries") == 0)
			wanted = strstr(cf->values[i], "wal_stall") != NULL;
	if (!wanted)
		return 0;
	if (!loaded)
	{
		wsb_target_preload_libraries(t, spl, sizeof(spl), err, sizeof(err));
		snprintf(why, whylen, "wal_stall is not loaded (shared_preload_libraries = '%s'): "
				 "the run would measure nothing", spl);
		return -1;
	}
	for (int i = 0; i < 100 && !wsb_interrupted; i++)
	{
		if (wsb_sql_value(t->conn, "SELECT collector_pid FROM public.wal_stall_status()", NULL,
						  pid, sizeof(pid), err, sizeof(err)) != 0)
		{
			snprintf(why, whylen, "could not read wal_stall_status(): %.200s", err);
			return -1;
		}
		if (pid[0])
			return 0;
		usleep(100000);
	}
	snprintf(why, whylen, "wal_stall is loaded but its collector is not running "
			 "(see the server log for the wal_stall collector's exit)");
	return -1;
}

/* What the steps of one run share. */
typedef struct RunState
{
	WsbTarget  *t;
	const WsbOptions *o;
	const WsbPlan *plan;
	WsbRun	   *run;
	int			nruns;
	bool		loaded;			/* wal_stall is in shared_preload_libraries */
	bool		statements;		/* pg_stat_statements is there, and reset */
	bool		tty;			/* a live progress line on stderr */
	WsbTracer  *tracer;			/* --validate, this run traced */
	int			collector;		/* the collector's pid, for its CPU share */
	double		cpu0;			/* its CPU time before the run, ns; -1 */
	double		start;			/* pgbench started, wsb_now() */
	char		since[64];		/* the newest history row read */
	/* from start_pgbench on, malloc'd (free_paths) */
	char	   *prefix;			/* WORKDIR/run_N: pgbench's log files */
	char	   *outpath;		/* pgbench's stdout */
	char	   *errpath;		/* pgbench's stderr: progress lines */
} RunState;

static void
free_paths(RunState *s)
{
	free(s->prefix);
	free(s->outpath);
	free(s->errpath);
	s->prefix = s->outpath = s->errpath = NULL;
}

/* The run failed: why into run->error (as much as it holds) and err. */
static int
run_failed(WsbRun *run, char *err, size_t errlen, const char *why)
{
	snprintf(run->error, sizeof(run->error), "%s", why);
	snprintf(err, errlen, "%s", why);
	return -1;
}

/* the CLOG's row of pg_stat_slru: "Xact" before 17, "transaction" from 17 */
static const char slru_clog_sql[] =
"SELECT blks_hit, blks_read FROM pg_catalog.pg_stat_slru WHERE name IN ('Xact', 'transaction')";

/*
 * wal_stall_reset() and the CLOG's SLRU counters in one transaction: both
 * read the same snapshot of the statistics, so that the run's hits and
 * reads from pg_stat_slru (after minus before) cover what wal_stall_clog's
 * do, to the page.  The counts before go into run->slru_clog_*.
 */
static int
reset_and_read_slru(RunState *s, char *msg, size_t len)
{
	WsbTarget  *t = s->t;
	WsbRows		rows = {0};
	int			rc;

	s->run->slru_clog_hits = s->run->slru_clog_reads = -1;
	if (wsb_sql_exec(t->conn, "BEGIN", msg, len) != 0)
		return -1;
	rc = (s->loaded && wsb_sql_exec(t->conn, "SELECT public.wal_stall_reset()", msg, len) != 0) ||
		wsb_sql_rows(t->conn, slru_clog_sql, 0, NULL, &rows, msg, len) != 0 ? -1 : 0;
	if (rc == 0)
		rc = wsb_sql_exec(t->conn, "COMMIT", msg, len);
	else
	{
		char		ignored[256];

		wsb_sql_exec(t->conn, "ROLLBACK", ignored, sizeof(ignored));
	}
	if (rc == 0 && rows.nrows == 1)
	{
		s->run->slru_clog_hits = (int64_t) wsb_rows_double(&rows, 0, "blks_hit", -1);
		s->run->slru_clog_reads = (int64_t) wsb_rows_double(&rows, 0, "blks_read", -1);
	}
	wsb_rows_free(&rows);
	return rc;
}

/*
 * After the run, in one transaction again: wal_stall_clog and the CLOG's
 * SLRU counters, which become the run's deltas (-1 when either is unknown).
 */
static void
read_clog_and_slru(RunState *s)
{
	WsbTarget  *t = s->t;
	WsbRun	   *run = s->run;
	WsbRows		rows = {0};
	char		msg[512];
	int64_t		hits = -1,
				reads = -1;

	if (wsb_sql_exec(t->conn, "BEGIN", msg, sizeof(msg)) != 0)
		return;
	if (s->loaded)
	if (wsb_sql_rows(t->conn, slru_clog_sql, 0, NULL, &rows, msg, sizeof(msg)) == 0 && rows.nrows == 1)
	{
		hits = (int64_t) wsb_rows_double(&rows, 0, "blks_hit", -1);
		reads = (int64_t) wsb_rows_double(&rows, 0, "blks_read", -1);
	}
	wsb_rows_free(&rows);
	wsb_sql_exec(t->conn, "COMMIT", msg, sizeof(msg));
	run->slru_clog_hits = hits >= 0 && run->slru_clog_hits >= 0 ? hits - run->slru_clog_hits : -1;
	run->slru_clog_reads = reads >= 0 && run->slru_clog_reads >= 0 ? reads - run->slru_clog_reads : -1;
}

static void pgbench_failure(const char *errpath, uid_t owner, int status, char *why, size_t whylen);

/*
 * pgbench's --random-seed for a run of the round, the same for every
 * configuration of it: from the experiment's seed and the round; a
 * warm-up draws from a seed of its own (part 1), so that the run does not
 * replay the accounts the warm-up has just touched.
 */
static void
round_seed(const RunState *s, int part, char *buf, size_t len)
{
	snprintf(buf, len, "%lld",
			 ((s->plan->seed >= 0 ? s->plan->seed % 1000000000LL : 0) * 1000 + s->run->repeat) * 2 + part);
}

/*
 * --warmup: the same pgbench for o->warmup seconds, not logged and not
 * counted, before the run's CHECKPOINT.  After a restart shared buffers
 * are empty; counted, the seconds that fill them would measure the restart
 * rather than the configuration.  It comes before the CHECKPOINT, not
 * after: with full_page_writes the WAL a transaction writes depends on how
 * many pages it is the first to change since the last checkpoint (on the
 * quick preset 13 kB a transaction just after one, 6 kB ten seconds
 * later), so a warm-up between the checkpoint and the run, whose length in
 * transactions differs from run to run, would start each counted run at a
 * different point of that decline.  Every run gets it, restarted or not,
 * so that all runs start alike.  0, -1 with why (also when interrupted).
 */
static int
warm_up(RunState *s, char *why, size_t whylen)
{
	WsbCommand	c;
	char		seed[32],
			   *out,
			   *err;
	pid_t		pid;
	int			status;

	round_seed(s, 1, seed, sizeof(seed));
	wsb_cmd_init(&c, s->t->uid, s->t->gid);
	add_pgbench_args(&c, s->t, s->o, s->o->warmup, NULL, seed);
	out = wsb_psprintf("%s/warmup_%d.out", s->t->ownerdir, s->run->order);
	err = wsb_psprintf("%s/warmup_%d.err", s->t->ownerdir, s->run->order);
	c.stdout_path = out;
	c.stderr_path = err;
	pid = wsb_cmd_start(&c);
	if (pid < 0)
		snprintf(why, whylen, "could not start the warm-up's pgbench: %s", strerror(errno));
	wsb_cmd_free(&c);
	free(out);
	while (pid >= 0 && wsb_proc_wait(pid, 0, &status) != 1)
	{
		if (wsb_interrupted)
		{
			wsb_proc_stop(pid, SIGTERM, 5.0, true);
			snprintf(why, whylen, "interrupted in the warm-up");
			pid = -1;
			break;
		}
		usleep(50000);
	}
	if (pid >= 0 && (!WIFEXITED(status) || WEXITSTATUS(status) != 0))
	{
		char		msg[512];

		pgbench_failure(err, s->t->uid, status, msg, sizeof(msg));
		snprintf(why, whylen, "the %d s warm-up: %.400s", s->o->warmup, msg);
		pid = -1;
	}
	free(err);
	return pid < 0 ? -1 : 0;
}

/*
 * Before pgbench: the instrument is there, the warm-up, a CHECKPOINT, the
 * counters are reset, the collector's CPU time and the server's clock are
 * read.  0, or -1 with why.
 */
static int
prepare_run(RunState *s, char *why, size_t whylen)
{
	WsbTarget  *t = s->t;
	WsbRun	   *run = s->run;
	char		msg[512];
	WsbRows		now;

	if (instrument_ready(t, &s->plan->configs[run->config], s->loaded, why, whylen) != 0)
		return -1;
	if (!s->loaded)
		snprintf(run->statements_why, sizeof(run->statements_why), "wal_stall is not loaded");
	else
		s->statements = statements_ready(t, run->statements_why, sizeof(run->statements_why));
	if (s->o->warmup > 0 && warm_up(s, why, whylen) != 0)
		return -1;
	if (wsb_sql_exec(t->conn, "CHECKPOINT", msg, sizeof(msg)) != 0)
	{
		snprintf(why, whylen, "before the run: %.400s", msg);
		return -1;
	}
	if (wsb_sql_exec(t->conn, "SELECT pg_catalog.pg_stat_reset_shared('wal'::pg_catalog.text)", msg, sizeof(msg)) != 0 ||
		reset_and_read_slru(s, msg, sizeof(msg)) != 0 ||
		(s->statements && wsb_sql_exec(t->conn, "SELECT public.pg_stat_statements_reset()", msg, sizeof(msg)) != 0))
	{
		snprintf(why, whylen, "before the run: %.400s", msg);
		return -1;
	}
	if (s->loaded)
	{
		WsbRows		st;

		fetch_after(t, "SELECT collector_pid FROM public.wal_stall_status()", &st);
		s->collector = (int) wsb_rows_double(&st, 0, "collector_pid", 0);
		wsb_rows_free(&st);
		s->cpu0 = schedstat_ns(s->collector);
	}
	fetch_after(t, "SELECT pg_catalog.clock_timestamp()::pg_catalog.text AS now", &now);
	wsb_strlcpy(s->since, wsb_rows_get(&now, 0, "now") ? wsb_rows_get(&now, 0, "now") : "now",
				sizeof(s->since));
	wsb_rows_free(&now);
	return 0;
}

/*
 * Start pgbench, its output and transaction logs into the owner's part of
 * the work directory (it runs as the owner).  pid, or -1 with why.
 */
static pid_t
start_pgbench(RunState *s, char *why, size_t whylen)
{
	const char *dir = s->t->ownerdir;
	int			order = s->run->order;
	WsbCommand	c;
	char		seed[32];
	pid_t		pid;

	free_paths(s);
	s->prefix = wsb_psprintf("%s/run_%d", dir, order);
	s->outpath = wsb_psprintf("%s/run_%d.out", dir, order);
	s->errpath = wsb_psprintf("%s/run_%d.err", dir, order);
	round_seed(s, 0, seed, sizeof(seed));
	wsb_cmd_init(&c, s->t->uid, s->t->gid);
	add_pgbench_args(&c, s->t, s->o, s->o->duration, s->prefix, seed);
	c.stdout_path = s->outpath;
	c.stderr_path = s->errpath;
	s->run->started_at = time(NULL);
	s->start = wsb_now();
	pid = wsb_cmd_start(&c);
	wsb_cmd_free(&c);
	if (pid < 0)
		snprintf(why, whylen, "could not start pgbench: %s", strerror(errno));
	return pid;
}

/*
 * Until pgbench exits: each second the new history rows, the backends for
 * the tracer, and the live line.  0 with pgbench's wait status, or 1 when
 * interrupted (pgbench stopped).
 */
static int
watch_pgbench(RunState *s, pid_t pid, int *status)
{
	WsbRun	   *run = s->run;
	WsbRows		newest = {0};
	double		last_tick = s->start,
				tps_now = NAN;
	long		erroff = 0;

	for (;;)
	{
		if (wsb_proc_wait(pid, 0, status) == 1)
			break;
		if (wsb_interrupted)
		{
			/* pgbench is in its own process group: stop it ourselves */
			wsb_proc_stop(pid, SIGTERM, 5.0, true);
			wsb_rows_free(&newest);
			if (s->tty)
				fputc('\n', stderr);
			return 1;
		}
		if (wsb_now() - last_tick >= 1.0)
		{
			last_tick = wsb_now();
			if (s->loaded)
				poll_history(s->t, run, s->since, sizeof(s->since), &newest);
			if (s->tracer)
				note_backends(s->t, s->tracer);
			read_progress(s->errpath, &erroff, &tps_now);
			if (!s->o->quiet && s->tty)
				progress_line(s->plan, run, s->nruns, last_tick - s->start, s->o->duration,
							  tps_now, &newest, s->tty);
		}
		usleep(50000);
	}
	run->seconds = wsb_now() - s->start;
	if (s->loaded)
		poll_history(s->t, run, s->since, sizeof(s->since), &newest);
	wsb_rows_free(&newest);
	if (s->tty)
		fputc('\n', stderr);
	return 0;
}

/* Why pgbench failed: its exit, and the last line of its stderr that is
 * neither progress nor a hint. */
static void
pgbench_failure(const char *errpath, uid_t owner, int status, char *why, size_t whylen)
{
	static const char *const noise[] = {"progress:", "pgbench: hint:", NULL};
	char	   *e = wsb_read_file_of(errpath, owner, NULL);
	char	   *lastline = e ? wsb_last_line(e, noise) : NULL;

	snprintf(why, whylen, "pgbench failed (%s%d)%s%s",
			 WIFEXITED(status) ? "exit status " : "signal ",
			 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
			 lastline ? ": " : "", lastline ? lastline : "");
	free(e);
}

/* pgbench's transaction logs (PREFIX.*) into the run's latencies and seconds */
static void
read_transaction_logs(RunState *s, char *pattern)
{
	int			from,
				to;
	WsbRun	   *run = s->run;
	WsbLogStats ls;
	glob_t		g;

	wsb_logstats_init(&ls);
	if (glob(pattern, 0, NULL, &g) == 0)
	{
		for (size_t i = 0; i < g.gl_pathc; i++)
		{
			size_t		l = strlen(g.gl_pathv[i]);

			if (l > 4 && (strcmp(g.gl_pathv[i] + l - 4, ".out") == 0 ||
						  strcmp(g.gl_pathv[i] + l - 4, ".err") == 0))
				continue;
			wsb_logstats_read_file(&ls, g.gl_pathv[i]);
			unlink(g.gl_pathv[i]);
		}
		globfree(&g);
	}
	run->transactions = ls.transactions;
	run->latency_avg_ms = ls.transactions ? ls.latency_sum_us / ls.transactions / 1000.0 : NAN;
	run->latency_p99_ms = wsb_logstats_quantile_ms(&ls, 0.99);
	run->nseconds = ls.nseconds;
	run->per_second = wsb_xmalloc(sizeof(WsbPgbenchSecond) * (ls.nseconds ? ls.nseconds : 1));
	if (ls.nseconds)
		memcpy(run->per_second, ls.seconds, sizeof(WsbPgbenchSecond) * ls.nseconds);
	run->tps_window = wsb_window_tps(ls.seconds, ls.nseconds, s->o->duration, &run->window_seconds);
	if (wsb_window_bounds(ls.seconds, ls.nseconds, s->o->duration, &from, &to))
	{
		run->window_from = ls.seconds[from].epoch;
		run->window_to = ls.seconds[to].epoch;
		run->machine_us = wsb_gauge_mean(ls.seconds[from].epoch, ls.seconds[to].epoch);
	}
	wsb_logstats_free(&ls);
}

/*
 * pgbench's figures: its summary tps (its output kept as
 * OUT/pgbench_run_N.txt) and its transaction logs.  0, or -1 with why.
 */
static int
read_pgbench(RunState *s, int status, char *why, size_t whylen)
{
	WsbRun	   *run = s->run;
	char	   *keep,
			   *pattern;
	char	   *text = wsb_read_file_of(s->outpath, s->t->uid, NULL);

	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || text == NULL ||
		!wsb_pgbench_parse_tps(text, &run->tps))
	{
		pgbench_failure(s->errpath, s->t->uid, status, why, whylen);
		free(text);
		return -1;
	}
	/* keep pgbench's own output beside the results */
	keep = wsb_psprintf("%s/pgbench_run_%d.txt", s->o->out, run->order);
	wsb_write_file(keep, text);
	free(keep);
	free(text);
	pattern = wsb_psprintf("%s.*", s->prefix);
	read_transaction_logs(s, pattern);
	free(pattern);
	if (run->transactions == 0)
	{
		snprintf(why, whylen, "pgbench's transaction log holds no transactions");
		return -1;
	}
	return 0;
}

/*
 * After pgbench, failed or not: the tracer stopped, then the server's
 * figures of the run.  1 when interrupted in the pause, else 0.
 */
static int
read_figures(RunState *s)
{
	WsbTarget  *t = s->t;
	WsbRun	   *run = s->run;
	char		msg[512];

	/* backends publish WAL counters at most once a second */
	wsb_sleep(1.5);
	if (wsb_interrupted)
		return 1;
	if (s->tracer && wsb_tracer_stop(s->tracer, &run->validation, msg, sizeof(msg)) != 0)
		wsb_note("run %d: --validate: %s", run->order, msg);
	fetch_after(t, "SELECT * FROM pg_catalog.pg_stat_wal", &run->wal);
	read_clog_and_slru(s);
	if (s->loaded)
	{
		double		cpu1 = schedstat_ns(s->collector);

		fetch_after(t, "SELECT * FROM public.wal_stall_summary", &run->summary);

		/*
		 * The history rows that closed since the run ended: its last second
		 * closes up to a second after pgbench exits, and without it the
		 * history falls short of the summary just read by the waits of
		 * that second (3-7% of a 20 s run on a slow WAL disk).
		 */
		{
			WsbRows		last = {0};

			poll_history(t, run, s->since, sizeof(s->since), &last);
			wsb_rows_free(&last);
		}
		fetch_after(t, "SELECT * FROM public.wal_stall_clog", &run->clog);
		fetch_after(t, "SELECT * FROM public.wal_stall_status()", &run->status);
		fetch_after(t, "SELECT * FROM public.wal_stall_advice()", &run->advice);
		fetch_after(t, "SELECT public.wal_stall_advice_figures()::pg_catalog.text AS figures",
					&run->figures);
		if (s->statements)
			fetch_statements(t, run);
		if (s->cpu0 >= 0 && cpu1 >= s->cpu0)
			run->collector_cpu_share = 100.0 * (cpu1 - s->cpu0) / 1e9 / (wsb_now() - s->start);
	}
	if (run->validation.traced)
		wsb_validate_compare(&run->validation, &run->summary, &run->wal, &run->history);
	return 0;
}

/*
 * wsb_pool_advice
 *		The advice on the figures of run and of the earlier successful runs
 *		of its configuration pooled, into run->advice_pooled: runs too short
 *		for wal_stall_advice() alone may together be long enough.  Left
 *		empty with fewer than two runs' figures, or when the server refuses.
 */
void
wsb_pool_advice(WsbTarget *t, const WsbRun *runs, int nruns, WsbRun *run)
{
	const char **params = wsb_xmalloc(sizeof(char *) * (nruns + 1));
	PQExpBufferData sql;
	int			n = 0;
	char		err[256];

	initPQExpBuffer(&sql);
	appendPQExpBufferStr(&sql, "SELECT * FROM public.wal_stall_advice(ARRAY[");
	for (int i = 0; i < nruns; i++)
	{
		const char *figures;

		if (runs[i].config != run->config || !runs[i].ok ||
			(figures = wsb_rows_get(&runs[i].figures, 0, "figures")) == NULL)
			continue;
		params[n++] = figures;
		appendPQExpBuffer(&sql, "%s$%d::public.wal_stall_advice_figures", n > 1 ? ", " : "", n);
	}
	appendPQExpBufferStr(&sql, "])");
	if (n >= 2 && wsb_sql_rows(t->conn, wsb_buffer_text(&sql), n, params, &run->advice_pooled,
							   err, sizeof(err)) == 0)
		run->advice_readings = n;
	else if (n >= 2)
		wsb_note("run %d: the advice on %d runs pooled was not read: %s", run->order, n, err);
	termPQExpBuffer(&sql);
	free(params);
}

/*
 * What every run starts from, declared rather than left to chance: the
 * CHECKPOINT and warm-up before it, and the server's own timed work that
 * could fall inside it (timed checkpoints, autovacuum), from its settings
 * as they are now.  One line into buf.
 */
void
wsb_steady_state(WsbTarget *t, const WsbOptions *o, char *buf, size_t len)
{
	WsbRows		r;
	char		msg[256],
				warm[96] = "";
	const char *timeout,
			   *maxwal,
			   *autovac,
			   *naptime;
	bool		vacuums;

	if (wsb_sql_rows(t->conn,
					 "SELECT pg_catalog.current_setting('checkpoint_timeout'::pg_catalog.text) AS timeout, "
					 "(SELECT setting FROM pg_catalog.pg_settings "
					 "WHERE name OPERATOR(pg_catalog.=) 'checkpoint_timeout'::pg_catalog.text) AS timeout_s, "
					 "pg_catalog.current_setting('max_wal_size'::pg_catalog.text) AS maxwal, "
					 "pg_catalog.current_setting('autovacuum'::pg_catalog.text) AS autovac, "
					 "pg_catalog.current_setting('autovacuum_naptime'::pg_catalog.text) AS naptime",
					 0, NULL, &r, msg, sizeof(msg)) != 0)
	{
		snprintf(buf, len, "not read: %s", msg);
		return;
	}
	timeout = wsb_rows_get(&r, 0, "timeout");
	maxwal = wsb_rows_get(&r, 0, "maxwal");
	autovac = wsb_rows_get(&r, 0, "autovac");
	naptime = wsb_rows_get(&r, 0, "naptime");
	vacuums = autovac && strcmp(autovac, "on") == 0;
	if (o->warmup > 0)
		snprintf(warm, sizeof(warm), "%d s of the same pgbench, not counted, then ", o->warmup);
	snprintf(buf, len, "%sa CHECKPOINT; timed checkpoints every %s or %s of WAL%s; autovacuum %s%s%s%s",
			 warm, timeout ? timeout : "?", maxwal ? maxwal : "?",
			 wsb_rows_double(&r, 0, "timeout_s", 0) > o->duration + o->warmup
			 ? " (none falls inside a run by time)" : "",
			 autovac ? autovac : "?",
			 vacuums ? " (every " : " (the tables are vacuumed by pgbench -i only)",
			 vacuums && naptime ? naptime : "",
			 vacuums ? ": it may vacuum pgbench's small tables inside a run)" : "");
	wsb_rows_free(&r);
}

/*
 * One run of run->config.  0: measured (run->ok), -1: failed (run->error,
 * err), 1: interrupted.
 */
int
wsb_run_one(WsbTarget *t, const WsbOptions *o, const WsbPlan *plan, WsbRun *run,
			int nruns, char *err, size_t errlen)
{
	RunState	s = {.t = t,.o = o,.plan = plan,.run = run,.nruns = nruns,.cpu0 = -1};
	char		why[512];
	pid_t		pid;
	int			status = 0,
				rc;

	s.loaded = wsb_target_wal_stall_loaded(t);
	s.tty = isatty(2) && !o->quiet;
	run->ok = false;
	run->collector_cpu_share = -1;
	run->validation.requested = o->validate;
	run->validation.traced = wsb_validate_traced(o, run->config, run->repeat);
	run->slru_clog_hits = run->slru_clog_reads = -1;
	/* a fresh, unhinted copy of the aged table before anything is reset */
	if (o->aged_pages > 0 && wsb_aged_copy(t, why, sizeof(why)) != 0)
		return run_failed(run, err, errlen, why);
	if (prepare_run(&s, why, sizeof(why)) != 0)
		return wsb_interrupted ? 1 : run_failed(run, err, errlen, why);

	/* --validate: attached before pgbench starts, detached after the figures */
	if (run->validation.traced &&
		(s.tracer = start_tracer(t, o, run, why, sizeof(why))) == NULL)
		return wsb_interrupted ? 1 : run_failed(run, err, errlen, why);

	if ((pid = start_pgbench(&s, why, sizeof(why))) < 0)
	{
		char		msg[512];

		if (s.tracer)
			wsb_tracer_stop(s.tracer, &run->validation, msg, sizeof(msg));
		free_paths(&s);
		return run_failed(run, err, errlen, why);
	}
	if (watch_pgbench(&s, pid, &status) != 0)
	{
		free_paths(&s);
		return 1;
	}
	rc = read_pgbench(&s, status, why, sizeof(why)) == 0 ? 0 : run_failed(run, err, errlen, why);
	free_paths(&s);
	run->ok = rc == 0;
	if (read_figures(&s) != 0)
		return 1;
	if (o->aged_pages > 0 && wsb_aged_drop_copy(t, why, sizeof(why)) != 0)
		wsb_note("run %d: %s", run->order, why);
	if (!o->quiet && !s.tty)
		fprintf(stderr, "run %d/%d  %s  %.0f tps%s%s\n", run->order, nruns,
				plan->configs[run->config].label, run->tps,
				run->ok ? "" : "  FAILED: ", run->ok ? "" : run->error);
	return rc;
}
