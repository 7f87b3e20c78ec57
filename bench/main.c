/*-------------------------------------------------------------------------
 *
 * main.c
 *		wal_stall_bench: plan, run, judge, report.
 *
 * Order of business: parse the flags (usage errors exit 2 before anything
 * exists); find PostgreSQL's programs through pg_config; check that a slow
 * disk is possible, and for --validate that bpftrace can trace the server; open the target (every resource it makes is in the
 * cleanup list first); check every --set setting and value against the
 * server; then the runs in interleaved order, each after applying its
 * configuration; then judge and write results.csv, timeline.csv,
 * report.html and the verdict table.  SIGINT/SIGTERM set a flag that the
 * loops check: pgbench is stopped, settings restored, everything removed,
 * exit status 130.  The cleanups also run from atexit.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine.h"
#include "validate.h"

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
 * The output directory: made with its missing parents, each of which is
 * remembered so that a run that wrote nothing removes exactly the
 * directories it made, and none that were there before.  It must be a
 * directory this user can write in; -1 with err otherwise.
 */
static char out_made[16][1024];
static int	nout_made;

static int
prepare_out(const char *path, char *err, size_t errlen)
{
	char		buf[1024];
	struct stat st;

	if (strlen(path) >= sizeof(buf))
	{
		snprintf(err, errlen, "cannot use --out \"%.100s...\": the path is longer than %d bytes",
				 path, (int) sizeof(buf) - 1);
		return -1;
	}
	wsb_strlcpy(buf, path, sizeof(buf));
	for (char *p = buf + 1;; p++)
	{
		bool		last = *p == '\0';

		if (*p != '/' && !last)
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) == 0)
		{
			if (nout_made < (int) (sizeof(out_made) / sizeof(out_made[0])))
				wsb_strlcpy(out_made[nout_made++], buf, sizeof(out_made[0]));
		}
		else if (errno != EEXIST)
		{
			snprintf(err, errlen, "could not create output directory \"%s\": %s", buf, strerror(errno));
			return -1;
		}
		if (last)
			break;
		*p = '/';
	}
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
	/* absolute, for a cleanup that runs wherever the process then is */
	for (int i = 0; i < nout_made; i++)
	{
		char		real[PATH_MAX];

		if (realpath(out_made[i], real) && strlen(real) < sizeof(out_made[i]))
			strcpy(out_made[i], real);
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

/* One line of pg_config's output: "pg_config --bindir" and the like. */
static int
pg_config_output(const WsbOptions *o, const char *flag, char *out, size_t len,
				 char *err, size_t errlen)
{
	WsbCommand	c;
	int			rc;

	wsb_cmd_init(&c, (uid_t) -1, (gid_t) -1);
	wsb_cmd_add(&c, "%s", o->pg_config);
	wsb_cmd_add(&c, "%s", flag);
	rc = wsb_cmd_output(&c, out, len);
	wsb_cmd_free(&c);
	if (rc != 0)
		snprintf(err, errlen, "\"%s %s\" failed", o->pg_config, flag);
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
	for (int i = 0; progs[i]; i++)
	{
		char		path[1200];

		if ((o->pgdata[0] || o->cluster[0]) && strcmp(progs[i], "initdb") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", o->bindir, progs[i]);
		if (access(path, X_OK) != 0)
		{
			snprintf(err, errlen, "%s not found: no \"%.400s\" (the bindir of \"%.400s\")",
					 progs[i], path, o->pg_config);
			return -1;
		}
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
	if (rc <= 0)
		return rc;				/* an error, or nothing replaced */
	wsb_note("PostgreSQL %d: the preset's set_from_17 settings replace its set lines", major);
	wsb_plan_free(plan);
	return wsb_make_plan(o, plan, err, errlen);
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

static void
presets_dir(const char *argv0, char *dir, size_t len)
{
	char		exe[PATH_MAX];
	ssize_t		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *env = getenv("WSB_PRESETS_DIR");
	struct stat st;

	if (env && *env)
	{
		wsb_strlcpy(dir, env, len);
		return;
	}
	if (n > 0)
		exe[n] = '\0';
	else
		wsb_strlcpy(exe, argv0, sizeof(exe));
	snprintf(dir, len, "%s/presets", dirname(exe));
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		wsb_strlcpy(dir, WSB_PRESETS_DIR_DEFAULT, len);
}

int
main(int argc, char **argv)
{
	static WsbOptions opts;
	static WsbPlan plan;
	static WsbEnvironment env;
	WsbRun	   *runs;
	WsbJudgement *judged;
	char		err[2048];
	char		pdir[PATH_MAX];
	char		path[1200];
	struct sigaction sa;
	int			rc,
				failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	presets_dir(argv[0], pdir, sizeof(pdir));
	rc = wsb_parse_args(argc, argv, pdir, &opts, err, sizeof(err));
	if (rc == 1)
		return WSB_EXIT_OK;
	if (rc != 0)
	{
		wsb_error("%s", err);
		return WSB_EXIT_USAGE;
	}
	wsb_quiet = opts.quiet;
	if (wsb_make_plan(&opts, &plan, err, sizeof(err)) != 0)
	{
		wsb_error("%s", err);
		return WSB_EXIT_USAGE;
	}
	if (find_postgres(&opts, err, sizeof(err)) != 0 ||
		sets_for_version(&opts, &plan, err, sizeof(err)) != 0 ||
		add_optional_libraries(&opts, &plan, err, sizeof(err)) != 0 ||
		wsb_slowdisk_check(&opts, err, sizeof(err)) != 0 ||
		(opts.validate && wsb_validate_check(&opts, err, sizeof(err)) != 0))
	{
		wsb_error("%s", err);
		return WSB_EXIT_FAILURE;
	}
	if (opts.script[0])
	{
		char		real[PATH_MAX];

		if (realpath(opts.script, real))
			wsb_strlcpy(opts.script, real, sizeof(opts.script));
	}

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

			/* here if this user may write here, else under its home */
			strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&now));
			if (access(".", W_OK | X_OK) == 0 || pw == NULL)
				snprintf(opts.out, sizeof(opts.out), "bench-results/%s", stamp);
			else
				snprintf(opts.out, sizeof(opts.out), "%.900s/bench-results/%s", pw->pw_dir, stamp);
		}
	}
	/* pushed first: whatever fails below, the directories made are removed */
	wsb_cleanup_push("empty output directory", remove_empty_out, NULL);
	if (prepare_out(opts.out, err, sizeof(err)) != 0)
	{
		wsb_error("%s", err);
		return finish(WSB_EXIT_FAILURE);
	}
	{
		char		real[PATH_MAX];

		if (realpath(opts.out, real))
			wsb_strlcpy(opts.out, real, sizeof(opts.out));
	}

	if (wsb_target_open(&target, &opts, &env, err, sizeof(err)) != 0)
	{
		if (wsb_interrupted)
			return finish(WSB_EXIT_INTERRUPTED);
		wsb_error("%s", err);
		return finish(WSB_EXIT_FAILURE);
	}
	if (opts.script[0])
	{
		char	   *s = wsb_read_file(opts.script, NULL);

		snprintf(path, sizeof(path), "%s/script.sql", target.workdir);
		if (s == NULL || wsb_write_file(path, s) != 0 || chown(path, target.uid, target.gid) != 0)
		{
			free(s);
			wsb_error("could not copy the script \"%s\"", opts.script);
			return finish(WSB_EXIT_FAILURE);
		}
		free(s);
	}
	if (wsb_interrupted)
		return finish(WSB_EXIT_INTERRUPTED);
	if (wsb_target_validate(&target, &plan, err, sizeof(err)) != 0)
	{
		wsb_error("%s", err);
		return finish(wsb_interrupted ? WSB_EXIT_INTERRUPTED : WSB_EXIT_FAILURE);
	}
	wsb_target_environment(&target, &opts, &env);
	wsb_pgbench_command(&target, &opts, env.pgbench_command, sizeof(env.pgbench_command));
	if (wsb_interrupted)
		return finish(WSB_EXIT_INTERRUPTED);

	runs = calloc(plan.nruns, sizeof(WsbRun));
	judged = calloc(plan.nconfigs, sizeof(WsbJudgement));
	for (int i = 0; i < plan.nruns; i++)
	{
		WsbRun	   *run = &runs[i];

		run->config = plan.order[i];
		run->repeat = i / plan.nconfigs + 1;
		run->order = i + 1;
		run->collector_cpu_share = -1;
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
		rc = wsb_run_one(&target, &opts, &plan, run, plan.nruns, err, sizeof(err));
		if (rc == 1 || wsb_interrupted)
			return finish(WSB_EXIT_INTERRUPTED);
		if (rc != 0)
		{
			wsb_error("run %d (%s): %s", run->order, plan.configs[run->config].label, err);
			failed++;
		}
	}
	{
		time_t		now = time(NULL);

		strftime(env.finished, sizeof(env.finished), "%Y-%m-%d %H:%M:%S %Z", localtime(&now));
	}

	wsb_judge(&plan, runs, plan.nruns, judged);
	snprintf(path, sizeof(path), "%s/results.csv", opts.out);
	if (wsb_write_results_csv(path, &plan, runs, plan.nruns) != 0)
	{
		wsb_error("could not write \"%s\"", path);
		failed++;
	}
	snprintf(path, sizeof(path), "%s/timeline.csv", opts.out);
	if (wsb_write_timeline_csv(path, &plan, runs, plan.nruns) != 0)
	{
		wsb_error("could not write \"%s\"", path);
		failed++;
	}
	snprintf(path, sizeof(path), "%s/advice.csv", opts.out);
	if (wsb_write_advice_csv(path, &plan, runs, plan.nruns) != 0)
	{
		wsb_error("could not write \"%s\"", path);
		failed++;
	}
	if (wsb_write_report(opts.out, &opts, &plan, runs, plan.nruns, judged, &env) != 0)
	{
		wsb_error("could not write the report in \"%s\"", opts.out);
		failed++;
	}
	wsb_cleanup_run();			/* restore and remove before the verdict */
	wsb_print_verdict(stdout, &plan, runs, plan.nruns, judged);
	wsb_validate_print(stdout, &plan, runs, plan.nruns);
	printf("results in %s\n", opts.out);
	if (wsb_interrupted)
		return WSB_EXIT_INTERRUPTED;
	return failed ? WSB_EXIT_FAILURE : WSB_EXIT_OK;
}
