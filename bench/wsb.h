/*-------------------------------------------------------------------------
 *
 * wsb.h
 *		wal_stall_bench: shared structures and the interfaces between its
 *		parts.
 *
 * The harness runs a plan (configurations x rounds, each round every
 * configuration once in a balanced order drawn from a seed), measures each run
 * through pgbench and wal_stall's SQL views, judges every configuration
 * against the baseline run of the same round, and reports:
 *
 *	 options.c	 the command line's flags -> WsbOptions, --help
 *	 preset.c	 the preset file format and what its keys (and the flags
 *				 taking their values) mean; --set's grammar
 *	 plan.c		 the configurations (cartesian product) and the balanced rounds
 *	 experiment.c plan.txt, --resume, the budget's looks, --judge
 *	 target.c	 the cluster: temporary or --pgdata, opened and left as found
 *	 control.c	 starting, stopping, restarting it (pg_ctl, pg_ctlcluster, systemctl)
 *	 settings.c	 settings through ALTER SYSTEM, checked, and restored
 *	 autoconf.c	 what the restore does to postgresql.auto.conf (list-quoted
 *				 settings, an entry someone else changed, the old order)
 *	 sql.c		 the connection to the server, the query helpers
 *	 slowdisk.c	 loop device + cgroup (v2 io.max, v1 blkio) for --slow-wal / --slow-disk
 *	 disk_profile.c --wal-disk: the seeds' disks, the rules choosing a throttle like them
 *	 run.c		 one run: checkpoint, resets, pgbench, polling, figures
 *	 gauge.c	 the machine's speed, second by second, beside the runs
 *	 aged.c		 --aged-pages: the aged table, built once, copied fresh for each run
 *	 pgbench.c	 parsing pgbench's per-transaction log and its summary
 *	 validate.c	 --validate: the bpftrace program, its sums against wal_stall's
 *	 tracer.c	 --validate: the bpftrace process (requirements, start, stop)
 *	 figures.c	 reading a run's figures back: by class and column, in run order,
 *				 pgbench's seconds joined with the history rows
 *	 stats.c	 median, mean, spread, Student's t (libRmath)
 *	 paired.c	 paired statistics over rounds: the fit on the places, t p, Holm, signed-rank p, rounds needed
 *	 rounds.c	 which run holds each configuration in each round, which rounds are complete
 *	 speed.c	 the machine's speed taken out of tps before the pairing
 *	 spending.c	 --budget's error spending over the looks (O'Brien-Fleming, Lan-DeMets)
 *	 verdict.c	 the verdict: paired by round, margin, Holm, TOST, budget
 *	 verdict_report.c an experiment's verdicts: read, judged, written to verdicts.csv,
 *				 the terminal table, the report's section
 *	 answer.c	 the answer first: one sentence from the verdicts, the limit and
 *				 the conditions (the throttle, the settings, the WAL rate)
 *	 forest.c	 the verdict's forest plots (gnuplot SVG)
 *	 format.c	 a value in an output file: CSV quoting, HTML escaping, ISO 8601; CSV read back
 *	 csv.c		 results.csv, timeline.csv, advice.csv written
 *	 round_table.c a CSV of runs read back as the rounds to judge
 *	 chart.c	 the report's charts (gnuplot SVG)
 *	 report.c	 report.html
 *	 terminal.c	 each configuration's runs on the terminal, before the verdict
 *	 report_validate.c --validate's tables, on the terminal and in report.html
 *	 clog_report.c the CLOG by buffer count: misses, waits, tps, the tipping point
 *	 ring_report.c wal_buffers by size: wrap-around, tps, the tipping point
 *	 tipping.c	 the tipping point of a sweep over an ordered setting, and its sentence
 *	 proc.c		 running a program (as a user, in a cgroup, with a timeout), stopping it
 *	 util.c		 strings, rows as text, cleanup, files
 *	 main.c		 the plan-run-judge-report loop, signals
 *
 * docs/harness_internals.md ("The harness's modules") draws who uses whom; "make
 * graph" checks that drawing, and these names, against the objects.
 *
 * The harness reads the extension only through its SQL views, like any
 * user; rows are kept as text, as libpq returns them, with their column
 * names, so that a column the extension adds flows to timeline.csv
 * without a change here.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WSB_H
#define WSB_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <time.h>
#include <sys/types.h>
#include "disk_profile.h"

/*
 * The wal_stall release this harness belongs to: wal_stall.control's
 * default_version, the Debian package's upstream version and CHANGELOG.md's
 * newest release agree with it (test/check_versions.sh checks).
 */
#define WSB_VERSION			"1.0"

/*
 * The presets directory of an installed harness (bench/Makefile sets it from
 * its prefix); a binary with a presets directory beside it uses that one.
 */
#ifndef WSB_PRESETS_DIR_DEFAULT
#define WSB_PRESETS_DIR_DEFAULT "/usr/local/share/wal-stall-bench/presets"
#endif

#define WSB_MAX_SETS		16	/* --set flags */
#define WSB_DATABASE		"wal_stall_bench"	/* the runs' database on a --pgdata cluster */
#define WSB_MAX_VALUES		32	/* values of one --set */
#define WSB_MAX_CONFIGS		64	/* cartesian product */
#define WSB_NAME_LEN		64
#define WSB_VALUE_LEN		256

/* the aged table (aged.c): one CLOG page holds the status of BLCKSZ * 4 xids */
#define WSB_AGED_XIDS_PER_PAGE	32768
#define WSB_AGED_MAX_PAGES		4096
#define WSB_AGED_ROWS_PER_PAGE	512	/* default: every 64th transaction a row */

/* ---------- options and plan (options.c, preset.c, plan.c) ---------- */

typedef struct WsbSet
{
	char		name[WSB_NAME_LEN];		/* a GUC */
	bool		from_preset;	/* a preset's set line, not a --set flag */
	int			nvalues;
	char		values[WSB_MAX_VALUES][WSB_VALUE_LEN];
} WsbSet;

/* One configuration: a value for every --set GUC. */
typedef struct WsbConfig
{
	int			nsettings;
	char		names[WSB_MAX_SETS][WSB_NAME_LEN];
	char		values[WSB_MAX_SETS][WSB_VALUE_LEN];
	char		label[1024];	/* "wal_buffers=32kB synchronous_commit=off" */
} WsbConfig;

typedef struct WsbOptions
{
	char		pg_config[1024];	/* --pg-config, else pg_config on PATH */
	char		bindir[1024];		/* from pg_config --bindir */
	char		pg_version[128];	/* pg_config --version: "PostgreSQL 15.10 ..." */
	char		preset[1024];		/* --preset NAME|FILE, "" if none */
	int			nsets;
	WsbSet		sets[WSB_MAX_SETS];
	int			runs;				/* --runs, per configuration */
	int			duration;			/* --duration, seconds per run */
	int			warmup;				/* --warmup, uncounted seconds before each */
	int			clients;
	int			jobs;
	int			scale;
	char		builtin[64];		/* --builtin, "" when --script */
	char		script[1024];		/* --script FILE */
	char		pgbench_args[1024]; /* --pgbench-args, split on blanks */
	int			slow_wal_iops;		/* 0: not slowed */
	int			slow_wal_mbps;
	int			slow_wal_kbps;		/* --wal-disk's cap, finer; 0 with slow_wal_mbps */
	int			slow_journal_kbps;	/* --wal-disk's cap on pg_wal's ext4 journal; 0: none */
	int			slow_disk_iops;
	char		wal_disk[32];		/* --wal-disk PROFILE: slow_wal_* calibrated to it */
	bool		in_memory;			/* --in-memory: the temporary cluster in /dev/shm */
	char		pgdata[1024];		/* --pgdata, "" for a temporary cluster */
	char		cluster[128];		/* --cluster VERSION/NAME (postgresql-common) */
	char		service[128];		/* --service UNIT (systemd) */
	bool		yes;				/* --yes: go ahead with other clients there */
	char		out[1024];			/* --out, default bench-results/DATE-TIME */
	char		group_name[64];		/* --group: OUT's files readable by it, "" none */
	gid_t		group;
	bool		quiet;
	bool		validate;			/* --validate (kernel-traced truth) */
	char		extra_conf[4096];	/* preset's fixed settings, "name = value\n"... */
	char		description[4096];	/* preset's comment, for the report */
	char		pgbench_init_args[256]; /* preset's extra pgbench -i arguments */
	char		optional_libraries[256];	/* preset's optional_library names,
											 * blank-separated */
	long long	seed;				/* --seed: the order inside each round */
	bool		seed_given;
	double		margin_pct;			/* --margin, declared before the runs */
	bool		margin_given;
	double		budget_seconds;		/* --budget, 0: none */
	bool		runs_given;			/* --runs was given (with --budget: the cap) */
	char		judge[1024];		/* --judge DIR|FILE.csv: no server */
	char		baseline[1024];		/* --baseline NAME for --judge */
	char		resume[1024];		/* --resume DIR */
	int			spending_looks;	/* --resume: the stored budget's looks, 0 none */
	int			looks_done;		/* --resume: the looks it made */
	int			aged_pages;		/* --aged-pages: CLOG pages the aged table spans, 0 none */
	int			aged_rows_per_page; /* --aged-rows-per-page */
	int			nsets_from_17;	/* preset's set_from_17 lines: on 17+ */
	WsbSet		sets_from_17[WSB_MAX_SETS]; /* they replace its set lines */
} WsbOptions;

/* pg_wal's write cap in MB/s, --slow-wal-mbps or --wal-disk's kB/s; 0 none */
static inline double
wsb_wal_cap_mbps(const WsbOptions *o)
{
	if (o->slow_wal_iops <= 0)
		return 0;
	return o->slow_wal_mbps > 0 ? o->slow_wal_mbps : o->slow_wal_kbps / 1024.0;
}

typedef struct WsbPlan
{
	int			nconfigs;
	WsbConfig	configs[WSB_MAX_CONFIGS];	/* [0] is the baseline */
	long long	seed;					/* of the order inside each round */
	double		margin_pct;				/* declared before the runs */
	int			clients;				/* for the stall share of client time */
	int			budget_looks;			/* --budget: K looks, alpha/K each; 0 none */
	int			nruns;					/* nconfigs * rounds planned */
	int		   *order;					/* run i -> configuration index; round
										 * i / nconfigs in a balanced order */
} WsbPlan;

/* ---------- allocation (util.c) ---------- */

/* malloc, calloc, realloc, strdup that do not return NULL: out of memory,
 * the harness says so and exits (its cleanups run from atexit) */
extern void *wsb_xmalloc(size_t size);
extern void *wsb_xcalloc(size_t n, size_t size);
extern void *wsb_xrealloc(void *p, size_t size);
extern char *wsb_xstrdup(const char *s);
/* a PQExpBuffer's text (expbuffer.h), or out of memory the same way */
struct PQExpBufferData;
extern const char *wsb_buffer_text(struct PQExpBufferData *b);
/* printf into a string that grows to fit, malloc'd (the caller frees it),
 * or out of memory the same way */
extern char *wsb_psprintf(const char *fmt,...) __attribute__((format(printf, 1, 2)));
/* fopen of the path printed from fmt: NULL with errno as fopen left it */
extern FILE *wsb_fopenf(const char *mode, const char *fmt,...) __attribute__((format(printf, 2, 3)));

/* ---------- rows as text (util.c) ---------- */

/* A result set kept as libpq gives it: NULL cells are NULL pointers. */
typedef struct WsbRows
{
	int			ncols;
	char	  **names;
	int			nrows;
	char	 ***cells;			/* cells[row][col] */
} WsbRows;

extern int	wsb_rows_col(const WsbRows *rows, const char *name);	/* -1 if absent */
extern const char *wsb_rows_get(const WsbRows *rows, int row, const char *name);
extern double wsb_rows_double(const WsbRows *rows, int row, const char *name, double if_null);
extern void wsb_rows_append(WsbRows *into, const WsbRows *from);	/* same columns */
extern void wsb_rows_free(WsbRows *rows);

/* ---------- pgbench (pgbench.c) ---------- */

/* One second of pgbench, from its per-transaction log. */
typedef struct WsbPgbenchSecond
{
	int64_t		epoch;			/* second (Unix time) the transactions ended in */
	int64_t		transactions;
	double		latency_avg_ms;
	double		latency_max_ms;
} WsbPgbenchSecond;

/* ---------- --validate (validate.c) ---------- */

/*
 * What the tracer (bpftrace on the server's USDT probes and uprobes) saw in
 * one run, beside wal_stall's sampled figures.  Times in ms, NAN where not
 * known.  "client": processes pg_stat_activity showed as a client backend
 * or parallel worker during the run (what wal_stall's stall kind counts).
 */
typedef struct WsbValidation
{
	bool		requested;		/* --validate was given */
	bool		traced;			/* this run ran under the tracer */
	bool		ok;				/* the tracer's sums are complete */
	bool		io_traced;		/* libc's write/fsync entry points were traced */
	char		error[256];		/* why not ok */
	int			client_pids;
	int			other_pids;		/* WAL writer, checkpointer, ... */
	int			unclassified_pids;	/* never seen in pg_stat_activity */
	double		client_lock_wait_ms;	/* WALWrite/WALBufMapping/WALInsert waits */
	double		client_flush_ms;	/* inside XLogFlush */
	double		client_dirty_write_ms;	/* wrap-around writes */
	double		client_traced_ms;	/* the three, without overlap */
	double		client_sampled_ms;	/* wal_buffer_full + wal_flush + wal_insert */
	double		ratio;			/* sampled / traced */
	int64_t		dirty_writes;	/* wrap-around writes, every process */
	int64_t		client_dirty_writes;
	double		other_wal_path_ms;	/* the same figure for the other processes */
	double		unclassified_ms;
	double		wal_write_ms;	/* every process: write() in the WAL write path */
	int64_t		wal_writes;
	double		wal_fsync_ms;	/* every process: fsync()/fdatasync() there */
	int64_t		wal_fsyncs;
	/* the figures they are compared with, copied from the run's rows */
	double		sampled_wal_write_ms;	/* wal_stall_summary total_ms */
	double		sampled_wal_fsync_ms;
	int64_t		wal_buffers_full;	/* pg_stat_wal, -1 unknown */
	int64_t		exact_count;	/* wal_stall_summary wal_buffer_full, -1 */

	/*
	 * Per side of the WAL path, clients only: the insert side is the time
	 * inside XLogInsertRecord (insertion-lock waits and wrap-arounds), the
	 * flush side the time inside XLogFlush, both in calls that lasted at
	 * least WSB_TRACE_WAIT_US (shorter ones are CPU); against wal_stall's
	 * wal_buffer_full + wal_insert and wal_flush, from the summary and
	 * from the run's history rows.
	 */
	double		client_insert_side_ms;
	int64_t		client_insert_waits;	/* calls counted */
	double		client_flush_side_ms;
	int64_t		client_flush_waits;
	double		summary_insert_side_ms;
	double		summary_flush_side_ms;
	double		history_insert_side_ms;
	double		history_flush_side_ms;
} WsbValidation;

/* ---------- a run (run.c) ---------- */

typedef struct WsbRun
{
	int			config;			/* index into WsbPlan.configs */
	int			repeat;			/* 1 .. runs */
	int			order;			/* 1 .. nruns, position in the run order */
	int			position;		/* 1 .. nconfigs, place inside its round */
	time_t		started_at;
	double		seconds;		/* measured length of the pgbench run */
	double		tps;			/* pgbench's own figure (without connecting) */
	double		tps_window;		/* over the steady seconds (wsb_window_tps), NAN */
	int			window_seconds;
	int64_t		window_from,	/* those seconds, Unix time, both counted; */
				window_to;		/* 0 and 0 without a window */
	double		machine_us;		/* the gauge over the window's seconds (CPU us
								 * a unit of its work took), NAN unmeasured */
	double		latency_avg_ms;
	double		latency_p99_ms;	/* from the per-transaction log */
	int64_t		transactions;
	int			nseconds;
	WsbPgbenchSecond *per_second;
	WsbRows		history;		/* wal_stall_history rows during the run */
	WsbRows		summary;		/* wal_stall_summary after the run */
	WsbRows		clog;			/* wal_stall_clog after the run */
	int64_t		slru_clog_hits;	/* pg_stat_slru's CLOG row over the run, -1 */
	int64_t		slru_clog_reads;	/* (read with wal_stall_clog, same snapshots) */
	WsbRows		wal;			/* pg_stat_wal after the run (reset before) */
	WsbRows		status;			/* wal_stall_status() after the run */
	WsbRows		advice;			/* wal_stall_advice() after the run */
	WsbRows		figures;		/* wal_stall_advice_figures() after the run, as
								 * text (one row, column "figures") */
	WsbRows		advice_pooled;	/* wal_stall_advice(figures[]) of this run and
								 * its configuration's earlier ones */
	int			advice_readings;	/* how many runs advice_pooled pools, 0 none */
	WsbRows		statements;		/* the 5 statements with the most stall time
								 * (wal_stall_queries + pg_stat_statements) */
	char		statements_why[256];	/* why statements was not read, "" if it was */
	double		collector_cpu_share;	/* % of one core, -1 if unknown */
	WsbValidation validation;	/* --validate */
	bool		ok;				/* false: the run failed, see error */
	char		error[512];
} WsbRun;

/* What the report says about the machine and the server. */
typedef struct WsbEnvironment
{
	char		pg_version[256];	/* SELECT version() */
	int			cores;
	double		memory_gb;
	double		fdatasync_per_sec;	/* wal_stall_test_fsync on the WAL dir, -1 */
	char		wal_device[256];	/* "loop device 7:3, 100 write IOPS" ... */
	WsbDiskCalibration wal_disk;	/* --wal-disk: the seed's rates and ours */
	char	   *pgbench_command;	/* malloc'd, whole; NULL if none */
	char	   *settings;		/* every non-default setting, "name = value\n":
								 * malloc'd, whole; "" when not read */
	char		aged_span[256];		/* --aged-pages: what was built, "" none */
	char		steady[512];		/* what every run starts from (wsb_steady_state) */
	char		started[64];
	char		finished[64];
} WsbEnvironment;

/* ---------- descriptive statistics (stats.c) ---------- */

extern double wsb_median(const double *x, int n);
extern void wsb_sort_by_key(void *rows, int n, size_t size, double (*key) (const void *row));
/* tps of configuration c's successful runs into out[nruns]; returns n */
extern bool wsb_window_judged(const WsbRun *runs, int nruns);
extern double wsb_judged_tps(const WsbRun *r, bool window);
extern int	wsb_config_judged_tps(const WsbRun *runs, int nruns, int c, double *out);
/* of get(run, a, b) over configuration c's successful runs; NAN if none */
extern double wsb_config_median(const WsbRun *runs, int nruns, int c,
								double (*get) (const WsbRun *, const char *, const char *),
								const char *a, const char *b);
extern double wsb_mean(const double *x, int n);
extern double wsb_stddev(const double *x, int n);	/* sample, n - 1 */
extern double wsb_t_quantile(double p, double df);	/* Student's t */
extern double wsb_t_cdf(double t, double df);
extern double wsb_chisq_quantile(double p, double df);

/* ---------- writing a value into an output file, reading a CSV back (format.c) ---------- */

extern void wsb_csv_field(FILE *f, const char *s);	/* RFC 4180 quoting */
extern void wsb_html_escape(FILE *f, const char *s);	/* & < > " ' */
extern void wsb_html_number_cell(FILE *f, const char *fmt, double v);	/* <td class="n"> */
extern void wsb_fmt_tps(char *buf, size_t len, double v);	/* "-", "1234", "12.3" */
extern void wsb_iso8601_utc(time_t t, char *buf, size_t len);	/* "" when unknown */

/* a row (a header or a run) longer than this is refused, not read */
#define WSB_CSV_MAX_ROW (1024 * 1024)

/*
 * CSV text read row by row (RFC 4180: quoted fields, "" inside quotes,
 * CRLF or LF).  The cells of the current row point into buf, which holds
 * one row at a time: reading is linear in the file and its memory bounded
 * by the longest row.
 */
typedef struct WsbCsvReader
{
	const char *p;				/* the text not read yet */
	const char *end;
	int			line;			/* the line the current row starts on */
	int			next_line;		/* the line p is on */
	char	   *buf;			/* WSB_CSV_MAX_ROW + 1 bytes */
	size_t		used;
	int		   *starts;			/* offsets of the cells in buf */
	int			ncells;
	int			cellcap;
} WsbCsvReader;
extern bool wsb_csv_reader_init(WsbCsvReader *r, const char *text, size_t len);
extern void wsb_csv_reader_free(WsbCsvReader *r);
extern int	wsb_csv_next_row(WsbCsvReader *r, char *err, size_t errlen);
extern const char *wsb_csv_cell(const WsbCsvReader *r, int i);
extern int	wsb_csv_column(const WsbCsvReader *r, const char *name);
extern const char *wsb_csv_text(const WsbCsvReader *r, int i);
extern bool wsb_csv_number(const char *cell, double lo, double hi, double *value);
extern bool wsb_csv_count(const char *cell, double lo, double hi, double *value);
extern double wsb_as_written(const char *format, double v);
extern void wsb_csv_bad_number(char *err, size_t errlen, const char *path, int line,
							   const char *column, const char *cell);

/* ---------- output files (csv.c, report.c) ---------- */

/* a file replaced whole: a temporary beside it, fsynced, renamed (csv.c) */
typedef struct WsbReplace
{
	FILE	   *f;
	char		path[1200];
	char		tmp[1300];
} WsbReplace;
extern FILE *wsb_replace_open(WsbReplace *w, const char *path);
extern int	wsb_replace_close(WsbReplace *w, int rc);
extern int	wsb_results_csv_text(FILE *f, const WsbPlan *plan, const WsbRun *runs, int nruns);
extern int	wsb_write_results_csv(const char *path, const WsbPlan *plan,
								  const WsbRun *runs, int nruns);
extern int	wsb_write_timeline_csv(const char *path, const WsbPlan *plan,
								   const WsbRun *runs, int nruns);
extern int	wsb_write_advice_csv(const char *path, const WsbPlan *plan,
								 const WsbRun *runs, int nruns);
struct WsbVerdicts;
extern int	wsb_write_report(const char *dir, const WsbOptions *opts,
							 const WsbPlan *plan, const WsbRun *runs, int nruns,
							 const WsbEnvironment *env, const struct WsbVerdicts *verdicts);

/* ---------- the runs on the terminal (terminal.c) ---------- */

extern void wsb_print_runs(FILE *f, const WsbPlan *plan, const WsbRun *runs, int nruns);

#endif							/* WSB_H */
