/*-------------------------------------------------------------------------
 *
 * engine.h
 *		wal_stall_bench: the engine's internal interfaces (helpers, options,
 *		pgbench parsing, slow disk, target, its control and settings, runs),
 *		each under the name of the file that defines it; sql.h has the
 *		query helpers.  wsb.h holds what the engine shares with the judging
 *		and output files; this file what only the engine's files and its
 *		unit tests use.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WSB_ENGINE_H
#define WSB_ENGINE_H

#include <signal.h>
#include <sys/types.h>
#include "expbuffer.h"
#include "proc.h"				/* running commands: WsbCommand, wsb_cmd_* */
#include "wsb.h"

/* exit statuses */
#define WSB_EXIT_OK			0
#define WSB_EXIT_FAILURE	1
#define WSB_EXIT_USAGE		2
#define WSB_EXIT_INTERRUPTED 130

/* ---------- util.c ---------- */

extern volatile sig_atomic_t wsb_interrupted;	/* SIGINT/SIGTERM seen */

extern void wsb_error(const char *fmt,...) __attribute__((format(printf, 1, 2)));
extern void wsb_note(const char *fmt,...) __attribute__((format(printf, 1, 2)));
/* a character a terminal would obey or show reordered; *len: its bytes */
extern bool wsb_terminal_unsafe(const char *s, int *len);
extern bool wsb_quiet;
/* the run's log, OUT/harness.log: made on its first line; NULL stops it */
extern void wsb_log_to(const char *path);
extern void wsb_log(const char *fmt,...) __attribute__((format(printf, 1, 2)));
extern void wsb_strlcpy(char *dst, const char *src, size_t size);
extern char *wsb_trim(char *s);
extern bool wsb_parse_int(const char *s, int min, int max, int *out);
/* the next element of a list setting's value; el: strlen(*p) + 1 bytes */
extern bool wsb_list_element(const char **p, char *el);
extern char *wsb_read_file(const char *path, size_t *len);	/* malloc'd, NUL-ended */
extern int	wsb_write_file(const char *path, const char *text);	/* made anew */
extern FILE *wsb_create_file(const char *path, mode_t mode);	/* O_EXCL|O_NOFOLLOW */
/* a file another account may have made: no link, regular, owner's or ours */
extern char *wsb_read_file_of(const char *path, uid_t owner, size_t *len);
/* its last line not beginning with one of skip, fit for root's terminal */
extern char *wsb_last_line(char *text, const char *const *skip);
#define WSB_QUOTED_LINE_MAX 200
/* a file read back (plan.txt, results.csv): no link, regular, at most max
 * bytes; NULL with why */
extern char *wsb_read_back(const char *path, size_t max, size_t *len, char *why, size_t whylen);
#define WSB_PLAN_TXT_MAX (1024 * 1024)	/* plan.txt: a few kB */
#define WSB_RING_CSV_MAX (1024 * 1024)	/* ring.csv: a row per configuration */
/* clog.csv: a row per run of about 150 bytes, WSB_MAX_ROUNDS x WSB_MAX_CONFIGS
 * runs at most (10 MB) */
#define WSB_CLOG_CSV_MAX (16 * 1024 * 1024)
/* a preset or a script: no other account can change it; NULL with err */
extern char *wsb_read_trusted(const char *path, size_t max, const char *what, size_t *len,
							  char *err, size_t errlen);
#define WSB_PRESET_MAX (1024 * 1024)	/* a preset: a few kB */
#define WSB_SCRIPT_MAX (16 * 1024 * 1024)	/* a pgbench script */
#define WSB_RESULTS_CSV_MAX ((size_t) 256 * 1024 * 1024)	/* results.csv: a million rounds are 30 MB */
/* an existing directory owned by us, no group/other write: 0 or -1 with err */
extern int	wsb_dir_is_private(const char *dir, const char *what, char *err, size_t errlen);
/* followed name by name: every directory looked in root's or ours, none writable by
 * others unless sticky, every link on the way root's or ours */
extern int	wsb_path_is_private(const char *path, const char *what, char *err, size_t errlen);
/* OUT: private, and with --group given to the group (02750) */
extern int	wsb_out_dir_secure(const char *dir, const WsbOptions *o, char *err, size_t errlen);
extern int	wsb_close_written(FILE *f, int rc);	/* rc, or -1 if f failed */
extern double wsb_now(void);		/* seconds, CLOCK_REALTIME */
extern void wsb_sleep(double seconds);	/* returns early on interrupt */

/* Cleanup actions, run in reverse order of registration, each once. */
typedef void (*WsbCleanupFn) (void *arg);
extern int	wsb_cleanup_push(const char *what, WsbCleanupFn fn, void *arg);
extern void wsb_cleanup_done(int handle);	/* already undone by hand */
extern void wsb_cleanup_run(void);

/* ---------- options.c ---------- */

extern void wsb_options_defaults(WsbOptions *o);
/* 0 ok, 1 --help printed, -1 usage error (message in err) */
extern int	wsb_parse_args(int argc, char **argv, const char *presets_dir,
						   WsbOptions *o, char *err, size_t errlen);
extern void wsb_usage(FILE *f);

/* ---------- preset.c ---------- */

/* which fields the command line or the preset gave, by key */
enum
{
	WSB_F_RUNS, WSB_F_DURATION, WSB_F_CLIENTS, WSB_F_JOBS, WSB_F_SCALE, WSB_F_BUILTIN, WSB_F_SCRIPT,
	WSB_F_PGBENCH_ARGS, WSB_F_INIT_ARGS, WSB_F_SLOW_WAL, WSB_F_SLOW_WAL_MBPS, WSB_F_SLOW_DISK, WSB_F_WAL_DISK,
	WSB_F_SEED, WSB_F_MARGIN, WSB_F_BUDGET, WSB_F_AGED_PAGES, WSB_F_AGED_ROWS, WSB_F_WARMUP, WSB_F_IN_MEMORY,
	WSB_F_COUNT
};

extern int	wsb_load_preset(const char *name_or_file, const char *presets_dir,
							WsbOptions *o, bool *set_fields, char *err, size_t errlen);
extern int	wsb_preset_set_field(WsbOptions *o, const char *key, const char *value, bool *given,
								 char *err, size_t errlen);
extern int	wsb_preset_put_set(WsbOptions *o, const WsbSet *s, bool replace, char *err, size_t errlen);
extern int	wsb_copy_value(char *dst, size_t size, const char *flag, const char *noun,
						   const char *value, char *err, size_t errlen);
extern int	wsb_parse_set(const char *arg, WsbSet *set, char *err, size_t errlen);
extern const char *wsb_setting_refused(const char *name);
extern bool wsb_parse_duration(const char *s, double *seconds);
extern int	wsb_add_optional_libraries(WsbOptions *o, const char *pkglibdir, char *err, size_t errlen);
extern int	wsb_sets_for_version(WsbOptions *o, int major, char *err, size_t errlen);
extern int	wsb_conf_names_known(const char *extra_conf, const char *described, const char *server,
								 char *err, size_t errlen);
#define WSB_BUDGET_MAX_ROUNDS 200	/* --budget without --runs: the cap */
#define WSB_MAX_ROUNDS 1000			/* --runs */
#define WSB_MAX_CLIENTS 10000		/* --clients */
#define WSB_MAX_SEED 9007199254740991LL	/* --seed: 2^53 - 1, exact in a double */
extern int	wsb_check_margin(const char *what, const char *text, double *out,
							 char *err, size_t errlen);
extern int	wsb_check_seed(const char *what, const char *text, long long *out,
						   char *err, size_t errlen);
extern int	wsb_check_looks(const char *what, const char *text, int *out,
							char *err, size_t errlen);

/* ---------- plan.c ---------- */

extern int	wsb_make_plan(const WsbOptions *o, WsbPlan *plan, char *err, size_t errlen);
extern void wsb_plan_free(WsbPlan *plan);
extern void wsb_round_order(uint64_t seed, int nconfigs, int rounds, int *order);

/* ---------- pgbench.c ---------- */

/* Latency histogram: log-scale, WSB_HIST_PER_DECADE buckets per factor of
 * ten from 1 us to 10^WSB_HIST_DECADES us; a quantile is the bucket's
 * geometric middle, within +-0.6% of the true value. */
#define WSB_HIST_PER_DECADE 200
#define WSB_HIST_DECADES	9
#define WSB_HIST_BUCKETS	(WSB_HIST_PER_DECADE * WSB_HIST_DECADES + 1)

typedef struct WsbLogStats
{
	int64_t		transactions;	/* successful, with a latency */
	int64_t		failed;			/* lines whose latency is not a number */
	int64_t		bad_lines;
	double		latency_sum_us;
	int64_t		hist[WSB_HIST_BUCKETS];
	int64_t		first_epoch;	/* -1 before any line */
	int64_t		last_epoch;
	int			nseconds;		/* buckets, first_epoch .. last_epoch */
	int			capacity;
	WsbPgbenchSecond *seconds;
	double	   *second_latency_sum_ms;
} WsbLogStats;

typedef struct WsbLogLine
{
	int			client;
	int64_t		transaction;
	double		latency_us;		/* < 0: failed/skipped */
	int			script;
	int64_t		epoch;
	int			epoch_us;
} WsbLogLine;

extern bool wsb_pgbench_parse_line(const char *line, WsbLogLine *out);
extern void wsb_logstats_init(WsbLogStats *s);
extern void wsb_logstats_add(WsbLogStats *s, const WsbLogLine *l);
extern void wsb_logstats_add_text(WsbLogStats *s, const char *line);
extern int	wsb_logstats_read_file(WsbLogStats *s, const char *path);
extern double wsb_logstats_quantile_ms(const WsbLogStats *s, double q);
extern void wsb_logstats_free(WsbLogStats *s);
extern bool wsb_pgbench_parse_tps(const char *summary, double *tps);
extern bool wsb_window_bounds(const WsbPgbenchSecond *s, int n, int duration, int *from, int *to);
extern double wsb_window_tps(const WsbPgbenchSecond *s, int n, int duration, int *seconds);
extern bool wsb_pgbench_parse_progress(const char *line, double *elapsed, double *tps,
									   double *lat_ms);

/* ---------- slowdisk.c ---------- */

/* Its paths are malloc'd, NULL until made, and kept until the process
 * exits (the target's, read by the cleanups that run at exit). */
typedef struct WsbSlowDisk
{
	bool		active;
	char	   *image;			/* the file behind the loop device */
	char		loopdev[64];
	char	   *mountpoint;
	unsigned	major, minor;
	char	   *journal_image;	/* --slow-wal: the file behind the journal's store */
	char		store_loopdev[64];	/* on journal_image: the device throttled */
	char		journal_loopdev[64];	/* direct I/O on store_loopdev: ext4's journal */
	unsigned	store_major, store_minor;
	int			cgroup_version; /* 2: io.max, 1: blkio */
	char	   *cgroup_parent;	/* /sys/fs/cgroup (v2), /sys/fs/cgroup/blkio (v1) */
	char	   *cgroup;			/* cgroup_parent/wal_stall_bench.PID */
	char	   *cgroup_procs;
	char		what[32];		/* "pg_wal" or "data directory" */
	bool		bps_limited;	/* a MB/s cap is written: a throttle without one lifts it */
	bool		journal_limited;	/* the same for the journal's store */
	bool		journal_throttled;	/* its journal thread in the cgroup, the store by direct I/O */
} WsbSlowDisk;

extern int	wsb_slowdisk_check(const WsbOptions *o, char *err, size_t errlen);
extern int	wsb_slowdisk_setup(WsbSlowDisk *d, const WsbOptions *o, const char *workdir,
							   uid_t owner, gid_t group, char *err, size_t errlen);
extern int	wsb_slowdisk_throttle(WsbSlowDisk *d, const WsbOptions *o, char *err, size_t errlen);
extern void wsb_slowdisk_describe(const WsbSlowDisk *d, const WsbOptions *o, char *buf, size_t len);
extern bool wsb_slowdisk_sweep(const char *workdir, PQExpBuffer done);

/* ---------- target.c ---------- */

typedef struct pg_conn PGconn;

/* How a --pgdata cluster is started and stopped (control.c). */
typedef enum WsbControlKind
{
	WSB_CTL_PG_CTL,				/* pg_ctl -D, the temporary cluster's too */
	WSB_CTL_PG_CTLCLUSTER,		/* postgresql-common: pg_ctlcluster VERSION NAME */
	WSB_CTL_SYSTEMD,			/* systemctl ACTION UNIT */
} WsbControlKind;

typedef struct WsbController
{
	WsbControlKind kind;
	char		version[16];	/* pg_ctlcluster */
	char		name[128];		/* as long as --cluster's whole text */
	char		unit[128];		/* systemd */
} WsbController;

/*
 * The cluster the experiment runs on.  Its paths are malloc'd, NULL until
 * known, and kept until the process exits (main's target, and the cleanups
 * that run at exit read them).
 */
typedef struct WsbTarget
{
	bool		temporary;
	char		workdir[40];	/* /tmp or /dev/shm (--in-memory)/wal_stall_bench.XXXXXX, root's */
	char	   *ownerdir;		/* workdir/owner: what the cluster's owner writes */
	char	   *pgdata;
	char	   *sockdir;
	int			port;
	char		dbname[64];
	uid_t		uid;			/* the cluster's owner */
	gid_t		gid;
	char		owner[64];
	bool		was_running;	/* --pgdata: running when we came */
	bool		started;		/* we started it */
	bool		created_db;
	char	   *logfile;		/* pg_ctl -l: the server's output, NULL none */
	WsbController ctl;
	bool		added_wal_stall;	/* preloaded it for the experiment only */
	bool		restore_ok;		/* everything undone, the server as found */
	PGconn	   *conn;
	int			server_version;	/* PQserverVersion */
	bool		wal_stall_loaded;
	WsbSlowDisk slow;
	/* GUCs we changed: how to put them back */
	int			nchanged;
	char		changed[WSB_MAX_SETS + 8][WSB_NAME_LEN];
	const char *orig_auto[WSB_MAX_SETS + 8];	/* value in auto.conf, or NULL */
	bool		was_set[WSB_MAX_SETS + 8];	/* an ALTER SYSTEM of it went through */
	char	   *auto_ours[WSB_MAX_SETS + 8];	/* its auto.conf entry just after
												 * the harness's last ALTER
												 * SYSTEM of it (malloc'd), or
												 * NULL for none */
	/* postgresql.auto.conf as found (pg_file_settings), in order */
	int			nauto;
	char	  **auto_names;
	char	  **auto_values;
	char	   *journal;		/* OUT/restore.sql, NULL for a temporary cluster */
	/* databases aged.c may have made and not yet dropped, NULL-ended:
	 * restore.sql drops them too */
	const char *aged_databases[4];
	int			cleanup_handle;
	const WsbOptions *opts;
} WsbTarget;

extern int	wsb_target_open(WsbTarget *t, const WsbOptions *o, WsbEnvironment *env,
							char *err, size_t errlen);
extern int	wsb_target_calibrate_wal_disk(WsbTarget *t, WsbOptions *o, WsbDiskCalibration *c,
										  char *err, size_t errlen);
extern int	wsb_target_environment(WsbTarget *t, const WsbOptions *o, WsbEnvironment *env);
extern void wsb_target_close(void *target);	/* restore, stop, remove: idempotent */
extern bool wsb_target_wal_stall_loaded(WsbTarget *t);
extern int	wsb_target_preload_libraries(WsbTarget *t, char *out, size_t len, char *err, size_t errlen);

/* ---------- control.c ---------- */

extern void wsb_control_find(WsbTarget *t, const WsbOptions *o, pid_t postmaster);
extern int	wsb_control_cluster_datadir(const char *cluster, char *datadir, size_t len,
										char *err, size_t errlen);
extern int	wsb_control(WsbTarget *t, const char *action, char *err, size_t errlen);
extern int	wsb_control_start(WsbTarget *t, char *err, size_t errlen);
extern int	wsb_control_restart(WsbTarget *t, char *err, size_t errlen);	/* and reconnect */
extern char *wsb_control_describe(const WsbTarget *t);	/* malloc'd */
extern pid_t wsb_control_postmaster_pid(const WsbTarget *t);	/* 0: none */
extern int	wsb_control_read_socket(WsbTarget *t, char *err, size_t errlen);

/* ---------- autoconf.c ---------- */

extern const char *const wsb_list_quote_settings[];	/* NULL-ended */
extern bool wsb_guc_list_quote(const char *name);
extern bool wsb_auto_conf_empty_list(const char *name, const char *value);

typedef enum WsbRestoreAction
{
	WSB_RESTORE_NOTHING,		/* the entry is as it was before */
	WSB_RESTORE_SET,			/* ALTER SYSTEM SET it to its old value */
	WSB_RESTORE_RESET,			/* ALTER SYSTEM RESET: it had no entry */
	WSB_RESTORE_KEEP			/* changed by someone else during the run */
} WsbRestoreAction;

/* entries as pg_file_settings reads them; NULL: none */
extern WsbRestoreAction wsb_restore_action(const char *before, const char *ours,
										   const char *now);
/* indexes into now of the entries to write again, in order; -1: no memory */
extern int	wsb_auto_conf_moves(const char *const *before, int nbefore,
								const char *const *now, int nnow, int *move);

/* ---------- settings.c ---------- */

/* the plan's --set values, checked before any run; one configuration applied */
extern int	wsb_target_check_settings(WsbTarget *t, const WsbPlan *plan, char *err, size_t errlen);
extern int	wsb_target_apply(WsbTarget *t, const WsbConfig *c, char *err, size_t errlen);
extern int	wsb_settings_read_auto_conf(WsbTarget *t, char *err, size_t errlen);
extern int	wsb_settings_journal(WsbTarget *t);
/* whether a name can be printed in restore.sql (no control character) */
extern bool wsb_journal_printable(const char *s);
extern int	wsb_settings_restore(WsbTarget *t, char *err, size_t errlen);
extern int	wsb_settings_check_restorable(const WsbTarget *t, int n, char names[][WSB_NAME_LEN],
										  char *err, size_t errlen);
extern int	wsb_settings_apply(WsbTarget *t, int n, char names[][WSB_NAME_LEN],
							   char values[][WSB_VALUE_LEN], char *err, size_t errlen);

/* ---------- run.c ---------- */

extern int	wsb_run_one(WsbTarget *t, const WsbOptions *o, const WsbPlan *plan,
						WsbRun *run, int nruns_total, char *err, size_t errlen);
extern char *wsb_pgbench_command(const WsbTarget *t, const WsbOptions *o);	/* malloc'd */
extern void wsb_pool_advice(WsbTarget *t, const WsbRun *runs, int nruns, WsbRun *run);
extern void wsb_steady_state(WsbTarget *t, const WsbOptions *o, char *buf, size_t len);

#endif							/* WSB_ENGINE_H */
