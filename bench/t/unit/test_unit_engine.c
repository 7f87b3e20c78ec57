/*-------------------------------------------------------------------------
 *
 * test_unit_engine.c
 *		wal_stall_bench unit tests of the engine's pure parts: flags and
 *		presets (every message), the plan (product order, baseline,
 *		interleaving), the pgbench log parser and per-second buckets, the
 *		latency quantile, pgbench's summary and progress lines, the
 *		process runner (capture, directory, timeout, stop), and what the
 *		restore does with postgresql.auto.conf (autoconf.c).
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "engine.h"
#include "test_unit.h"

static char tmpdir[] = "/tmp/wsb_unit.XXXXXX";

/* parse a NULL-ended argument list; returns wsb_parse_args' status */
static int
parse(WsbOptions *o, char *err, const char *presets, ...)
{
	char	   *argv[64];
	int			argc = 0;
	va_list		ap;
	const char *a;

	argv[argc++] = "wal_stall_bench";
	va_start(ap, presets);
	while ((a = va_arg(ap, const char *)) != NULL)
		argv[argc++] = (char *) a;
	va_end(ap);
	argv[argc] = NULL;
	err[0] = '\0';
	return wsb_parse_args(argc, argv, presets, o, err, 512);
}

static void
write_preset(const char *name, const char *text)
{
	char		path[256];

	snprintf(path, sizeof(path), "%s/%s.conf", tmpdir, name);
	wsb_write_file(path, text);
}

/* err must be exactly want */
static void
check_err(int rc, const char *err, const char *want, const char *what)
{
	check(rc == -1 && strcmp(err, want) == 0, "%s: \"%s\"%s%s", what, want,
		  strcmp(err, want) == 0 ? "" : " got: ", strcmp(err, want) == 0 ? "" : err);
}

static void
test_set_parsing(void)
{
	WsbSet		s;
	char		err[512] = "";

	check(wsb_parse_set("wal_buffers=32kB,1MB", &s, err, sizeof(err)) == 0 &&
		  strcmp(s.name, "wal_buffers") == 0 && s.nvalues == 2 &&
		  strcmp(s.values[0], "32kB") == 0 && strcmp(s.values[1], "1MB") == 0,
		  "--set splits name and values");
	check(wsb_parse_set("x = a , b", &s, err, sizeof(err)) == 0 && strcmp(s.name, "x") == 0 &&
		  strcmp(s.values[0], "a") == 0 && strcmp(s.values[1], "b") == 0,
		  "--set trims blanks around name and values");
	check(wsb_parse_set("shared_preload_libraries='',wal_stall,'wal_stall,pg_wait_sampling'", &s,
						err, sizeof(err)) == 0 && s.nvalues == 3 && s.values[0][0] == '\0' &&
		  strcmp(s.values[1], "wal_stall") == 0 &&
		  strcmp(s.values[2], "wal_stall,pg_wait_sampling") == 0,
		  "--set quoted values: empty, and holding a comma");
	check(wsb_parse_set("x='it''s'", &s, err, sizeof(err)) == 0 && strcmp(s.values[0], "it's") == 0,
		  "--set '' inside quotes is one quote");
	check(wsb_parse_set("pg_wait_sampling.profile_period=1", &s, err, sizeof(err)) == 0,
		  "--set accepts a custom prefix.name setting");
	check_err(wsb_parse_set("wal_buffers", &s, err, sizeof(err)), err,
			  "--set \"wal_buffers\": expected GUC=V1,V2,...", "--set without '='");
	check_err(wsb_parse_set("wal_buffers=", &s, err, sizeof(err)), err,
			  "--set \"wal_buffers=\": no values after '='", "--set without values");
	check_err(wsb_parse_set("=1", &s, err, sizeof(err)), err,
			  "--set \"=1\": missing or too long setting name", "--set without a name");
	check_err(wsb_parse_set("1x=1", &s, err, sizeof(err)), err,
			  "--set \"1x=1\": \"1x\" is not a setting name", "--set with a bad name");
	check_err(wsb_parse_set("x=1,,2", &s, err, sizeof(err)), err,
			  "--set \"x=1,,2\": empty value (write '' for an empty string)", "--set with an empty value");
	check_err(wsb_parse_set("x='a", &s, err, sizeof(err)), err,
			  "--set \"x='a\": unterminated quote", "--set with an open quote");
	check_err(wsb_parse_set("x='a'b", &s, err, sizeof(err)), err,
			  "--set \"x='a'b\": text after a quoted value", "--set with text after a quote");
	{
		char		many[512] = "x=0";

		for (int i = 1; i <= WSB_MAX_VALUES; i++)
			snprintf(many + strlen(many), sizeof(many) - strlen(many), ",%d", i);
		check_err(wsb_parse_set(many, &s, err, sizeof(err)), err,
				  strcat(strcat(strcpy((char[600]) {0}, "--set \""), many), "\": more than 32 values"),
				  "--set with too many values");
	}
}

static void
test_flags(void)
{
	WsbOptions	o;
	char		err[512] = "";
	char		want[300];

	check(parse(&o, err, tmpdir, NULL) == 0 && o.runs == 3 && o.duration == 30 &&
		  o.clients == 4 && o.jobs == 2 && o.scale == 10 && strcmp(o.builtin, "tpcb-like") == 0 &&
		  o.nsets == 0 && !o.quiet && o.pgdata[0] == '\0',
		  "defaults: 3 runs of 30 s, 4 clients, 2 jobs, scale 10, tpcb-like");
	check(parse(&o, err, tmpdir, "--runs", "5", "--duration=7", "--clients", "8", "--jobs", "4",
				"--scale", "2", "--builtin", "simple-update", "--pgbench-args", "-M prepared",
				"--out", "/tmp/x", "--quiet", "--set", "wal_buffers=1MB,2MB",
				"--set=synchronous_commit=on,off", NULL) == 0 &&
		  o.runs == 5 && o.duration == 7 && o.clients == 8 && o.jobs == 4 && o.scale == 2 &&
		  strcmp(o.builtin, "simple-update") == 0 && strcmp(o.pgbench_args, "-M prepared") == 0 &&
		  strcmp(o.out, "/tmp/x") == 0 && o.quiet && o.nsets == 2 &&
		  strcmp(o.sets[1].name, "synchronous_commit") == 0,
		  "every flag, in both --flag value and --flag=value forms");
	check(parse(&o, err, tmpdir, "--clients", "1", NULL) == 0 && o.jobs == 1,
		  "--jobs defaults down to --clients");
	check_err(parse(&o, err, tmpdir, "--bogus", NULL), err,
			  "unknown option \"--bogus\" (see --help)", "unknown flag");
	check_err(parse(&o, err, tmpdir, "-x", NULL), err,
			  "unknown option \"-x\" (see --help)", "unknown short flag");
	check_err(parse(&o, err, tmpdir, "--runs", NULL), err,
			  "option \"--runs\" needs a value", "flag without its value");
	check_err(parse(&o, err, tmpdir, "--runs", "--duration", "5", NULL), err,
			  "option \"--runs\" needs a value (\"--duration\" is an option)",
			  "flag followed by another flag: its value is missing, not the next word unknown");
	check_err(parse(&o, err, tmpdir, "--out", "--quiet", NULL), err,
			  "option \"--out\" needs a value (\"--quiet\" is an option)",
			  "flag followed by a switch");
	check_err(parse(&o, err, tmpdir, "--runs", "--scale=3", NULL), err,
			  "option \"--runs\" needs a value (\"--scale=3\" is an option)",
			  "flag followed by a flag with its value");
	check_err(parse(&o, err, tmpdir, "--judge", "/tmp/x", "--margin", "5", "--runs", "3", NULL), err,
			  "--judge judges runs already made: --runs shapes runs and would change nothing "
			  "(--judge takes --baseline, --margin, --out and --quiet)",
			  "--judge with a flag that shapes runs: refused, not silently ignored");
	check_err(parse(&o, err, tmpdir, "--set", "wal_buffers=1MB", "--judge", "/tmp/x", NULL), err,
			  "--judge judges runs already made: --set shapes runs and would change nothing "
			  "(--judge takes --baseline, --margin, --out and --quiet)",
			  "--judge with --set: refused");
	check(parse(&o, err, tmpdir, "--judge", "/tmp/x", "--margin", "5", "--baseline", "b",
				"--out", "/tmp/y", "--quiet", NULL) == 0,
		  "--judge with --baseline, --margin, --out and --quiet: taken");
	check_err(parse(&o, err, tmpdir, "--runs", "0", NULL), err,
			  "--runs: \"0\" is not an integer from 1 to 1000", "--runs 0");
	check_err(parse(&o, err, tmpdir, "--runs", "-1", NULL), err,
			  "--runs: \"-1\" is not an integer from 1 to 1000", "--runs -1");
	check_err(parse(&o, err, tmpdir, "--runs", "x", NULL), err,
			  "--runs: \"x\" is not an integer from 1 to 1000", "--runs x");
	check_err(parse(&o, err, tmpdir, "--duration", "3s", NULL), err,
			  "--duration: \"3s\" is not an integer from 1 to 86400", "--duration 3s");
	check(parse(&o, err, tmpdir, "--warmup", "4", NULL) == 0 && o.warmup == 4 &&
		  parse(&o, err, tmpdir, "--warmup=0", NULL) == 0 && o.warmup == 0,
		  "--warmup 4, and 0 for none");
	check_err(parse(&o, err, tmpdir, "--warmup", "-1", NULL), err,
			  "--warmup: \"-1\" is not an integer from 0 to 3600", "--warmup -1");
	check_err(parse(&o, err, tmpdir, "--warmup", "2s", NULL), err,
			  "--warmup: \"2s\" is not an integer from 0 to 3600", "--warmup 2s");
	check_err(parse(&o, err, tmpdir, "--warmup", "3", "--aged-pages", "4", NULL), err,
			  "--warmup and --aged-pages exclude each other: a warm-up would read the run's fresh copy "
			  "of the aged table and set its hint bits before the run counts", "--warmup with --aged-pages");
	check_err(parse(&o, err, tmpdir, "--clients", "0", NULL), err,
			  "--clients: \"0\" is not an integer from 1 to 10000", "--clients 0");
	check_err(parse(&o, err, tmpdir, "--slow-wal", "-5", NULL), err,
			  "--slow-wal: \"-5\" is not an integer from 1 to 10000000", "--slow-wal -5");
	check_err(parse(&o, err, tmpdir, "--jobs", "4", "--clients", "2", NULL), err,
			  "--jobs (4) cannot exceed --clients (2)", "--jobs above --clients");
	snprintf(want, sizeof(want), "%s/select.sql", tmpdir);
	wsb_write_file(want, "SELECT 1;\n");
	check_err(parse(&o, err, tmpdir, "--builtin", "select-only", "--script", want, NULL), err,
			  "--builtin and --script exclude each other", "--builtin with --script");
	check_err(parse(&o, err, tmpdir, "--script", "/nonexistent/s.sql", NULL), err,
			  "--script: cannot read \"/nonexistent/s.sql\": No such file or directory", "--script unreadable");
	check_err(parse(&o, err, tmpdir, "--script", "/dev/null", NULL), err,
			  "--script: cannot read \"/dev/null\": it is a character device, not a regular file",
			  "--script /dev/null");
	check_err(parse(&o, err, tmpdir, "--slow-wal-mbps", "4", NULL), err,
			  "--slow-wal-mbps needs --slow-wal", "--slow-wal-mbps alone");
	check_err(parse(&o, err, tmpdir, "--slow-wal", "100", "--slow-disk", "100", NULL), err,
			  "--slow-wal and --slow-disk exclude each other", "--slow-wal with --slow-disk");
	check_err(parse(&o, err, tmpdir, "--slow-wal", "100", "--pgdata", "/x", NULL), err,
			  "--slow-wal, --slow-disk and --wal-disk work only on the temporary cluster, not with --pgdata (they would move the cluster's files)",
			  "--slow-wal with --pgdata");
	check(parse(&o, err, tmpdir, "--wal-disk", "nate_boley", NULL) == 0 &&
		  strcmp(o.wal_disk, "nate_boley") == 0 && o.slow_wal_iops == 217 && o.slow_wal_kbps == 929 &&
		  o.slow_wal_mbps == 0 && fabs(wsb_wal_cap_mbps(&o) - 929 / 1024.0) < 1e-9,
		  "--wal-disk nate_boley: the model's first throttle, 217 IOPS and 929 kB/s (got %d, %d: %s)",
		  o.slow_wal_iops, o.slow_wal_kbps, err);
	check(parse(&o, err, tmpdir, "--wal-disk", "power7", NULL) == 0 && o.slow_wal_iops == 334 &&
		  o.slow_wal_kbps == 0 && wsb_wal_cap_mbps(&o) == 0,
		  "--wal-disk power7: 334 IOPS, no bandwidth cap (got %d, %d: %s)", o.slow_wal_iops,
		  o.slow_wal_kbps, err);
	check_err(parse(&o, err, tmpdir, "--wal-disk", "ssd", NULL), err,
			  "--wal-disk: \"ssd\" is not a disk profile (nate_boley, power7)",
			  "--wal-disk of an unknown profile");
	check_err(parse(&o, err, tmpdir, "--wal-disk", "power7", "--slow-wal", "100", NULL), err,
			  "--wal-disk excludes --slow-wal, --slow-wal-mbps and --slow-disk: it chooses the throttle itself",
			  "--wal-disk with --slow-wal");
	check_err(parse(&o, err, tmpdir, "--wal-disk", "power7", "--pgdata", "/x", NULL), err,
			  "--slow-wal, --slow-disk and --wal-disk work only on the temporary cluster, not with --pgdata (they would move the cluster's files)",
			  "--wal-disk with --pgdata");
	check(parse(&o, err, tmpdir, NULL) == 0 && !o.in_memory &&
		  parse(&o, err, tmpdir, "--in-memory", NULL) == 0 && o.in_memory,
		  "--in-memory: off unless given");
	check_err(parse(&o, err, tmpdir, "--in-memory", "--pgdata", "/x", NULL), err,
			  "--in-memory works only on the temporary cluster, not with --pgdata or --cluster",
			  "--in-memory with --pgdata");
	check_err(parse(&o, err, tmpdir, "--cluster", "15/main", "--in-memory", NULL), err,
			  "--in-memory works only on the temporary cluster, not with --pgdata or --cluster",
			  "--in-memory with --cluster");
	check_err(parse(&o, err, tmpdir, "--set", "a=1", "--set", "a=2", NULL), err,
			  "--set \"a\" given twice", "the same --set twice");
	check_err(parse(&o, err, tmpdir, "--pgdata", "", NULL), err,
			  "--pgdata: empty directory name", "--pgdata empty");
}

static void
test_presets(void)
{
	WsbOptions	o;
	char		err[512] = "";
	char		want[700];
	bool		given[32] = {0};
	DIR		   *d;
	struct dirent *e;
	const char *real = access("presets/wal_buffers_small.conf", R_OK) == 0 ? "presets" : "bench/presets";

	write_preset("p1",
				 "# a comment\n"
				 "description = first line\n"
				 "set = wal_buffers=-1,32kB   # trailing comment\n"
				 "set = synchronous_commit=on,off\n"
				 "conf = checkpoint_timeout = 30min\n"
				 "runs = 4\nduration = 9\nclients = 3\n"
				 "description = second line\n"
				 "slow_wal = 100\nslow_wal_mbps = 4\n"
				 "pgbench_init_args = --unlogged-tables\n"
				 "set = application_name='a#b'\n");
	check(parse(&o, err, tmpdir, "--preset", "p1", NULL) == 0 && o.nsets == 3 && o.runs == 4 &&
		  o.duration == 9 && o.clients == 3 && o.jobs == 2 && o.slow_wal_iops == 100 &&
		  o.slow_wal_mbps == 4 && strcmp(o.extra_conf, "checkpoint_timeout = 30min\n") == 0 &&
		  strcmp(o.description, "first line second line") == 0 &&
		  strcmp(o.pgbench_init_args, "--unlogged-tables") == 0 &&
		  strcmp(o.sets[2].values[0], "a#b") == 0 && strcmp(o.preset, "p1") == 0,
		  "preset: every key, comments, a '#' inside quotes");
	check(parse(&o, err, tmpdir, "--runs", "2", "--preset", "p1", "--set", "wal_buffers=1MB",
				"--set", "fsync=on", NULL) == 0 && o.runs == 2 && o.duration == 9 && o.nsets == 4 &&
		  strcmp(o.sets[0].name, "wal_buffers") == 0 && o.sets[0].nvalues == 1 &&
		  strcmp(o.sets[0].values[0], "1MB") == 0 && strcmp(o.sets[3].name, "fsync") == 0,
		  "flags override the preset, wherever --preset stands; --set replaces the preset's set of that GUC");
	snprintf(want, sizeof(want), "%s/p1.conf", tmpdir);
	check(parse(&o, err, "/nonexistent", "--preset", want, NULL) == 0 && o.runs == 4,
		  "--preset FILE by path");

	write_preset("mem", "in_memory = on\n");
	check(parse(&o, err, tmpdir, "--preset", "mem", NULL) == 0 && o.in_memory,
		  "preset: in_memory = on");
	write_preset("mem", "in_memory = off\n");
	check(parse(&o, err, tmpdir, "--preset", "mem", "--in-memory", NULL) == 0 && o.in_memory,
		  "preset: in_memory = off, and --in-memory on the command line turns it on");
	write_preset("mem", "in_memory = yes\n");
	snprintf(want, sizeof(want), "%s/mem.conf:1: in_memory: \"yes\" is neither on nor off", tmpdir);
	check_err(parse(&o, err, tmpdir, "--preset", "mem", NULL), err, want, "preset in_memory of another word");
	write_preset("bad1", "runs = 3\nwhat = 1\n");
	snprintf(want, sizeof(want), "%s/bad1.conf:2: unknown key \"what\"", tmpdir);
	check_err(parse(&o, err, tmpdir, "--preset", "bad1", NULL), err, want, "preset unknown key, with file:line");
	write_preset("bad2", "\n\nruns 3\n");
	snprintf(want, sizeof(want), "%s/bad2.conf:3: expected \"key = value\"", tmpdir);
	check_err(parse(&o, err, tmpdir, "--preset", "bad2", NULL), err, want, "preset line without '='");
	write_preset("bad3", "runs = many\n");
	snprintf(want, sizeof(want), "%s/bad3.conf:1: runs: \"many\" is not an integer from 1 to 1000", tmpdir);
	check_err(parse(&o, err, tmpdir, "--preset", "bad3", NULL), err, want, "preset bad number");
	write_preset("bad4", "set = a=1\nset = a=2\n");
	snprintf(want, sizeof(want), "%s/bad4.conf:2: --set \"a\" given twice", tmpdir);
	check_err(parse(&o, err, tmpdir, "--preset", "bad4", NULL), err, want, "preset sets a GUC twice");
	write_preset("bad5", "set = a\n");
	snprintf(want, sizeof(want), "%s/bad5.conf:1: --set \"a\": expected GUC=V1,V2,...", tmpdir);
	check_err(parse(&o, err, tmpdir, "--preset", "bad5", NULL), err, want, "preset bad set");
	write_preset("bad6", "conf = nothing\n");
	snprintf(want, sizeof(want), "%s/bad6.conf:1: conf: expected \"name = value\"", tmpdir);
	check_err(parse(&o, err, tmpdir, "--preset", "bad6", NULL), err, want, "preset bad conf");
	check(parse(&o, err, tmpdir, "--preset", "nosuch", NULL) == -1 &&
		  strncmp(err, "unknown preset \"nosuch\": cannot read ", 37) == 0 &&
		  strstr(err, "(presets: ") && strstr(err, "p1"),
		  "unknown preset names the presets there: %s", err);
	check_err(parse(&o, err, tmpdir, "--preset", "p1", "--preset", "p1", NULL), err,
			  "--preset given twice", "--preset twice");

	/* set_from_17: the preset's set lines on 13-16, its set_from_17 lines on 17+ */
	write_preset("v17",
				 "set = shared_buffers=2MB,128MB\n"
				 "set_from_17 = transaction_buffers=16,1024\n"
				 "set = synchronous_commit=on,off\n");
	check(parse(&o, err, tmpdir, "--preset", "v17", NULL) == 0 && o.nsets == 2 &&
		  o.nsets_from_17 == 1 && wsb_sets_for_version(&o, 16, err, sizeof(err)) == 0 &&
		  o.nsets == 2 && strcmp(o.sets[0].name, "shared_buffers") == 0,
		  "set_from_17 on 16: the preset's set lines stay");
	check(wsb_sets_for_version(&o, 17, err, sizeof(err)) == 1 && o.nsets == 1 &&
		  strcmp(o.sets[0].name, "transaction_buffers") == 0 && o.sets[0].nvalues == 2 &&
		  strcmp(o.sets[0].values[1], "1024") == 0,
		  "set_from_17 on 17: they replace every set line of the preset");
	check(parse(&o, err, tmpdir, "--preset", "v17", "--set", "transaction_buffers=64",
				"--set", "wal_buffers=1MB", NULL) == 0 &&
		  wsb_sets_for_version(&o, 18, err, sizeof(err)) == 1 && o.nsets == 2 &&
		  strcmp(o.sets[0].name, "transaction_buffers") == 0 && o.sets[0].nvalues == 1 &&
		  strcmp(o.sets[1].name, "wal_buffers") == 0,
		  "set_from_17 on 18: a --set flag stays and wins over the line of its GUC");

	/* every shipped preset parses and plans */
	d = opendir(real);
	check(d != NULL, "shipped presets directory found (%s)", real);
	while (d && (e = readdir(d)) != NULL)
	{
		size_t		l = strlen(e->d_name);
		char		name[256];
		WsbPlan		plan;

		if (l < 6 || strcmp(e->d_name + l - 5, ".conf") != 0)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int) (l - 5), e->d_name);
		memset(given, 0, sizeof(given));
		check(parse(&o, err, real, "--preset", name, NULL) == 0 &&
			  wsb_make_plan(&o, &plan, err, sizeof(err)) == 0 && plan.nconfigs >= 2 &&
			  o.description[0] != '\0',
			  "shipped preset %s parses, has a description and >= 2 configurations %s", name, err);
		if (o.nsets)
			wsb_plan_free(&plan);
	}
	if (d)
		closedir(d);
	check(parse(&o, err, real, "--preset", "wal_buffers_small", NULL) == 0 &&
		  o.sets[0].nvalues == 4 && strcmp(o.sets[0].values[0], "-1") == 0 &&
		  o.slow_wal_iops > 0 && strstr(o.extra_conf, "synchronous_commit = off"),
		  "wal_buffers_small: -1 is the baseline, slow WAL, synchronous_commit = off");
}

/*
 * A preset or a script is read only when no other account can change it,
 * and a bare preset name only from the presets directory.  chown needs
 * root: as another user those cases are skipped.
 */
static void
test_presets_trusted(void)
{
	WsbOptions	o;
	char		err[512] = "";
	char		path[300],
				want[700],
				cwd[PATH_MAX];

	/* a "p1" planted in the working directory is not the preset p1 */
	snprintf(path, sizeof(path), "%s/cwd", tmpdir);
	if (mkdir(path, 0700) != 0 || getcwd(cwd, sizeof(cwd)) == NULL || chdir(path) != 0)
	{
		check(false, "a working directory for the planted preset");
		return;
	}
	wsb_write_file("p1", "runs = 7\n");
	wsb_write_file("p1.conf", "runs = 8\n");
	check(parse(&o, err, tmpdir, "--preset", "p1", NULL) == 0 && o.runs == 4,
		  "--preset p1 with a file p1 (and p1.conf) in the working directory: the presets directory's p1");
	check(parse(&o, err, tmpdir, "--preset", "./p1", NULL) == 0 && o.runs == 7,
		  "--preset ./p1: the file here, given as a path");
	if (chdir(cwd) != 0)
		check(false, "back to %s", cwd);

	/* group or others may write the preset, or the directory above it */
	write_preset("open", "runs = 5\n");
	snprintf(path, sizeof(path), "%s/open.conf", tmpdir);
	chmod(path, 0666);
	snprintf(want, sizeof(want), "cannot use --preset \"%s\": its group and others may write in it "
			 "(mode 0666), and could change it; chmod go-w it", path);
	check_err(parse(&o, err, tmpdir, "--preset", "open", NULL), err, want, "a preset others may write");
	chmod(path, 0620);
	check(parse(&o, err, tmpdir, "--preset", "open", NULL) == -1 && strstr(err, "its group may write in it"),
		  "a preset its group may write: refused (%s)", err);
	snprintf(path, sizeof(path), "%s/opendir", tmpdir);
	mkdir(path, 0777);
	chmod(path, 0777);
	snprintf(want, sizeof(want), "%s/opendir/p.conf", tmpdir);
	wsb_write_file(want, "runs = 5\n");
	check(parse(&o, err, tmpdir, "--preset", want, NULL) == -1 &&
		  strstr(err, "above it is writable by others (mode 0777)"),
		  "a preset in a directory others may write in: refused (%s)", err);
	if (geteuid() == 0)
	{
		snprintf(path, sizeof(path), "%s/nobody.conf", tmpdir);
		write_preset("nobody", "runs = 5\n");
		check(chown(path, 65534, 65534) == 0 && parse(&o, err, tmpdir, "--preset", "nobody", NULL) == -1 &&
			  strstr(err, "(uid 65534), not by root or the user running the harness"),
			  "a preset another account owns: refused (%s)", err);
		snprintf(path, sizeof(path), "%s/nobody.sql", tmpdir);
		wsb_write_file(path, "SELECT 1;\n");
		snprintf(want, sizeof(want), "script = %s\n", path);
		write_preset("script_nobody", want);
		snprintf(want, sizeof(want), "%s/script_nobody.conf:1: script: cannot use the file \"%s\": it is owned by",
				 tmpdir, path);
		check(chown(path, 65534, 65534) == 0 &&
			  parse(&o, err, tmpdir, "--preset", "script_nobody", NULL) == -1 &&
			  strncmp(err, want, strlen(want)) == 0,
			  "a preset's script = another account's file: refused (%s)", err);
	}
	else
		printf("# not root: the files of another account are not tried\n");

	/* conf names against the server's settings, before any is written */
	{
		const char *described = "archive_command\tsighup\tWAL\tSTRING\t\t\t\tx\t\n"
			"DateStyle\tuser\tClient\tSTRING\t\t\t\tx\t\n"
			"checkpoint_timeout\tsighup\tWAL\tINTEGER\t300\t30\t86400\tx\t\n";

		check(wsb_conf_names_known("datestyle = 'SQL, DMY'\ncheckpoint_timeout = 30min\n"
								   "pg_stat_statements.max = 100\n", described, "/pg/postgres",
								   err, sizeof(err)) == 0,
			  "conf names: DateStyle in any case, a listed setting, a custom prefix.name");
		check_err(wsb_conf_names_known("checkpoint_timeout = 30min\ninclude_dir = '/tmp'\n", described,
									   "/pg/postgres", err, sizeof(err)), err,
				  "preset conf: unknown setting \"include_dir\" (\"/pg/postgres --describe-config\" does not "
				  "list it), refused before any configuration file is written", "conf include_dir");
		check(wsb_conf_names_known("checkpoint = 1\n", described, "/pg/postgres", err, sizeof(err)) == -1 &&
			  wsb_conf_names_known("archive = 1\n", described, "/pg/postgres", err, sizeof(err)) == -1,
			  "conf names: a prefix of a listed name is not that name");
	}

	/* optional_library: a bare name, never a path */
	write_preset("lib_path", "optional_library = ../../tmp/evil\n");
	snprintf(want, sizeof(want), "%s/lib_path.conf:1: optional_library: \"../../tmp/evil\" is not a "
			 "library's bare name (letters, digits, '_' and '-')", tmpdir);
	check_err(parse(&o, err, tmpdir, "--preset", "lib_path", NULL), err, want, "optional_library with a path");
	write_preset("lib_ok", "set = shared_preload_libraries=wal_stall\noptional_library = pg_wait_sampling\n");
	check(parse(&o, err, tmpdir, "--preset", "lib_ok", NULL) == 0 &&
		  strcmp(o.optional_libraries, "pg_wait_sampling") == 0,
		  "optional_library pg_wait_sampling: taken %s", err);
}

static void
test_plan(void)
{
	WsbOptions	o;
	WsbPlan		p;
	char		err[512] = "";

	parse(&o, err, tmpdir, "--set", "a=1,2", "--set", "b=x,y,z", "--runs", "2", NULL);
	check(wsb_make_plan(&o, &p, err, sizeof(err)) == 0 && p.nconfigs == 6 && p.nruns == 12,
		  "plan: 2 x 3 values, 2 runs -> 6 configurations, 12 runs");
	check(strcmp(p.configs[0].label, "a=1 b=x") == 0, "baseline is every first value: %s", p.configs[0].label);
	check(strcmp(p.configs[1].label, "a=1 b=y") == 0 && strcmp(p.configs[2].label, "a=1 b=z") == 0 &&
		  strcmp(p.configs[3].label, "a=2 b=x") == 0 && strcmp(p.configs[5].label, "a=2 b=z") == 0,
		  "product order: the last --set varies fastest");
	check(p.configs[4].nsettings == 2 && strcmp(p.configs[4].names[1], "b") == 0 &&
		  strcmp(p.configs[4].values[0], "2") == 0 && strcmp(p.configs[4].values[1], "y") == 0,
		  "configuration names and values");
	{
		bool		ok = true;

		for (int r = 0; r < 2; r++)
		{
			int			seen = 0;

			for (int i = 0; i < 6; i++)
				seen |= 1 << p.order[r * 6 + i];
			ok &= seen == 63;
		}
		check(ok, "run order in rounds: each round runs every configuration once");
	}
	wsb_plan_free(&p);
	parse(&o, err, tmpdir, "--set", "shared_preload_libraries='',wal_stall", NULL);
	wsb_make_plan(&o, &p, err, sizeof(err));
	check(strcmp(p.configs[0].label, "shared_preload_libraries=''") == 0 &&
		  strcmp(p.configs[1].label, "shared_preload_libraries=wal_stall") == 0,
		  "labels quote an empty value");
	wsb_plan_free(&p);
	parse(&o, err, tmpdir, "--runs", "3", NULL);
	check(wsb_make_plan(&o, &p, err, sizeof(err)) == 0 && p.nconfigs == 1 && p.nruns == 3 &&
		  strcmp(p.configs[0].label, "as configured") == 0, "no --set: one configuration, as configured");
	wsb_plan_free(&p);
	parse(&o, err, tmpdir, "--set", "a=1,2,3,4,5,6,7,8", "--set", "b=1,2,3,4,5,6,7,8",
		  "--set", "c=1,2", NULL);
	check_err(wsb_make_plan(&o, &p, err, sizeof(err)), err,
			  "the --set values make more than 64 configurations", "too many configurations");
}

/* optional_library: an installed library joins shared_preload_libraries */
static void
test_optional_libraries(void)
{
	WsbOptions	o;
	WsbSet		s;
	char		err[256] = "";
	char		path[300];
	FILE	   *f;

	wsb_options_defaults(&o);
	wsb_parse_set("shared_preload_libraries='',wal_stall", &s, err, sizeof(err));
	o.sets[o.nsets++] = s;
	snprintf(o.optional_libraries, sizeof(o.optional_libraries), "present absent");
	snprintf(path, sizeof(path), "%s/present.so", tmpdir);
	f = fopen(path, "w");
	if (f)
		fclose(f);
	check(wsb_add_optional_libraries(&o, tmpdir, err, sizeof(err)) == 0 &&
		  o.sets[0].nvalues == 3 && strcmp(o.sets[0].values[2], "present") == 0,
		  "optional_library: an installed library is a third value, a missing one is left out");
	wsb_options_defaults(&o);
	snprintf(o.optional_libraries, sizeof(o.optional_libraries), "present");
	check(wsb_add_optional_libraries(&o, tmpdir, err, sizeof(err)) == -1 &&
		  strcmp(err, "optional_library needs a set of shared_preload_libraries") == 0,
		  "optional_library without a shared_preload_libraries set: \"%s\"", err);
}

/*
 * What getopt_long would take and the harness never did: abbreviations,
 * clusters of short flags, "--"; and a value too long for its field,
 * which used to be cut without a word.
 */
static void
test_flags_spelling(void)
{
	WsbOptions	o;
	char		err[512],
				longout[1100];

	check_err(parse(&o, err, tmpdir, "--dur", "5", NULL), err,
			  "unknown option \"--dur\" (see --help)", "an abbreviated flag is unknown");
	check_err(parse(&o, err, tmpdir, "--run", NULL), err,
			  "unknown option \"--run\" (see --help)", "an abbreviated flag without its value is unknown");
	check_err(parse(&o, err, tmpdir, "--ou=/tmp/x", NULL), err,
			  "unknown option \"--ou=/tmp/x\" (see --help)", "an abbreviated --flag=value is unknown");
	check_err(parse(&o, err, tmpdir, "-qV", NULL), err,
			  "unknown option \"-qV\" (see --help)", "short flags do not cluster");
	check_err(parse(&o, err, tmpdir, "--quiet=1", NULL), err,
			  "unknown option \"--quiet=1\" (see --help)", "a switch takes no =value");
	check_err(parse(&o, err, tmpdir, "--runs", "3", "--", NULL), err,
			  "unknown option \"--\" (see --help)", "\"--\" is no end of flags");
	check_err(parse(&o, err, tmpdir, "--runs", "3", "extra", "--bogus", NULL), err,
			  "\"extra\" is not an option: wal_stall_bench takes options alone (see --help)",
			  "a word that is no flag, where it stands");
	check(parse(&o, err, tmpdir, "--out", "--", "--runs", "--", NULL) == -1 && strcmp(o.out, "--") == 0 &&
		  strcmp(err, "--runs: \"--\" is not an integer from 1 to 1000") == 0,
		  "a value that looks like a flag is the value: \"%s\"", err);
	memset(longout, 'a', sizeof(longout) - 1);
	longout[0] = '/';
	longout[sizeof(longout) - 1] = '\0';
	check(parse(&o, err, tmpdir, "--out", longout, NULL) == -1 &&
		  strstr(err, "--out: path too long: \"/aaa") == err &&
		  strstr(err, "...\" (1099 bytes, at most 1023)") != NULL,
		  "a too long --out is refused, not cut: \"%s\"", err);
	longout[1023] = '\0';
	check(parse(&o, err, tmpdir, "--out", longout, NULL) == 0 && strlen(o.out) == 1023,
		  "an --out of 1023 bytes is taken whole");
	longout[200] = '\0';
	memcpy(longout + 47, "15/", 3);
	check(parse(&o, err, tmpdir, "--cluster", longout + 47, NULL) == -1 &&
		  strstr(err, "--cluster: name too long: ") == err,
		  "a too long --cluster is refused: \"%s\"", err);
}

void
test_options(void)
{
	char		cmd[128];

	if (mkdtemp(tmpdir) == NULL)
	{
		check(false, "mkdtemp");
		return;
	}
	test_set_parsing();
	test_flags();
	test_flags_spelling();
	test_presets();
	test_presets_trusted();
	test_plan();
	test_optional_libraries();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd) != 0)
		check(false, "remove %s", tmpdir);
}

void
test_pgbench(void)
{
	WsbLogLine	l;
	WsbLogStats s;
	double		tps,
				el,
				lat;

	check(wsb_pgbench_parse_line("3 17 2345 0 1700000000 123456\n", &l) && l.client == 3 &&
		  l.transaction == 17 && l.latency_us == 2345 && l.script == 0 && l.epoch == 1700000000 &&
		  l.epoch_us == 123456, "log line: every field");
	check(wsb_pgbench_parse_line("0 1 800 0 1700000000 5 120", &l) && l.latency_us == 800,
		  "log line with schedule lag");
	check(wsb_pgbench_parse_line("0 2 failed 0 1700000001 5", &l) && l.latency_us < 0 &&
		  l.epoch == 1700000001, "log line of a failed transaction");
	check(wsb_pgbench_parse_line("0 2 skipped 0 1700000001 5", &l) && l.latency_us < 0,
		  "log line of a skipped transaction");
	check(!wsb_pgbench_parse_line("", &l) && !wsb_pgbench_parse_line("progress: 1.0 s", &l) &&
		  !wsb_pgbench_parse_line("0 1 12 0", &l) && !wsb_pgbench_parse_line("0 1 -5 0 1700000000 1", &l) &&
		  !wsb_pgbench_parse_line("0 1 5 0 1700000000 1 x", &l) &&
		  !wsb_pgbench_parse_line("0 1 5 0 1700000000 1000000", &l),
		  "log parser refuses short, negative, trailing-garbage and out-of-range lines");

	wsb_logstats_init(&s);
	wsb_logstats_add_text(&s, "0 1 1000 0 100 10");
	wsb_logstats_add_text(&s, "1 1 3000 0 100 900000");
	wsb_logstats_add_text(&s, "0 2 2000 0 101 5");
	wsb_logstats_add_text(&s, "0 3 4000 0 103 5");
	wsb_logstats_add_text(&s, "0 4 failed 0 103 6");
	wsb_logstats_add_text(&s, "garbage");
	check(s.nseconds == 4 && s.first_epoch == 100 && s.last_epoch == 103,
		  "buckets span the first to the last second, gaps included");
	check(s.seconds[0].epoch == 100 && s.seconds[0].transactions == 2 &&
		  fabs(s.seconds[0].latency_avg_ms - 2.0) < 1e-9 && fabs(s.seconds[0].latency_max_ms - 3.0) < 1e-9,
		  "second 100: 2 transactions, mean 2 ms, max 3 ms");
	check(s.seconds[2].epoch == 102 && s.seconds[2].transactions == 0 && s.seconds[3].transactions == 1,
		  "an idle second has zero transactions");
	check(s.transactions == 4 && s.failed == 1 && s.bad_lines == 1 &&
		  fabs(s.latency_sum_us - 10000) < 1e-9, "totals: 4 done, 1 failed, 1 bad line");
	/* a line of an earlier second, as from a second thread's file */
	wsb_logstats_add_text(&s, "2 1 5000 0 98 1");
	check(s.nseconds == 6 && s.first_epoch == 98 && s.seconds[0].epoch == 98 &&
		  s.seconds[0].transactions == 1 && s.seconds[1].transactions == 0 &&
		  s.seconds[2].epoch == 100 && s.seconds[2].transactions == 2 && s.seconds[5].epoch == 103,
		  "an earlier second shifts the buckets");
	wsb_logstats_free(&s);

	/* quantiles: 1..1000 ms, p99 = 990 ms, p50 = 500 ms, within the 0.6% bucket */
	wsb_logstats_init(&s);
	for (int i = 1; i <= 1000; i++)
	{
		char		line[80];

		snprintf(line, sizeof(line), "0 %d %d 0 %d 0", i, i * 1000, 1000 + i / 100);
		wsb_logstats_add_text(&s, line);
	}
	check(fabs(wsb_logstats_quantile_ms(&s, 0.99) / 990.0 - 1) < 0.006,
		  "p99 of 1..1000 ms is 990 ms within 0.6%% (got %.3f)", wsb_logstats_quantile_ms(&s, 0.99));
	check(fabs(wsb_logstats_quantile_ms(&s, 0.5) / 500.0 - 1) < 0.006,
		  "p50 of 1..1000 ms is 500 ms within 0.6%% (got %.3f)", wsb_logstats_quantile_ms(&s, 0.5));
	check(fabs(wsb_logstats_quantile_ms(&s, 1.0) / 1000.0 - 1) < 0.006, "p100 is the maximum");
	check(s.nseconds == 11 && s.seconds[0].transactions == 99 && s.seconds[10].transactions == 1,
		  "1000 lines bucketed by second");
	wsb_logstats_free(&s);
	wsb_logstats_init(&s);
	check(isnan(wsb_logstats_quantile_ms(&s, 0.99)), "no transactions: p99 is NaN");
	wsb_logstats_free(&s);

	check(wsb_pgbench_parse_tps(
								"transaction type: <builtin: TPC-B (sort of)>\n"
								"scaling factor: 1\n"
								"latency average = 9.166 ms\n"
								"initial connection time = 5.012 ms\n"
								"tps = 217.184065 (without initial connection time)\n", &tps) &&
		  fabs(tps - 217.184065) < 1e-9, "summary: tps without initial connection time");
	check(!wsb_pgbench_parse_tps("tps = 217.1 (including connections establishing)\n", &tps) &&
		  !wsb_pgbench_parse_tps("latency average = 1 ms\n", &tps),
		  "summary: no tps line, or only the old including-connections figure, is no tps");
	check(wsb_pgbench_parse_tps("tps = 1.5 (including connections establishing)\n"
								"tps = 2.5 (without initial connection time)\n", &tps) && tps == 2.5,
		  "summary: the without-connection figure is picked");
	/*
	 * the window: a 10 s run whose first calendar second holds nothing
	 * (connecting), whose start falls in the next, and whose last
	 * transactions sat in a stall past the end: 3 s of tail.  skip = 1, so
	 * seconds 2..10 of the array (9 of them, 100 each) count, neither the
	 * partial first (40) nor the tail (30, 0, 200).
	 */
	{
		WsbPgbenchSecond w[14];
		const int64_t tx[14] = {0, 40, 100, 100, 100, 100, 100, 100, 100, 100, 100, 30, 0, 200};
		int			secs;
		double		got;

		memset(w, 0, sizeof(w));
		for (int i = 0; i < 14; i++)
		{
			w[i].epoch = 1764496800 + i;
			w[i].transactions = tx[i];
		}
		got = wsb_window_tps(w, 14, 10, &secs);
		check(got == 100 && secs == 9,
			  "window tps: the steady seconds of a 10 s run, without its first and its stretched tail (got %g, %d s)",
			  got, secs);
		check(isnan(wsb_window_tps(w, 14, 20, &secs)) && secs == 0,
			  "window tps: seconds that end before -T does have no window (NaN)");
		check(isnan(wsb_window_tps(w, 14, 1, &secs)), "window tps: a 1 s run has no steady second");
		/* a 40 s run skips its first 4 s */
		{
			WsbPgbenchSecond l[42];
			int64_t		sum = 0;

			memset(l, 0, sizeof(l));
			for (int i = 0; i < 42; i++)
				l[i].transactions = i < 4 ? 10 : 50 + i;
			for (int i = 4; i <= 39; i++)
				sum += l[i].transactions;
			got = wsb_window_tps(l, 42, 40, &secs);
			check(fabs(got - sum / 36.0) < 1e-9 && secs == 36,
				  "window tps: a 40 s run counts seconds 4..39 (%d s)", secs);
		}
	}
	check(wsb_pgbench_parse_progress("progress: 5.0 s, 1234.5 tps, lat 3.210 ms stddev 1.100, 0 failed",
									 &el, &tps, &lat) && el == 5.0 && tps == 1234.5 && fabs(lat - 3.21) < 1e-9,
		  "progress line: elapsed, tps, latency");
	check(!wsb_pgbench_parse_progress("pgbench (15.20)", &el, &tps, &lat), "not a progress line");
}

/* A child's stdout_path: run sh -c "echo CHILD", 0 ok; its exit status */
static int
child_writes(const char *path, bool append)
{
	WsbCommand	c;
	int			rc;

	wsb_cmd_init(&c, (uid_t) -1, (gid_t) -1);
	wsb_cmd_add(&c, "/bin/sh");
	wsb_cmd_add(&c, "-c");
	wsb_cmd_add(&c, "echo child");
	c.stdout_path = path;
	c.stderr_path = "/dev/null";
	c.stdout_append = append;
	rc = wsb_cmd_run(&c);
	wsb_cmd_free(&c);
	return rc;
}

static int
return_seven(void *arg)
{
	(void) arg;
	return 7;
}

/*
 * A name another account could have put a link at: a child's output, a
 * file the harness makes, a file it reads, a directory it writes in.
 */
static void
test_files_not_followed(void)
{
	char		dir[] = "/tmp/wsb_unit_files.XXXXXX";
	char		canary[64],
				link[64],
				fifo[64],
				msg[512];
	char	   *text;
	FILE	   *f;
	struct stat st;

	if (mkdtemp(dir) == NULL)
	{
		check(false, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(canary, sizeof(canary), "%s/canary", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	wsb_write_file(canary, "canary\n");

	check(symlink(canary, link) == 0 && child_writes(link, true) == 126,
		  "a child's output appended to a link: refused, the child ends with 126");
	check(child_writes(link, false) == 0 && lstat(link, &st) == 0 && S_ISREG(st.st_mode),
		  "a child's output made anew at a link: the link replaced by a new file");
	text = wsb_read_file(canary, NULL);
	check(text && strcmp(text, "canary\n") == 0, "... and the file it pointed at untouched");
	free(text);

	unlink(link);
	f = symlink(canary, link) == 0 ? wsb_create_file(link, 0600) : NULL;
	if (f)
		fputs("new\n", f);
	check(f && fclose(f) == 0 && lstat(link, &st) == 0 && S_ISREG(st.st_mode) &&
		  (st.st_mode & 0777) == 0600,
		  "wsb_create_file at a link: a new file of its own, 0600");
	text = wsb_read_file(canary, NULL);
	check(text && strcmp(text, "canary\n") == 0, "... and the file the link pointed at untouched");
	free(text);

	unlink(link);
	check(symlink(canary, link) == 0 && wsb_read_file_of(link, (uid_t) -1, NULL) == NULL,
		  "wsb_read_file_of: a link is not read through");
	check(mkfifo(fifo, 0600) == 0 && wsb_read_file_of(fifo, (uid_t) -1, NULL) == NULL,
		  "wsb_read_file_of: a FIFO is refused at once, not waited on");
	text = wsb_read_file_of(canary, geteuid(), NULL);
	check(text && strcmp(text, "canary\n") == 0, "wsb_read_file_of: a regular file of ours is read");
	free(text);

	chmod(dir, 0777);
	check(wsb_dir_is_private(dir, "--out", msg, sizeof(msg)) == -1 &&
		  strstr(msg, "group and others may write in it (mode 0777)") != NULL,
		  "wsb_dir_is_private: a directory others may write in is refused: %s", msg);
	chmod(dir, 0700);
	check(wsb_dir_is_private(dir, "--out", msg, sizeof(msg)) == 0,
		  "wsb_dir_is_private: our own 0700 directory is taken");
	check(wsb_dir_is_private(canary, "--out", msg, sizeof(msg)) == -1 &&
		  strstr(msg, "is not a directory") != NULL,
		  "wsb_dir_is_private: a file is no directory: %s", msg);
	check(wsb_run_as_user(geteuid(), getegid(), return_seven, NULL) == -1,
		  "wsb_run_as_user: a function that fails in the child is a failure");

	unlink(canary);
	unlink(link);
	unlink(fifo);
	rmdir(dir);
}

/* "id -G" and HOME of a child that is uid/gid, into out */
static int
child_groups(uid_t uid, gid_t gid, char *out, size_t len)
{
	WsbCommand	c;
	char	   *text;
	int			rc;

	wsb_cmd_init(&c, uid, gid);
	wsb_cmd_add(&c, "/bin/sh");
	wsb_cmd_add(&c, "-c");
	wsb_cmd_add(&c, "echo \"$(id -G) HOME=$HOME\"");
	rc = wsb_cmd_output(&c, &text);
	wsb_cmd_free(&c);
	wsb_strlcpy(out, text, len);
	free(text);
	return rc;
}

/*
 * As root: a child of another user has that user's groups, not root's;
 * one of a uid without a passwd entry has no supplementary group at all
 * and HOME=/.
 */
static void
test_child_groups(void)
{
	struct passwd *nobody = getpwnam("nobody");
	char		out[256],
				want[256];
	uid_t		unknown = 54321;

	if (geteuid() != 0 || nobody == NULL || getpwuid(unknown) != NULL)
	{
		check(true, "# skip the children's groups: not root, no user nobody, or uid %d is known",
			  (int) unknown);
		return;
	}
	check(child_groups(nobody->pw_uid, nobody->pw_gid, out, sizeof(out)) == 0 &&
		  strstr(out, " 0 ") == NULL && strncmp(out, "0 ", 2) != 0 &&
		  strstr(out, "HOME=") != NULL && strcmp(strstr(out, "HOME=") + 5, nobody->pw_dir) == 0,
		  "a child as nobody: nobody's groups (not root's group 0) and home: \"%s\"", out);
	snprintf(want, sizeof(want), "%d HOME=/", (int) unknown);
	check(child_groups(unknown, unknown, out, sizeof(out)) == 0 && strcmp(out, want) == 0,
		  "a child as uid %d (no passwd entry): its gid alone, no supplementary group, HOME=/: \"%s\"",
		  (int) unknown, out);
}

/* The process runner: what every child of the harness goes through. */
void
test_proc(void)
{
	WsbCommand	c;
	char	   *text;
	char		path[64] = "untouched",
				pidfile[] = "/tmp/wsb_unit_proc.XXXXXX";
	char	   *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	pid_t		pid;
	int			status = 0,
				fd;
	double		t0;

	wsb_cmd_init(&c, (uid_t) -1, (gid_t) -1);
	wsb_cmd_add(&c, "/bin/sh");
	wsb_cmd_add(&c, "-c");
	wsb_cmd_add(&c, "echo captured; exit 3");
	check(wsb_cmd_output(&c, &text) == 3 && strcmp(text, "captured") == 0,
		  "wsb_cmd_output: stdout captured without its newline, the exit status returned");
	wsb_cmd_free(&c);
	free(text);

	/* output far past the first buffer's 256 bytes comes back whole */
	wsb_cmd_init(&c, (uid_t) -1, (gid_t) -1);
	wsb_cmd_add(&c, "/bin/sh");
	wsb_cmd_add(&c, "-c");
	wsb_cmd_add(&c, "head -c 100000 /dev/zero | tr '\\0' x; echo");
	status = wsb_cmd_output(&c, &text);
	check(status == 0 && strlen(text) == 100000 && strspn(text, "x") == 100000,
		  "wsb_cmd_output: 100000 bytes of output captured whole (%zu)", strlen(text));
	wsb_cmd_free(&c);
	free(text);

	wsb_cmd_init(&c, (uid_t) -1, (gid_t) -1);
	wsb_cmd_add(&c, "/bin/sh");
	wsb_cmd_add(&c, "-c");
	wsb_cmd_add(&c, "pwd");
	c.cwd = "/proc";
	status = wsb_cmd_output(&c, &text);
	check(status == 0 && strcmp(text, "/proc") == 0,
		  "a command runs in its cwd: \"%s\"", text);
	wsb_cmd_free(&c);
	free(text);

	/* an argument past the 8 kB the old formatting buffer held */
	{
		char	   *big = malloc(10001);

		memset(big, 'x', 10000);
		big[10000] = '\0';
		wsb_cmd_init(&c, (uid_t) -1, (gid_t) -1);
		wsb_cmd_add(&c, "/bin/sh");
		wsb_cmd_add(&c, "-c");
		wsb_cmd_add(&c, "printf %%s \"$1\" | wc -c");
		wsb_cmd_add(&c, "sh");
		wsb_cmd_add(&c, "%s", big);
		status = wsb_cmd_output(&c, &text);
		check(status == 0 && atoi(text) == 10000,
			  "an argument of 10000 bytes reaches the child whole: %s", text);
		wsb_cmd_free(&c);
		free(text);
		free(big);
	}

	/* paths are built whole: one past the 1,200 bytes the fixed buffers
	 * held opens, and the OS's ENAMETOOLONG is what a name too long for it
	 * gets, reported as fopen's errno */
	{
		char		dir[] = "/tmp/wsb_unit_path.XXXXXX";
		char		part[201];
		char	   *deep = NULL,
				   *name;
		FILE	   *f;
		int			levels = 0,
					e;
		bool		made = mkdtemp(dir) != NULL;

		memset(part, 'd', 200);
		part[200] = '\0';
		deep = wsb_xstrdup(dir);
		while (made && strlen(deep) < 1500)
		{
			char	   *next = wsb_psprintf("%s/%s", deep, part);

			free(deep);
			deep = next;
			made = mkdir(deep, 0700) == 0;
			levels++;
		}
		f = made ? wsb_fopenf("w", "%s/%s", deep, "file") : NULL;
		check(f != NULL && strlen(deep) > 1500,
			  "wsb_fopenf: a path of %zu bytes is built whole and opens", strlen(deep) + 5);
		if (f)
			fclose(f);
		name = wsb_psprintf("%s/%s%s", deep, part, part);	/* a name over NAME_MAX */
		check(strlen(name) == strlen(deep) + 401,
			  "wsb_psprintf: %zu bytes, none cut", strlen(name));
		errno = 0;
		f = wsb_fopenf("w", "%s/%s%s", dir, part, part);
		e = errno;
		check(f == NULL && e == ENAMETOOLONG,
			  "wsb_fopenf: a name longer than the file system takes fails with the OS's own error: %s",
			  strerror(e));
		if (f)
			fclose(f);
		free(name);
		/* undo, deepest first */
		if (made)
		{
			name = wsb_psprintf("%s/file", deep);
			unlink(name);
			free(name);
		}
		for (; levels > 0; levels--)
		{
			char	   *slash = strrchr(deep, '/');

			rmdir(deep);
			*slash = '\0';
		}
		rmdir(dir);
		free(deep);
	}

	wsb_cmd_init(&c, (uid_t) -1, (gid_t) -1);
	for (int i = 0; i < 100; i++)
		wsb_cmd_add(&c, "/bin/true");
	errno = 0;
	check(wsb_cmd_start(&c) == -1 && errno == E2BIG,
		  "more arguments than argv holds: the start fails (E2BIG), none silently dropped");
	wsb_cmd_free(&c);

	/* a timeout that ends while the child runs, then a plain SIGTERM */
	wsb_cmd_init(&c, (uid_t) -1, (gid_t) -1);
	wsb_cmd_add(&c, "/bin/sleep");
	wsb_cmd_add(&c, "30");
	pid = wsb_cmd_start(&c);
	wsb_cmd_free(&c);
	t0 = wsb_now();
	check(pid > 0 && wsb_proc_wait(pid, 0.2, &status) == 0 && wsb_now() - t0 >= 0.19,
		  "wsb_proc_wait: 0 when the child still runs at the timeout");
	status = wsb_proc_stop(pid, SIGTERM, 5.0, true);
	check(status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM && wsb_now() - t0 < 4,
		  "wsb_proc_stop: a child that obeys the signal ends by it, before the grace runs out");

	/* a group that ignores the signal: SIGKILL after the grace, grandchild too */
	fd = mkstemp(pidfile);
	if (fd >= 0)
		close(fd);
	wsb_cmd_init(&c, (uid_t) -1, (gid_t) -1);
	wsb_cmd_add(&c, "/bin/sh");
	wsb_cmd_add(&c, "-c");
	wsb_cmd_add(&c, "trap '' TERM; sleep 30 & echo $! > %s; wait", pidfile);
	pid = wsb_cmd_start(&c);
	wsb_cmd_free(&c);
	{
		int			grandchild = 0;
		bool		gone = false;

		for (int i = 0; i < 100 && grandchild <= 0; i++)
		{
			char	   *text = wsb_read_file(pidfile, NULL);

			grandchild = text ? atoi(text) : 0;
			free(text);
			if (grandchild <= 0)
				usleep(20000);
		}
		t0 = wsb_now();
		status = wsb_proc_stop(pid, SIGTERM, 0.3, true);
		check(status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL &&
			  wsb_now() - t0 >= 0.29 && wsb_now() - t0 < 4,
			  "wsb_proc_stop: a child that ignores the signal is killed once the grace ran out");
		/* the grandchild, reparented, is reaped by init after its SIGKILL */
		for (int i = 0; i < 100 && !gone; i++)
		{
			gone = grandchild > 0 && kill(grandchild, 0) != 0;
			if (!gone)
				usleep(20000);
		}
		check(gone, "wsb_proc_stop with group: the child's own children are killed too");
	}
	unlink(pidfile);

	setenv("PATH", "/nonexistent:", 1);
	check(!wsb_which_on_path("sh", path, sizeof(path)) && strcmp(path, "untouched") == 0,
		  "wsb_which_on_path: not found on PATH, the buffer left as it was");
	check(wsb_which("sh", path, sizeof(path)) && strcmp(path, "/usr/bin/sh") * strcmp(path, "/bin/sh") == 0,
		  "wsb_which: past PATH, the system's directories: \"%s\"", path);
	if (old)
	{
		setenv("PATH", old, 1);
		free(old);
	}
	test_files_not_followed();
	test_child_groups();
}

/*
 * The moves that give postgresql.auto.conf its old order again: before and
 * now are the entries' names, want the order after the moves.  Checks
 * that writing the named entries again (each to the end, as ALTER SYSTEM
 * does) gives want, and that no more than nmoves are written.
 */
static void
check_moves(const char *what, const char *const *before, int nbefore,
			const char *const *now, int nnow, const char *const *want, int nmoves)
{
	int			move[16];
	const char *after[16];
	bool		moved[16] = {false};
	int			n = wsb_auto_conf_moves(before, nbefore, now, nnow, move);
	int			k = 0;
	bool		same = true;

	for (int m = 0; m < n; m++)
		moved[move[m]] = true;
	for (int i = 0; i < nnow; i++)
		if (!moved[i])
			after[k++] = now[i];
	for (int m = 0; m < n; m++)
		after[k++] = now[move[m]];
	for (int i = 0; i < nnow; i++)
		same &= strcmp(after[i], want[i]) == 0;
	check(same && n == nmoves, "auto.conf order, %s: %d entr%s written again, the old order back (got %d)",
		  what, nmoves, nmoves == 1 ? "y" : "ies", n);
}

/*
 * autoconf.c: PostgreSQL's list-quoted settings, an empty list entry, what
 * the restore does with one setting's entry, and the moves back into the
 * old order.
 */
void
test_autoconf(void)
{
	const char *core[] = {"local_preload_libraries", "search_path", "session_preload_libraries",
	"shared_preload_libraries", "temp_tablespaces", "unix_socket_directories"};
	bool		all = true;

	/* pg_dump's variable_is_guc_list_quote(), PostgreSQL 13 to 18 */
	for (size_t i = 0; i < sizeof(core) / sizeof(core[0]); i++)
		all &= wsb_guc_list_quote(core[i]);
	check(all, "list-quoted: every name of pg_dump's variable_is_guc_list_quote()");
	check(wsb_guc_list_quote("Unix_Socket_Directories"), "list-quoted: names case-insensitively");
	check(wsb_guc_list_quote("oauth_validator_libraries"), "list-quoted: oauth_validator_libraries (18)");
	check(!wsb_guc_list_quote("listen_addresses") && !wsb_guc_list_quote("log_destination") &&
		  !wsb_guc_list_quote("synchronous_standby_names"),
		  "list-quoted: not a list setting whose elements are not quoted (listen_addresses, ...)");
	check(!wsb_guc_list_quote("wal_buffers"), "list-quoted: not wal_buffers");

	check(wsb_auto_conf_empty_list("shared_preload_libraries", ""),
		  "empty list: shared_preload_libraries = ''");
	check(!wsb_auto_conf_empty_list("shared_preload_libraries", NULL),
		  "empty list: not a setting without an entry");
	check(!wsb_auto_conf_empty_list("shared_preload_libraries", "wal_stall"),
		  "empty list: not shared_preload_libraries = 'wal_stall'");
	check(!wsb_auto_conf_empty_list("archive_command", ""),
		  "empty list: not an empty string setting (archive_command = '')");

	check(wsb_restore_action("2MB", "4MB", "4MB") == WSB_RESTORE_SET,
		  "restore: ours still there, an old entry: SET it back");
	check(wsb_restore_action(NULL, "on", "on") == WSB_RESTORE_RESET,
		  "restore: ours still there, no old entry: RESET");
	check(wsb_restore_action("2MB", "4MB", "8MB") == WSB_RESTORE_KEEP,
		  "restore: someone wrote 8MB over our 4MB: kept");
	check(wsb_restore_action("2MB", "4MB", NULL) == WSB_RESTORE_KEEP,
		  "restore: someone RESET our entry: kept (no entry)");
	check(wsb_restore_action(NULL, "on", NULL) == WSB_RESTORE_NOTHING,
		  "restore: someone RESET the entry we added: nothing, as before");
	check(wsb_restore_action("2MB", "4MB", "2MB") == WSB_RESTORE_NOTHING,
		  "restore: already back to the old entry: nothing");
	check(wsb_restore_action(NULL, NULL, NULL) == WSB_RESTORE_NOTHING,
		  "restore: no entry before, after or now: nothing");
	check(wsb_restore_action("2MB", "2MB", "2MB") == WSB_RESTORE_NOTHING,
		  "restore: put back already (the --set check): nothing");

	{
		const char *before[] = {"wal_buffers", "unix_socket_directories"};
		const char *now[] = {"unix_socket_directories", "wal_buffers"};
		const char *dba[] = {"unix_socket_directories", "wal_buffers", "work_mem"};
		const char *dba_want[] = {"wal_buffers", "unix_socket_directories", "work_mem"};
		const char *b4[] = {"a", "x", "b", "c"};
		const char *n4[] = {"a", "b", "c", "x"};
		const char *gone[] = {"a", "c", "b"};
		const char *gone_want[] = {"a", "b", "c"};

		check_moves("wal_buffers moved behind the two directories", before, 2, now, 2, before, 1);
		check_moves("in order already", before, 2, before, 2, before, 0);
		check_moves("a DBA's new entry stays last", before, 2, dba, 3, dba_want, 2);
		check_moves("x changed in the middle", b4, 4, n4, 4, b4, 2);
		check_moves("an entry gone (x RESET by a DBA)", b4, 4, gone, 3, gone_want, 1);
		check_moves("an empty file", b4, 0, b4, 0, b4, 0);
	}
}
