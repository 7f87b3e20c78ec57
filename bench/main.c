/*-------------------------------------------------------------------------
 *
 * main.c
 *		wal_stall_bench: plan, run, judge, report.
 *
 * Order of business: parse the flags (usage errors exit 2 before anything
 * exists); --judge needs no server and ends there (experiment.c); with
 * --resume the stored plan's seed and margin are taken, and the plan made
 * must match it; find PostgreSQL's programs through pg_config; check that a
 * slow disk is possible, and for --validate that bpftrace can trace the
 * server; write OUT/plan.txt; open the target (every resource it makes is
 * in the cleanup list first); check every --set setting and value against
 * the server; then the rounds, each running every configuration once in
 * the order the seed gives, each run after applying its configuration;
 * results.csv after every round, and with --budget a look at the verdict
 * from the third round on (stop when decided, when the looks are spent or
 * when another round would not fit); then judge results.csv as written
 * (verdicts.csv, the forest plots), Welch's comparison beside it, and write
 * timeline.csv, advice.csv, report.html and both tables.  SIGINT/SIGTERM
 * set a flag that the loops check: pgbench is stopped, settings restored,
 * everything removed, exit status 130 (results.csv keeps the finished
 * rounds, for --resume).  The cleanups also run from atexit.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aged.h"
#include "answer.h"
#include "clog_report.h"
#include "ring_report.h"
#include "engine.h"
#include "gauge.h"
#include "expbuffer.h"
#include "validate.h"
#include "verdict.h"
#include "experiment.h"

static WsbTarget target;

static void
on_signal(int sig)
{
	(void) sig;
	wsb_interrupted = 1;
}

static int
finish(int status)
{
	wsb_cleanup_run();
	if (status == WSB_EXIT_INTERRUPTED)
		wsb_error("interrupted; settings restored and temporary files removed");
	return status;
}

/*
 * The output directory: made with its missing parents (under the
 * harness's umask: 0700, 0750 with --group), each of which is remembered
 * so that a run that wrote nothing removes exactly the directories it
 * made, and none that were there before.  It must be a directory this
 * user owns and can write in, which neither group nor others may write in
 * (another account could put links at the names written there); -1 with
 * err otherwise.
 */
static char *out_made[16];		/* malloc'd */
static int	nout_made;

static int
prepare_out(const char *path, const WsbOptions *o, char *err, size_t errlen)
{
	char	   *buf = wsb_xstrdup(path);
	struct stat st;

	for (char *p = buf + 1;; p++)
	{
		bool		last = *p == '\0';

		if (*p != '/' && !last)
			continue;
		*p = '\0';
		/* made only where no other account can redirect the name */
		if (wsb_path_is_private(buf, "--out", err, errlen) != 0)
		{
			free(buf);
			return -1;
		}
		if (mkdir(buf, 0755) == 0)
		{
			if (nout_made < (int) (sizeof(out_made) / sizeof(out_made[0])))
				out_made[nout_made++] = wsb_xstrdup(buf);
		}
		else if (errno != EEXIST)
		{
			snprintf(err, errlen, "could not create output directory \"%s\": %s", buf, strerror(errno));
			free(buf);
			return -1;
		}
		if (last)
			break;
		*p = '/';
	}
	free(buf);
	if (stat(path, &st) != 0)
	{
		if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
			snprintf(err, errlen, "cannot use --out \"%s\": a symbolic link to nothing", path);
		else
			snprintf(err, errlen, "cannot use --out \"%s\": %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
	{
		snprintf(err, errlen, "cannot use --out \"%s\": it exists and is not a directory", path);
		return -1;
	}
	if (access(path, W_OK | X_OK) != 0)
	{
		snprintf(err, errlen, "cannot use --out \"%s\": user \"%s\" cannot write in it (%s)",
				 path, getpwuid(geteuid()) ? getpwuid(geteuid())->pw_name : "?", strerror(errno));
		return -1;
	}
	if (wsb_out_dir_secure(path, o, err, errlen) != 0)
		return -1;
	/* absolute, for a cleanup that runs wherever the process then is */
	for (int i = 0; i < nout_made; i++)
	{
		char	   *real = realpath(out_made[i], NULL);

		if (real)
		{
			free(out_made[i]);
			out_made[i] = real;
		}
	}
	return 0;
}

/* Remove the directories prepare_out made, deepest first, if still empty. */
static void
remove_empty_out(void *arg)
{
	(void) arg;
	for (int i = nout_made - 1; i >= 0; i--)
		if (rmdir(out_made[i]) != 0)
			break;				/* not empty: something was written */
}

/*
 * The option's path made absolute in place (a run reads it from elsewhere),
 * left as given when realpath fails.  Refused first if another account
 * could change where it leads (wsb_path_is_private): resolved, the link
 * it went through would no longer show.  The field stays an array of the
 * options: wsb_copy_value refuses what does not fit in it, as it refused
 * the option as given.  0, or -1 said.
 */
static int
absolute(char *field, size_t size, const char *flag)
{
	char	   *real;
	char		err[1024];
	int			rc = 0;

	if (wsb_path_is_private(field, flag, err, sizeof(err)) != 0)
	{
		wsb_error("%s", err);
		return -1;
	}
	real = realpath(field, NULL);
	if (real && wsb_copy_value(field, size, flag, "path", real, err, sizeof(err)) != 0)
	{
		wsb_error("%s", err);
		rc = -1;
	}
	free(real);
	return rc;
}

/*
 * --script into the work directory as script.sql, for pgbench, which runs
 * as the cluster's owner: read only when no other account can change it
 * (wsb_read_trusted), made by root in root's directory (never through a
 * name another account could change), root's, readable by the owner's
 * group alone (0640).  0, or -1 said.
 */
static int
copy_script(const WsbOptions *o, const WsbTarget *t)
{
	char	   *path;
	char		err[1024];
	char	   *text = wsb_read_trusted(o->script, WSB_SCRIPT_MAX, "--script", NULL, err, sizeof(err));
	FILE	   *f;
	int			rc = 0;

	if (text == NULL)
	{
		wsb_error("%s", err);
		return -1;
	}
	path = wsb_psprintf("%s/script.sql", t->workdir);
	f = wsb_create_file(path, 0640);
	free(path);
	if (f != NULL)
	{
		if (fchown(fileno(f), (uid_t) -1, t->gid) != 0 || fchmod(fileno(f), 0640) != 0)
			rc = -1;
		fputs(text, f);
		rc = wsb_close_written(f, rc);
	}
	free(text);
	if (f == NULL || rc != 0)
		wsb_error("could not copy the script \"%s\"", o->script);
	return f == NULL ? -1 : rc;
}

/*
 * --aged-pages: the aged table, once before the rounds, its span into the
 * report; without --script its workload is the run's script.  0 or -1.
 */
static int
build_aged(WsbTarget *t, const WsbOptions *o, WsbEnvironment *env)
{
	WsbAgedSpan span;
	char		err[1024];

	if (wsb_aged_build(t, o, &span, err, sizeof(err)) != 0)
	{
		wsb_error("%s", err);
		return -1;
	}
	if (!o->script[0] && wsb_aged_write_script(t) != 0)
	{
		wsb_error("could not write the aged table's script");
		return -1;
	}
	snprintf(env->aged_span, sizeof(env->aged_span),
			 "%lld rows, xmin %lld to %lld: %d CLOG pages (%d asked for), built in %.0f s",
			 span.rows, span.first_xid, span.last_xid, span.pages, o->aged_pages,
			 span.build_seconds);
	return 0;
}

/* One line of pg_config's output: "pg_config --bindir" and the like. */
static int
pg_config_output(const WsbOptions *o, const char *flag, char *out, size_t len,
				 char *err, size_t errlen)
{
	WsbCommand	c;
	char	   *line;
	int			rc;

	wsb_cmd_init(&c, (uid_t) -1, (gid_t) -1);
	wsb_cmd_add(&c, "%s", o->pg_config);
	wsb_cmd_add(&c, "%s", flag);
	rc = wsb_cmd_output(&c, &line);
	wsb_cmd_free(&c);
	if (rc != 0)
		snprintf(err, errlen, "\"%s %s\" failed", o->pg_config, flag);
	else if (strlen(line) >= len)
	{
		snprintf(err, errlen, "\"%s %s\" printed %zu bytes, more than the %zu a path or version here may have",
				 o->pg_config, flag, strlen(line), len - 1);
		rc = -1;
	}
	else
		wsb_strlcpy(out, line, len);
	free(line);
	return rc;
}

/* bindir from pg_config, and the programs the harness needs in it */
static int
find_postgres(WsbOptions *o, char *err, size_t errlen)
{
	const char *progs[] = {"pgbench", "pg_ctl", "initdb", NULL};

	if (o->pg_config[0] == '\0' && !wsb_which("pg_config", o->pg_config, sizeof(o->pg_config)))
	{
		snprintf(err, errlen, "pg_config not found on PATH (use --pg-config PATH)");
		return -1;
	}
	if (access(o->pg_config, X_OK) != 0)
	{
		snprintf(err, errlen, "--pg-config \"%s\": not an executable file", o->pg_config);
		return -1;
	}
	if (pg_config_output(o, "--bindir", o->bindir, sizeof(o->bindir), err, errlen) != 0 ||
		o->bindir[0] != '/')
	{
		snprintf(err, errlen, "\"%s --bindir\" failed", o->pg_config);
		return -1;
	}
	/* plan.txt records it: a continuation must run the same PostgreSQL
	 * ("unknown" from a pg_config that does not say) */
	if (pg_config_output(o, "--version", o->pg_version, sizeof(o->pg_version), err, errlen) != 0)
		wsb_strlcpy(o->pg_version, "unknown", sizeof(o->pg_version));
	for (int i = 0; progs[i]; i++)
	{
		char	   *path;
		bool		found;

		if ((o->pgdata[0] || o->cluster[0]) && strcmp(progs[i], "initdb") == 0)
			continue;
		path = wsb_psprintf("%s/%s", o->bindir, progs[i]);
		found = access(path, X_OK) == 0;
		if (!found)
			snprintf(err, errlen, "%s not found: no \"%.400s\" (the bindir of \"%.400s\")",
					 progs[i], path, o->pg_config);
		free(path);
		if (!found)
			return -1;
	}
	return 0;
}

/*
 * A preset's set_from_17 lines replace its set lines when pg_config is of
 * PostgreSQL 17 or later (the clog preset's knob): the plan is made again.
 */
static int
sets_for_version(WsbOptions *o, WsbPlan *plan, char *err, size_t errlen)
{
	char		version[256];
	int			major = 0;
	int			rc;

	if (o->nsets_from_17 == 0)
		return 0;
	if (pg_config_output(o, "--version", version, sizeof(version), err, errlen) != 0 ||
		sscanf(version, "PostgreSQL %d", &major) != 1)
	{
		snprintf(err, errlen, "\"%s --version\" failed", o->pg_config);
		return -1;
	}
	rc = wsb_sets_for_version(o, major, err, errlen);
	if (rc == 0 && major < 17)
		printf("PostgreSQL %d has no transaction_buffers: the CLOG's buffers follow shared_buffers "
			   "(Min(128, Max(4, shared_buffers / 512 pages))) and cannot be set alone, so the preset "
			   "varies shared_buffers; the CLOG table names each configuration's CLOG buffers\n", major);
	if (rc <= 0)
		return rc;				/* an error, or nothing replaced */
	wsb_note("PostgreSQL %d: the preset's set_from_17 settings replace its set lines", major);
	wsb_plan_free(plan);
	return wsb_make_plan(o, plan, err, errlen);
}

/*
 * A temporary cluster gets a preset's conf lines in its configuration file
 * before it starts: each name is checked first against the settings the
 * server's binary describes (wsb_conf_names_known), so that no line the
 * server does not know as a setting ("include_dir", a misspelling) is
 * ever written.  The other targets take them by ALTER SYSTEM, after the
 * running server's pg_settings was asked (wsb_target_check_settings).
 */
static int
check_conf_names(const WsbOptions *o, char *err, size_t errlen)
{
	WsbCommand	c;
	char	   *server;
	char	   *described;
	int			rc;

	if (o->extra_conf[0] == '\0' || o->pgdata[0] || o->cluster[0])
		return 0;
	server = wsb_psprintf("%s/postgres", o->bindir);
	wsb_cmd_init(&c, (uid_t) -1, (gid_t) -1);
	c.stderr_path = "/dev/null";
	wsb_cmd_add(&c, "%s", server);
	wsb_cmd_add(&c, "--describe-config");
	rc = wsb_cmd_output(&c, &described);
	wsb_cmd_free(&c);
	if (rc != 0)
		snprintf(err, errlen, "\"%s --describe-config\" failed: the preset's conf lines cannot be checked",
				 server);
	else
		rc = wsb_conf_names_known(o->extra_conf, described, server, err, errlen);
	free(described);
	free(server);
	return rc;
}

/*
 * A preset's optional libraries join the plan when pg_config's pkglibdir
 * has them (the overhead preset's pg_wait_sampling): the plan is made again.
 */
static int
add_optional_libraries(WsbOptions *o, WsbPlan *plan, char *err, size_t errlen)
{
	char		pkglibdir[1024];

	if (o->optional_libraries[0] == '\0')
		return 0;
	if (pg_config_output(o, "--pkglibdir", pkglibdir, sizeof(pkglibdir), err, errlen) != 0 ||
		pkglibdir[0] != '/')
	{
		snprintf(err, errlen, "\"%s --pkglibdir\" failed", o->pg_config);
		return -1;
	}
	if (wsb_add_optional_libraries(o, pkglibdir, err, errlen) != 0)
		return -1;
	wsb_plan_free(plan);
	return wsb_make_plan(o, plan, err, errlen);
}

/*
 * Where --preset NAME looks: $WSB_PRESETS_DIR if set; else "presets" beside
 * the binary, where a build in the source tree finds bench/presets; else
 * the directory "make install" (and the Debian package) put them in,
 * WSB_PRESETS_DIR_DEFAULT (wsb.h), fixed at build time.
 */

static char *
presets_dir(const char *argv0)
{
	char		exe[PATH_MAX];
	ssize_t		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *env = getenv("WSB_PRESETS_DIR");
	char	   *dir;
	struct stat st;

	if (env && *env)
		return wsb_xstrdup(env);
	if (n > 0)
		exe[n] = '\0';
	else
		wsb_strlcpy(exe, argv0, sizeof(exe));
	dir = wsb_psprintf("%s/presets", dirname(exe));
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
	{
		free(dir);
		dir = wsb_xstrdup(WSB_PRESETS_DIR_DEFAULT);
	}
	return dir;
}

/*
 * The budget's spending plan, printed once: the looks, the function, and
 * the nominal level of the first, a middle and the last look; for a
 * continuation, what its looks already spent.
 */
static void
print_spending_plan(const WsbOptions *o, int nlooks, int rounds_done)
{
	int			mid = (nlooks + 1) / 2;

	printf("budget %.0f s: judged after every round from the third, at most %d look%s; "
		   "O'Brien-Fleming spending (Lan-DeMets) of 0.05 over %d rounds: alpha %.2g at round 3",
		   o->budget_seconds, nlooks, nlooks == 1 ? "" : "s", nlooks + 2,
		   wsb_look_alpha(0.05, 1, nlooks));
	if (mid > 1 && mid < nlooks)
		printf(", %.2g at round %d", wsb_look_alpha(0.05, mid, nlooks), mid + 2);
	if (nlooks > 1)
		printf(", %.2g at round %d", wsb_look_alpha(0.05, nlooks, nlooks), nlooks + 2);
	if (rounds_done > 2)
		printf("; %.3g spent by the %d round%s there", wsb_spent_at_look(0.05, rounds_done - 2, nlooks),
			   rounds_done, rounds_done == 1 ? "" : "s");
	printf("\n");
}

/*
 * plan.txt with the budget's spending after the plan (the looks made and
 * the error spent), replaced whole at every look (a kill leaves the old
 * plan.txt or the new one), so that --resume continues the same
 * spending.  0, -1 (said).
 */
static int
record_spending(const WsbOptions *o, const WsbPlan *plan, int nlooks, int looks_done)
{
	PQExpBufferData text;
	char	   *path = wsb_psprintf("%s/plan.txt", o->out);
	WsbReplace	w;
	FILE	   *f = wsb_replace_open(&w, path);
	int			rc = -1;

	initPQExpBuffer(&text);
	wsb_plan_text(o, plan, &text);
	wsb_spending_text(nlooks, looks_done, &text);
	if (f != NULL)
		rc = wsb_replace_close(&w, fputs(wsb_buffer_text(&text), f) < 0 ? -1 : 0);
	termPQExpBuffer(&text);
	if (rc != 0)
		wsb_error("could not write \"%s\"", path);
	free(path);
	return rc;
}

/*
 * --budget, after a first round whose runs were too short for a stall
 * cycle: the later rounds run longer (wsb_lengthened_duration), as the
 * warning asks, rather than adding rounds of runs whose tps hangs on where
 * a few long waits fall.  Rounds stay paired within themselves, so a first
 * round of shorter runs is judged with the rest; results.csv has every
 * run's seconds.  Not on --resume, whose plan fixes the length.
 */
static void
lengthen_runs(WsbOptions *o, int nconfigs, double needed, double left)
{
	int			d = wsb_lengthened_duration(needed, o->duration, o->warmup, nconfigs, left);

	if (d == 0)
	{
		printf("budget: the %.0f s left cannot hold two more rounds of runs longer than %d s; "
			   "the rounds go on at %d s\n", left, o->duration, o->duration);
		return;
	}
	printf("budget: the later rounds' runs last %d s instead of %d s (%s)\n", d, o->duration,
		   d >= needed ? "long enough to hold ten of those episodes"
		   : "as long as two more rounds allow in the budget left");
	o->duration = d;
}

int
main(int argc, char **argv)
{
	static WsbOptions opts;
	static WsbPlan plan;
	static WsbEnvironment env;
	WsbRun	   *runs;
	char		err[2048];
	char	   *pdir;
	char	   *path = NULL;
	struct sigaction sa;
	int			rc,
				failed = 0;
	int			first,
				ndone = 0,
				look = 0,
				nlooks = 0;
	double		started,
				round_started;
	WsbResume	resumed = {0};
	WsbVerdicts verdicts;
	bool		have_verdicts = false;
	bool		charted = false;

	setvbuf(stdout, NULL, _IOLBF, 0);
	pdir = presets_dir(argv[0]);
	rc = wsb_parse_args(argc, argv, pdir, &opts, err, sizeof(err));
	free(pdir);
	if (rc == 1)
		return WSB_EXIT_OK;
	if (rc != 0)
	{
		wsb_error("%s", err);
		return WSB_EXIT_USAGE;
	}
	wsb_quiet = opts.quiet;
	/* every file the harness makes is its user's alone (--group: and GROUP's) */
	wsb_proc_keep_umask(umask(opts.group_name[0] ? 027 : 077));
	if (opts.judge[0])
		return wsb_judge_only(&opts, opts.margin_given);	/* no server */
	if (opts.resume[0] && wsb_resume_prepare(&opts, opts.margin_given, err, sizeof(err)) != 0)
	{
		wsb_error("%s", err);
		return WSB_EXIT_FAILURE;
	}
	if (wsb_make_plan(&opts, &plan, err, sizeof(err)) != 0)
	{
		wsb_error("%s", err);
		return WSB_EXIT_USAGE;
	}
	if (find_postgres(&opts, err, sizeof(err)) != 0 ||
		sets_for_version(&opts, &plan, err, sizeof(err)) != 0 ||
		add_optional_libraries(&opts, &plan, err, sizeof(err)) != 0 ||
		check_conf_names(&opts, err, sizeof(err)) != 0 ||
		wsb_slowdisk_check(&opts, err, sizeof(err)) != 0 ||
		(opts.validate && wsb_validate_check(&opts, err, sizeof(err)) != 0))
	{
		wsb_error("%s", err);
		return WSB_EXIT_FAILURE;
	}
	if (opts.script[0] && absolute(opts.script, sizeof(opts.script), "--script") != 0)
		return WSB_EXIT_FAILURE;
	if (opts.resume[0] &&
		(wsb_resume_check(&opts, &plan, err, sizeof(err)) != 0 ||
		 wsb_resume_load(&opts, &plan, &resumed, err, sizeof(err)) != 0))
	{
		wsb_error("%s", err);
		return WSB_EXIT_FAILURE;
	}
	if (opts.resume[0] && resumed.rounds_done * plan.nconfigs >= plan.nruns)
	{
		wsb_error("--resume \"%s\": it has %d rounds already; give --runs more than that, or --budget",
				  opts.resume, resumed.rounds_done);
		return WSB_EXIT_USAGE;
	}
	printf("plan: %d configuration%s (baseline %s), ", plan.nconfigs, plan.nconfigs == 1 ? "" : "s",
		   plan.configs[0].label);
	if (opts.budget_seconds > 0 && !opts.runs_given)
		printf("rounds until decided within --budget %.0f s", opts.budget_seconds);
	else
		printf("%d round%s%s", plan.nruns / plan.nconfigs, plan.nruns / plan.nconfigs == 1 ? "" : "s",
			   opts.budget_seconds > 0 ? " at most, within --budget" : "");
	if (resumed.rounds_done)
		printf(" (%d there already)", resumed.rounds_done);
	printf(" of %d s runs", opts.duration);
	if (opts.warmup > 0)
		printf(" (each after %d s of uncounted warm-up)", opts.warmup);
	printf(", rounds in a balanced order from seed %lld, margin +-%g%%\n", opts.seed, opts.margin_pct);
	if (!(opts.budget_seconds > 0) &&
		wsb_too_few_rounds_note(plan.nruns / plan.nconfigs, plan.nconfigs - 1, err, sizeof(err)))
		wsb_note("%s", err);

	/* the handler before anything that needs undoing exists */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	atexit(wsb_cleanup_run);

	{
		time_t		now = time(NULL);

		strftime(env.started, sizeof(env.started), "%Y-%m-%d %H:%M:%S %Z", localtime(&now));
		if (opts.out[0] == '\0')
		{
			char		stamp[64];
			struct passwd *pw = getpwuid(geteuid());

			/*
			 * here if this user may write here and nobody else can change
			 * the path, else under its home
			 */
			strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&now));
			if ((access(".", W_OK | X_OK) == 0 && wsb_dir_is_private(".", ".", err, sizeof(err)) == 0 &&
				 wsb_path_is_private(".", ".", err, sizeof(err)) == 0) || pw == NULL)
				snprintf(opts.out, sizeof(opts.out), "bench-results/%s", stamp);
			else
				snprintf(opts.out, sizeof(opts.out), "%.900s/bench-results/%s", pw->pw_dir, stamp);
		}
	}
	/* pushed first: whatever fails below, the directories made are removed */
	wsb_cleanup_push("empty output directory", remove_empty_out, NULL);
	if (prepare_out(opts.out, &opts, err, sizeof(err)) != 0)
	{
		wsb_error("%s", err);
		return finish(WSB_EXIT_FAILURE);
	}
	if (absolute(opts.out, sizeof(opts.out), "--out") != 0)
		return finish(WSB_EXIT_FAILURE);
	{
		char	   *log = wsb_psprintf("%s/harness.log", opts.out);

		wsb_log_to(log);
		free(log);
	}
	if (wsb_target_open(&target, &opts, &env, err, sizeof(err)) != 0)
	{
		if (wsb_interrupted)
			return finish(WSB_EXIT_INTERRUPTED);
		wsb_error("%s", err);
		return finish(WSB_EXIT_FAILURE);
	}
	if (wsb_target_calibrate_wal_disk(&target, &opts, &env.wal_disk, err, sizeof(err)) != 0)
	{
		wsb_error("--wal-disk %s: %s", opts.wal_disk, err);
		return finish(wsb_interrupted ? WSB_EXIT_INTERRUPTED : WSB_EXIT_FAILURE);
	}
	if (env.wal_disk.profile)
	{
		char		line[1024];

		wsb_disk_describe(&env.wal_disk, line, sizeof(line));
		printf("wal disk: %s\n", line);
		fflush(stdout);			/* seen before the runs, whatever stdout is */
		wsb_slowdisk_describe(&target.slow, &opts, env.wal_device, sizeof(env.wal_device));
	}
	if (opts.script[0] && copy_script(&opts, &target) != 0)
		return finish(WSB_EXIT_FAILURE);
	if (wsb_interrupted)
		return finish(WSB_EXIT_INTERRUPTED);
	if (wsb_target_check_settings(&target, &plan, err, sizeof(err)) != 0)
	{
		wsb_error("%s", err);
		return finish(wsb_interrupted ? WSB_EXIT_INTERRUPTED : WSB_EXIT_FAILURE);
	}
	/* once the server took every value: a start that fails leaves no plan */
	if (!opts.resume[0])
	{
		PQExpBufferData text;
		int			written;

		path = wsb_psprintf("%s/plan.txt", opts.out);
		initPQExpBuffer(&text);
		wsb_plan_text(&opts, &plan, &text);
		written = wsb_write_file(path, wsb_buffer_text(&text));
		termPQExpBuffer(&text);
		if (written != 0)
		{
			wsb_error("could not write \"%s\"", path);
			return finish(WSB_EXIT_FAILURE);
		}
	}

	wsb_target_environment(&target, &opts, &env);
	env.pgbench_command = wsb_pgbench_command(&target, &opts);
	wsb_steady_state(&target, &opts, env.steady, sizeof(env.steady));
	printf("before every run: %s\n", env.steady);
	if (wsb_interrupted)
		return finish(WSB_EXIT_INTERRUPTED);
	if (opts.aged_pages > 0 && build_aged(&target, &opts, &env) != 0)
		return finish(wsb_interrupted ? WSB_EXIT_INTERRUPTED : WSB_EXIT_FAILURE);

	/*
	 * The rounds.  Run i of the plan is round i / nconfigs + 1; a
	 * continuation (--resume) starts after the rounds already there.  After
	 * every round results.csv is written (an interrupted experiment keeps
	 * its finished rounds), and with --budget the rounds are judged from
	 * the third on: stop when every configuration is decided, when the
	 * looks are spent, or when another round would not fit.
	 */
	first = resumed.rounds_done * plan.nconfigs;
	runs = wsb_xcalloc(plan.nruns, sizeof(WsbRun));
	if (opts.budget_seconds > 0)
	{
		/* a continuation goes on with the spending its budget began */
		nlooks = opts.spending_looks > 0 ? opts.spending_looks :
			wsb_budget_looks(&opts, plan.nconfigs) + resumed.rounds_done;
		if (nlooks > WSB_MAX_ROUNDS - 2)
			nlooks = WSB_MAX_ROUNDS - 2;
		plan.budget_looks = nlooks;
		print_spending_plan(&opts, nlooks, resumed.rounds_done);
		if (record_spending(&opts, &plan, nlooks, opts.looks_done) != 0)
			return finish(WSB_EXIT_FAILURE);
	}
	if (wsb_gauge_start(err, sizeof(err)) != 0)
		wsb_note("%s; tps is judged as measured", err);
	started = round_started = wsb_now();
	for (int i = first; i < plan.nruns; i++)
	{
		WsbRun	   *run = &runs[ndone];
		int			round = i / plan.nconfigs + 1;

		if (i % plan.nconfigs == 0 && i > first && opts.budget_seconds > 0)
		{
			double		spent = wsb_now() - started;
			/* the last round's length, when its runs were lengthened */
			double		per_round = fmax(spent / ((i - first) / plan.nconfigs),
										 wsb_now() - round_started);

			if (spent + per_round > opts.budget_seconds)
			{
				printf("budget: another round (about %.0f s) would not fit in the %.0f s left; stopping after round %d\n",
					   per_round, opts.budget_seconds - spent, round - 1);
				break;
			}
		}
		if (i % plan.nconfigs == 0)
			round_started = wsb_now();
		run->config = plan.order[i];
		run->repeat = round;
		run->position = i % plan.nconfigs + 1;
		run->order = resumed.runs_done + ndone + 1;
		run->collector_cpu_share = -1;
		run->tps_window = NAN;
		run->machine_us = NAN;
		ndone++;
		if (wsb_target_apply(&target, &plan.configs[run->config], err, sizeof(err)) != 0)
		{
			if (wsb_interrupted)
				return finish(WSB_EXIT_INTERRUPTED);
			wsb_error("run %d (%s): %s", run->order, plan.configs[run->config].label, err);
			wsb_strlcpy(run->error, err, sizeof(run->error));
			failed++;
			if (failed > plan.nconfigs)
				break;		/* the server is likely gone */
			continue;
		}
		if (wsb_interrupted)
			return finish(WSB_EXIT_INTERRUPTED);
		/* of how many: with a budget alone, the rounds it was estimated to fit */
		rc = wsb_run_one(&target, &opts, &plan, run, resumed.runs_done +
						 (opts.budget_seconds > 0 && !opts.runs_given
						  ? (nlooks + 2) * plan.nconfigs : plan.nruns - first),
						 err, sizeof(err));
		if (rc == 1 || wsb_interrupted)
			return finish(WSB_EXIT_INTERRUPTED);
		if (rc != 0)
		{
			wsb_error("run %d (%s): %s", run->order, plan.configs[run->config].label, err);
			failed++;
		}
		else
			wsb_pool_advice(&target, runs, ndone, run);
		if (run->position == plan.nconfigs && i / plan.nconfigs == first / plan.nconfigs)
		{
			/* the first round: are the runs long against the stall cycles? */
			PQExpBufferData warn;
			double		needed;

			initPQExpBuffer(&warn);
			if (wsb_short_runs(&plan, runs, ndone, opts.duration, &warn, &needed) > 0)
			{
				fputs(wsb_buffer_text(&warn), stdout);
				if (opts.budget_seconds > 0 && !opts.resume[0])
					lengthen_runs(&opts, plan.nconfigs, needed, opts.budget_seconds - (wsb_now() - started));
			}
			termPQExpBuffer(&warn);
		}
		if (run->position == plan.nconfigs)
		{
			/* a round ended: keep it, and with a budget look at it */
			free(path);
			path = wsb_psprintf("%s/results.csv", opts.out);
			if (wsb_write_results_continued(path, resumed.results_text, &plan, runs, ndone) != 0)
				wsb_error("could not write \"%s\"", path);
			else if (opts.budget_seconds > 0 && round >= 3)
			{
				WsbVerdicts vs;

				/* look k comes after round k + 2, in a continuation too */
				look = round - 2;
				if (record_spending(&opts, &plan, nlooks, look) != 0)
					return finish(WSB_EXIT_FAILURE);
				if (wsb_verdicts_from_csv(path, plan.configs[0].label, opts.margin_pct, look, nlooks,
										  &vs, err, sizeof(err)) == 0)
				{
					bool		done = wsb_verdicts_all_decided(&vs);

					wsb_verdicts_free(&vs);
					if (done || look >= nlooks)
					{
						printf("budget: %s after round %d (look %d of %d)\n",
							   done ? "every configuration decided" : "looks spent", round, look, nlooks);
						break;
					}
				}
			}
		}
	}
	{
		time_t		now = time(NULL);

		strftime(env.finished, sizeof(env.finished), "%Y-%m-%d %H:%M:%S %Z", localtime(&now));
	}

	free(path);
	path = wsb_psprintf("%s/results.csv", opts.out);
	if (wsb_write_results_continued(path, resumed.results_text, &plan, runs, ndone) != 0)
	{
		wsb_error("could not write \"%s\"", path);
		failed++;
	}
	/* the verdicts from results.csv as written: what --judge DIR gives too */
	if (plan.nconfigs < 2)
		rc = 1;					/* one configuration: nothing to judge */
	else
	{
		const char *labels[WSB_MAX_CONFIGS];

		for (int c = 0; c < plan.nconfigs; c++)
			labels[c] = plan.configs[c].label;
		rc = wsb_verdicts_from_csv_ordered(path, plan.configs[0].label, labels, plan.nconfigs,
										   opts.margin_pct, look, nlooks, &verdicts,
										   err, sizeof(err));
	}
	if (rc < 0)
	{
		wsb_error("%s", err);
		failed++;
	}
	else if (rc == 0)
	{
		have_verdicts = true;
		if (wsb_verdicts_write(opts.out, &verdicts) != 0)
		{
			wsb_error("could not write \"%s/verdicts.csv\"", opts.out);
			failed++;
		}
	}
	free(path);
	path = wsb_psprintf("%s/timeline.csv", opts.out);
	if (wsb_write_timeline_csv(path, &plan, runs, ndone) != 0)
	{
		wsb_error("could not write \"%s\"", path);
		failed++;
	}
	free(path);
	path = wsb_psprintf("%s/advice.csv", opts.out);
	if (wsb_write_advice_csv(path, &plan, runs, ndone) != 0)
	{
		wsb_error("could not write \"%s\"", path);
		failed++;
	}
	free(path);
	path = wsb_psprintf("%s/clog.csv", opts.out);
	if (wsb_clog_wanted(&opts, &plan) && wsb_clog_write_csv(path, &plan, runs, ndone) != 0)
	{
		wsb_error("could not write \"%s/clog.csv\"", opts.out);
		failed++;
	}
	free(path);
	path = wsb_psprintf("%s/ring.csv", opts.out);
	if (wsb_ring_wanted(&plan) &&
		wsb_ring_write_csv(path, &plan, runs, ndone, have_verdicts ? &verdicts : NULL) != 0)
	{
		wsb_error("could not write \"%s/ring.csv\"", opts.out);
		failed++;
	}
	free(path);
	path = NULL;
	/* 0: report.html with its charts, so the answer may point at them */
	if (wsb_write_report(opts.out, &opts, &plan, runs, ndone, &env,
						 have_verdicts ? &verdicts : NULL) != 0)
	{
		wsb_error("could not write the report in \"%s\"", opts.out);
		failed++;
	}
	else
		charted = true;
	wsb_cleanup_run();			/* restore and remove before the verdict */
	wsb_print_runs(stdout, &plan, runs, ndone);
	if (have_verdicts)
		wsb_print_paired(stdout, &verdicts.table, &verdicts.spec, verdicts.v, plan.seed);
	if (wsb_clog_wanted(&opts, &plan))
		wsb_clog_print(stdout, &plan, runs, ndone, have_verdicts ? &verdicts : NULL);
	if (wsb_ring_wanted(&plan))
		wsb_ring_print(stdout, &plan, runs, ndone, have_verdicts ? &verdicts : NULL);
	wsb_validate_print(stdout, &plan, runs, ndone);
	if (have_verdicts)
	{
		WsbAnswerConditions cond;
		char		answer[WSB_ANSWER_MAX];

		wsb_answer_conditions_of_runs(&opts, &plan, runs, ndone, charted, &cond);
		wsb_answer_text(&verdicts, &cond, answer, sizeof(answer));
		if (answer[0])
			printf("\n%s\n", answer);
	}
	printf("results in %s\n", opts.out);
	if (wsb_interrupted)
		return WSB_EXIT_INTERRUPTED;
	return failed ? WSB_EXIT_FAILURE : WSB_EXIT_OK;
}
