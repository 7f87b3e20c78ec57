/*-------------------------------------------------------------------------
 *
 * options.c
 *		wal_stall_bench: the command line: its flags, their checks against
 *		each other, and --help.  A flag that takes a preset key's value
 *		(--runs, --margin ...) is read as that key (preset.c); --preset
 *		loads the file first, and the command line's flags override it.
 *
 * Nothing here touches a server: these are pure functions, unit tested.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <getopt.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "disk_profile.h"
#include "engine.h"

void
wsb_options_defaults(WsbOptions *o)
{
	memset(o, 0, sizeof(*o));
	o->runs = 3;
	o->duration = 30;
	o->clients = 4;
	o->jobs = 2;
	o->scale = 10;
	o->aged_rows_per_page = WSB_AGED_ROWS_PER_PAGE;
	strcpy(o->builtin, "tpcb-like");
	o->margin_pct = 5;
	o->seed = -1;
}

void
wsb_usage(FILE *f)
{
	fputs(
		  "wal_stall_bench compares PostgreSQL configurations with pgbench and wal_stall.\n"
		  "\n"
		  "Usage: wal_stall_bench [OPTION]...\n"
		  "\n"
		  "What to compare:\n"
		  "  --set GUC=V1,V2,...   values of a setting; repeatable: every combination is a\n"
		  "                        configuration, the first (all first values) the baseline;\n"
		  "                        quote a value holding a comma: --set \"x='a,b',c\"\n"
		  "  --preset NAME|FILE    read settings and flags from FILE (a path: ./quick for a\n"
		  "                        file here), or NAME.conf in the presets directory\n"
		  "                        ($WSB_PRESETS_DIR, else presets/ beside the binary,\n"
		  "                        else " WSB_PRESETS_DIR_DEFAULT ");\n"
		  "                        flags given here override the preset's, and a --set\n"
		  "                        here replaces the preset's --set of the same setting\n"
		  "  --runs N              rounds (default 3): each runs every configuration once, in\n"
		  "                        a balanced order drawn from --seed (every second round\n"
		  "                        the one before reversed)\n"
		  "  --duration S          seconds per run (default 30)\n"
		  "  --warmup S            before every run, before its CHECKPOINT, S seconds of the\n"
		  "                        same pgbench that are not counted (default 0)\n"
		  "  --seed N              the seed of the order inside each round (default random;\n"
		  "                        printed, and stored in results.csv and the report)\n"
		  "\n"
		  "The verdict (rounds are the unit: each run against the same round's baseline):\n"
		  "  --margin PCT          the change that matters, declared before the runs\n"
		  "                        (default 5): faster/slower by >= PCT%, equivalent within\n"
		  "                        +-PCT%, or inconclusive with the rounds still needed\n"
		  "  --budget DURATION     e.g. 20m, 2h: judge after every round from the third and\n"
		  "                        stop when every configuration is decided or another round\n"
		  "                        would not fit (error spent over the looks by O'Brien-\n"
		  "                        Fleming spending); --runs, if given, caps the rounds\n"
		  "  --judge DIR|FILE.csv  no runs, no server: the verdicts of a results directory or\n"
		  "                        of any CSV with the columns configuration, round, tps\n"
		  "                        (optional: ok, CLASS_total_ms, CLASS_episodes, clients,\n"
		  "                        seconds); report and verdicts.csv go to --out if given;\n"
		  "                        takes --baseline, --margin, --out and --quiet\n"
		  "  --baseline NAME       with --judge: the baseline configuration (default: the\n"
		  "                        first in the file)\n"
		  "  --resume DIR          continue the experiment in DIR (the same plan, checked)\n"
		  "                        with more rounds, up to --runs or --budget\n"
		  "\n"
		  "The load (pgbench):\n"
		  "  --clients N           pgbench clients (default 4)\n"
		  "  --jobs N              pgbench threads (default 2, at most --clients)\n"
		  "  --scale N             pgbench -i scale of the temporary cluster (default 10)\n"
		  "  --builtin NAME        pgbench built-in script (default tpcb-like)\n"
		  "  --script FILE         a custom pgbench script instead of --builtin\n"
		  "  --pgbench-args 'ARGS' more pgbench arguments, split on blanks\n"
		  "  --aged-pages N        before the rounds, an aged table whose rows' xmins span\n"
		  "                        N CLOG pages (32,768 transactions each), unhinted; every\n"
		  "                        run gets a fresh copy and, without --script, a workload\n"
		  "                        that reads and updates its rows at random\n"
		  "  --aged-rows-per-page N rows per CLOG page of the aged table (default 512)\n"
		  "\n"
		  "Where (a temporary cluster, removed at the end, unless --pgdata):\n"
		  "  --pgdata DIR          an existing local cluster, stopped or running; settings\n"
		  "                        change through ALTER SYSTEM and are restored at the end,\n"
		  "                        also on failure and Ctrl-C; OUT/restore.sql holds the\n"
		  "                        statements that undo them, should the harness itself die\n"
		  "                        (run them with psql, then restart the server); the runs\n"
		  "                        use a database wal_stall_bench, created and dropped;\n"
		  "                        started, stopped and restarted the way it is managed:\n"
		  "                        pg_ctlcluster for a Debian/Ubuntu cluster, systemctl for\n"
		  "                        a systemd unit, else pg_ctl; left running or stopped as\n"
		  "                        found, with nothing pending a restart\n"
		  "  --cluster VER/NAME    a Debian/Ubuntu cluster (pg_lsclusters), e.g. 15/main\n"
		  "  --service UNIT        the systemd unit that runs the --pgdata cluster\n"
		  "  --yes                 go ahead on a server other clients are connected to,\n"
		  "                        or whose oldest age(datfrozenxid) --aged-pages would\n"
		  "                        bring past half of autovacuum_freeze_max_age\n"
		  "  --slow-wal IOPS       put pg_wal alone on a loop device whose writes are\n"
		  "                        throttled to IOPS per second (cgroup v2 io.max, or v1\n"
		  "                        blkio); needs root, that controller and losetup;\n"
		  "                        temporary cluster only\n"
		  "  --slow-wal-mbps MB    also limit that device's writes to MB megabytes/second\n"
		  "  --slow-disk IOPS      the whole data directory on a throttled loop device\n"
		  "  --wal-disk PROFILE    pg_wal on a loop device throttled until\n"
		  "                        wal_stall_test_fsync() measures the fdatasync rates of\n"
		  "                        a 2012 seed's disk: nate_boley or power7\n"
		  "  --in-memory           the temporary cluster, and the loop devices' files of\n"
		  "                        --slow-wal, --wal-disk and --slow-disk, in /dev/shm: no\n"
		  "                        run meets the host's disk, only the throttle\n"
		  "  --pg-config PATH      pg_config of the PostgreSQL to use (default: on PATH)\n"
		  "\n"
		  "Output:\n"
		  "  --out DIR             results.csv, timeline.csv, report.html, pgbench logs\n"
		  "                        (default bench-results/DATE-TIME, under the home\n"
		  "                        directory where the current one is not writable); made\n"
		  "                        0700, its files 0600; an existing one must be yours and\n"
		  "                        not writable by group or others\n"
		  "  --group GROUP         OUT 0750 and its files 0640, readable by GROUP\n"
		  "  --quiet               no progress line\n"
		  "  --validate            trace the server with bpftrace (USDT probes) beside every\n"
		  "                        other run of each configuration: wal_stall's measurement\n"
		  "                        error, and the tracer's cost against the untraced runs;\n"
		  "                        needs root, bpftrace and a postgres built with\n"
		  "                        --enable-dtrace (as Debian's packages are)\n"
		  "  --version             the wal_stall release of this harness\n"
		  "  --help                this text\n"
		  "\n"
		  "Exit status: 0 done, 1 a run-time failure, 2 a usage error, 130 interrupted.\n",
		  f);
}

/* The flags taking a value, and the preset key each one sets. */
static const struct
{
	const char *flag;
	const char *key;
}			value_flags[] = {
	{"--set", NULL}, {"--preset", NULL}, {"--pgdata", NULL}, {"--out", NULL}, {"--group", NULL},
	{"--cluster", NULL}, {"--service", NULL},
	{"--pg-config", NULL},
	{"--runs", "runs"}, {"--duration", "duration"}, {"--warmup", "warmup"},
	{"--clients", "clients"},
	{"--jobs", "jobs"}, {"--scale", "scale"}, {"--builtin", "builtin"},
	{"--script", "script"}, {"--pgbench-args", "pgbench_args"},
	{"--slow-wal", "slow_wal"}, {"--slow-wal-mbps", "slow_wal_mbps"},
	{"--slow-disk", "slow_disk"}, {"--wal-disk", "wal_disk"},
	{"--aged-pages", "aged_pages"}, {"--aged-rows-per-page", "aged_rows_per_page"},
	{"--seed", "seed"}, {"--margin", "margin"}, {"--budget", "budget"},
	{"--judge", NULL}, {"--baseline", NULL}, {"--resume", NULL},
};

#define N_VALUE_FLAGS ((int) (sizeof(value_flags) / sizeof(value_flags[0])))

/* getopt_long's codes of the long-only flags; a value flag's is OPT_VALUE + its index */
enum
{
	OPT_VALIDATE = 256,
	OPT_YES,
	OPT_IN_MEMORY,
	OPT_VALUE = 512
};

/* the flags without a value, then every value flag */
static const struct
{
	const char *flag;
	int			code;
}			switch_flags[] = {
	{"--help", 'h'}, {"--version", 'V'}, {"--quiet", 'q'},
	{"--validate", OPT_VALIDATE}, {"--yes", OPT_YES}, {"--in-memory", OPT_IN_MEMORY},
};

#define N_SWITCH_FLAGS ((int) (sizeof(switch_flags) / sizeof(switch_flags[0])))

/* "+": stop at the first word that is not a flag (no reordering of argv);
 * ":": a missing value is told apart from an unknown flag */
#define SHORT_FLAGS "+:hVq"

static void
long_options(struct option *lo)
{
	int			n = 0;

	for (int i = 0; i < N_SWITCH_FLAGS; i++)
		lo[n++] = (struct option) {switch_flags[i].flag + 2, no_argument, NULL, switch_flags[i].code};
	for (int i = 0; i < N_VALUE_FLAGS; i++)
		lo[n++] = (struct option) {value_flags[i].flag + 2, required_argument, NULL, OPT_VALUE + i};
	lo[n] = (struct option) {NULL, 0, NULL, 0};
}

/*
 * Is arg the flag spelled in full, as the man page and --help give it?
 * getopt_long also takes an abbreviation (--dur), a cluster of short
 * flags (-qV) and a long switch as a short one's long name; the harness
 * never did, so those stay unknown options.
 */
static bool
spelled_in_full(const char *arg, int code)
{
	size_t		n;

	if (code >= OPT_VALUE && code < OPT_VALUE + N_VALUE_FLAGS)
	{
		const char *flag = value_flags[code - OPT_VALUE].flag;

		n = strlen(flag);
		return strncmp(arg, flag, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
	}
	for (int i = 0; i < N_SWITCH_FLAGS; i++)
		if (switch_flags[i].code == code && strcmp(arg, switch_flags[i].flag) == 0)
			return true;
	return code < OPT_VALIDATE && arg[0] == '-' && arg[1] == code && arg[2] == '\0';
}

/* What a command-line pass shares. */
typedef struct ArgState
{
	const char *presets_dir;
	bool		given[WSB_F_COUNT];
	bool		preset_given[WSB_F_COUNT];
	char		cli_names[WSB_MAX_SETS + 1][WSB_NAME_LEN];
	int			ncli;
	bool		flag_seen[N_VALUE_FLAGS];	/* value flags on the command line */
} ArgState;

/* --set: replaces the preset's set of that GUC, not an earlier --set */
static int
apply_set(WsbOptions *o, ArgState *as, const char *value, char *err, size_t errlen)
{
	WsbSet		s;

	if (wsb_parse_set(value, &s, err, errlen) != 0)
		return -1;
	for (int j = 0; j < as->ncli; j++)
		if (strcmp(as->cli_names[j], s.name) == 0)
		{
			snprintf(err, errlen, "--set \"%s\" given twice", s.name);
			return -1;
		}
	if (wsb_preset_put_set(o, &s, true, err, errlen) != 0)
		return -1;
	strcpy(as->cli_names[as->ncli++], s.name);
	return 0;
}

/* A value flag's value into o (the second pass).  0, or -1 with err. */
static int
apply_value(WsbOptions *o, ArgState *as, int k, const char *value, char *err, size_t errlen)
{
	const char *flag = value_flags[k].flag;
	char		msg[512];

	if (strcmp(flag, "--preset") == 0)
		return 0;				/* the first pass's */
	if (strcmp(flag, "--set") == 0)
		return apply_set(o, as, value, err, errlen);
	if (strcmp(flag, "--pgdata") == 0 || strcmp(flag, "--out") == 0)
	{
		if (*value == '\0')
		{
			snprintf(err, errlen, "%s: empty directory name", flag);
			return -1;
		}
		return flag[2] == 'p' ? wsb_copy_value(o->pgdata, sizeof(o->pgdata), flag, "path", value, err, errlen)
			: wsb_copy_value(o->out, sizeof(o->out), flag, "path", value, err, errlen);
	}
	if (strcmp(flag, "--group") == 0)
	{
		struct group *gr = *value ? getgrnam(value) : NULL;

		if (gr == NULL)
		{
			snprintf(err, errlen, "--group: no group \"%s\" on this system", value);
			return -1;
		}
		o->group = gr->gr_gid;
		return wsb_copy_value(o->group_name, sizeof(o->group_name), flag, "name", value, err, errlen);
	}
	if (strcmp(flag, "--cluster") == 0 || strcmp(flag, "--service") == 0)
	{
		bool		cl = flag[2] == 'c';
		const char *slash = strchr(value, '/');

		/* pg_lsclusters' fields: a version of digits, a name without blanks */
		if (*value == '\0' || (cl && (slash == NULL || slash == value || slash - value > 15 ||
									 strspn(value, "0123456789") != (size_t) (slash - value) ||
									 slash[1] == '\0' || strchr(slash + 1, '/') ||
									 strpbrk(slash + 1, " \t\n\r"))))
		{
			snprintf(err, errlen, cl ? "--cluster: \"%.200s\" is not VERSION/NAME (e.g. 15/main)"
					 : "--service: empty unit name%s", cl ? value : "");
			return -1;
		}
		return cl ? wsb_copy_value(o->cluster, sizeof(o->cluster), flag, "name", value, err, errlen)
			: wsb_copy_value(o->service, sizeof(o->service), flag, "name", value, err, errlen);
	}
	if (strcmp(flag, "--pg-config") == 0)
		return wsb_copy_value(o->pg_config, sizeof(o->pg_config), flag, "path", value, err, errlen);
	if (strcmp(flag, "--judge") == 0 || strcmp(flag, "--baseline") == 0 ||
		strcmp(flag, "--resume") == 0)
	{
		char	   *dst = flag[2] == 'j' ? o->judge : flag[2] == 'b' ? o->baseline : o->resume;

		if (*value == '\0')
		{
			snprintf(err, errlen, "%s: empty value", flag);
			return -1;
		}
		return wsb_copy_value(dst, sizeof(o->judge), flag, flag[2] == 'b' ? "name" : "path",
						  value, err, errlen);
	}
	if (wsb_preset_set_field(o, value_flags[k].key, value, as->given, msg, sizeof(msg)) != 0)
	{
		/* "runs: ..." -> "--runs: ..." */
		snprintf(err, errlen, "%s%s", flag, msg + strlen(value_flags[k].key));
		return -1;
	}
	return 0;
}

/*
 * Is word one of our long flags ("--runs", "--runs=3")?  A value flag
 * followed by one took it as its value: its own value is missing.
 */
static bool
is_long_flag(const struct option *lo, const char *word)
{
	if (strncmp(word, "--", 2) != 0)
		return false;
	for (int i = 0; lo[i].name != NULL; i++)
	{
		size_t		n = strlen(lo[i].name);

		if (strncmp(word + 2, lo[i].name, n) == 0 && (word[2 + n] == '\0' || word[2 + n] == '='))
			return true;
	}
	return false;
}

/*
 * One pass over the command line.  The first loads the preset (whatever
 * its place on the line, so that every flag overrides it) and finds every
 * unknown flag and missing value; the second applies the flags in their
 * order and answers --help and --version.  0 ok, 1 --help or --version
 * printed (second pass), -1 with err.
 */
static int
parse_pass(int argc, char **argv, int pass, const struct option *lo, ArgState *as,
		   WsbOptions *o, char *err, size_t errlen)
{
	optind = 0;					/* glibc: start over, with a fresh state */
	opterr = 0;					/* the messages are ours */
	for (;;)
	{
		int			at = optind > 0 ? optind : 1;	/* the word getopt reads */
		const char *arg = at < argc ? argv[at] : NULL;
		int			code = getopt_long(argc, argv, SHORT_FLAGS, lo, NULL);

		if (code == -1)
		{
			/* the end, or "--" (getopt's end of flags) or a word that is no flag */
			if (arg == NULL)
				return 0;
			if (arg[0] != '-')
				snprintf(err, errlen, "\"%s\" is not an option: wal_stall_bench takes options "
						 "alone (see --help)", arg);
			else
				snprintf(err, errlen, "unknown option \"%s\" (see --help)", arg);
			return -1;
		}
		if (code == '?' && strcmp(arg, "-?") == 0)
			code = 'h';
		else if (code == '?' || !spelled_in_full(arg, code == ':' ? optopt : code))
		{
			snprintf(err, errlen, "unknown option \"%s\" (see --help)", arg);
			return -1;
		}
		else if (code == ':')	/* only value flags take one */
		{
			snprintf(err, errlen, "option \"%s\" needs a value", value_flags[optopt - OPT_VALUE].flag);
			return -1;
		}
		switch (code)
		{
			case 'h':
				if (pass == 1)
				{
					wsb_usage(stdout);
					return 1;
				}
				break;
			case 'V':
				if (pass == 1)
				{
					printf("wal_stall_bench (wal_stall) %s\n", WSB_VERSION);
					return 1;
				}
				break;
			case 'q':
				o->quiet = true;
				break;
			case OPT_VALIDATE:
				o->validate = true;
				break;
			case OPT_YES:
				o->yes = true;
				break;
			case OPT_IN_MEMORY:
				o->in_memory = true;
				break;
			default:
				if (pass == 0 && is_long_flag(lo, optarg))
				{
					snprintf(err, errlen, "option \"%s\" needs a value (\"%s\" is an option)",
							 value_flags[code - OPT_VALUE].flag, optarg);
					return -1;
				}
				if (pass == 0 && strcmp(value_flags[code - OPT_VALUE].flag, "--preset") == 0)
				{
					if (o->preset[0])
					{
						snprintf(err, errlen, "--preset given twice");
						return -1;
					}
					if (wsb_load_preset(optarg, as->presets_dir, o, as->preset_given, err, errlen) != 0)
						return -1;
				}
				else if (pass == 1 && apply_value(o, as, code - OPT_VALUE, optarg, err, errlen) != 0)
					return -1;
				as->flag_seen[code - OPT_VALUE] = true;
				break;
		}
	}
}

/*
 * The first flag on the command line that shapes runs (what to run, on
 * what, how long, in what order), NULL if none: --judge has no runs to
 * shape, and takes --judge, --baseline, --margin, --out and --quiet.
 */
static const char *
run_flag_given(const WsbOptions *o, const ArgState *as)
{
	static const char *const judging[] = {"--judge", "--baseline", "--margin", "--out"};

	for (int i = 0; i < N_VALUE_FLAGS; i++)
	{
		bool		judges = false;

		for (int j = 0; j < (int) (sizeof(judging) / sizeof(judging[0])); j++)
			judges |= strcmp(value_flags[i].flag, judging[j]) == 0;
		if (as->flag_seen[i] && !judges)
			return value_flags[i].flag;
	}
	if (o->validate)
		return "--validate";
	if (o->yes)
		return "--yes";
	if (o->in_memory)
		return "--in-memory";
	return NULL;
}

/*
 * Parse the command line into o (defaults first, then the preset, then the
 * flags).  0 ok, 1 --help or --version (printed), -1 usage error with one
 * message in err.
 */
int
wsb_parse_args(int argc, char **argv, const char *presets_dir, WsbOptions *o,
			   char *err, size_t errlen)
{
	ArgState	as = {.presets_dir = presets_dir};
	bool	   *given = as.given;
	bool	   *preset_given = as.preset_given;
	struct option lo[N_SWITCH_FLAGS + N_VALUE_FLAGS + 1];

	wsb_options_defaults(o);
	long_options(lo);
	for (int pass = 0; pass < 2; pass++)
	{
		int			rc = parse_pass(argc, argv, pass, lo, &as, o, err, errlen);

		if (rc != 0)
			return rc;
	}

	/* a preset's runs is its default length, not a cap on a --budget */
	o->runs_given = given[WSB_F_RUNS];
	o->margin_given = given[WSB_F_MARGIN] || preset_given[WSB_F_MARGIN];
	if (o->baseline[0] && !o->judge[0])
	{
		snprintf(err, errlen, "--baseline works with --judge (a run's baseline is its first --set value)");
		return -1;
	}
	if (o->judge[0] && o->resume[0])
	{
		snprintf(err, errlen, "--judge and --resume exclude each other");
		return -1;
	}
	if (o->judge[0])
	{
		const char *shaping = run_flag_given(o, &as);

		if (shaping != NULL)
		{
			snprintf(err, errlen, "--judge judges runs already made: %s shapes runs and would change "
					 "nothing (--judge takes --baseline, --margin, --out and --quiet)", shaping);
			return -1;
		}
	}
	if (!o->seed_given)
	{
		/* random, but printable and storable: 31 bits of the clock and pid */
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		o->seed = (long long) (((uint64_t) ts.tv_nsec * 2654435761u ^ (uint64_t) ts.tv_sec ^
								((uint64_t) getpid() << 16)) & 0x7fffffff);
	}
	if (given[WSB_F_BUILTIN] && given[WSB_F_SCRIPT])
	{
		snprintf(err, errlen, "--builtin and --script exclude each other");
		return -1;
	}
	if (o->jobs > o->clients)
	{
		if (given[WSB_F_JOBS])
		{
			snprintf(err, errlen, "--jobs (%d) cannot exceed --clients (%d)", o->jobs, o->clients);
			return -1;
		}
		o->jobs = o->clients;
	}
	if (o->warmup > 0 && o->aged_pages > 0)
	{
		snprintf(err, errlen, "--warmup and --aged-pages exclude each other: a warm-up would read "
				 "the run's fresh copy of the aged table and set its hint bits before the run counts");
		return -1;
	}
	if (given[WSB_F_AGED_ROWS] && !o->aged_pages)
	{
		snprintf(err, errlen, "--aged-rows-per-page needs --aged-pages");
		return -1;
	}
	if (o->wal_disk[0])
	{
		WsbThrottle first;

		if (o->slow_wal_iops || o->slow_wal_mbps || o->slow_disk_iops)
		{
			snprintf(err, errlen, "--wal-disk excludes --slow-wal, --slow-wal-mbps and --slow-disk: "
					 "it chooses the throttle itself");
			return -1;
		}
		/* the model's throttle until the calibration measures it */
		wsb_disk_first_throttle(wsb_disk_profile(o->wal_disk), &first);
		o->slow_wal_iops = first.iops;
		o->slow_wal_kbps = first.kbps;
		o->slow_journal_kbps = first.journal_kbps;
	}
	if (o->slow_wal_mbps && !o->slow_wal_iops)
	{
		snprintf(err, errlen, "--slow-wal-mbps needs --slow-wal");
		return -1;
	}
	if (o->slow_disk_iops && o->slow_wal_iops)
	{
		snprintf(err, errlen, "--slow-wal and --slow-disk exclude each other");
		return -1;
	}
	if (o->cluster[0] && o->pgdata[0])
	{
		snprintf(err, errlen, "--cluster and --pgdata exclude each other (a cluster names its data directory)");
		return -1;
	}
	if (o->service[0] && !o->pgdata[0] && !o->cluster[0])
	{
		snprintf(err, errlen, "--service needs --pgdata or --cluster: the unit's data directory");
		return -1;
	}
	if ((o->pgdata[0] || o->cluster[0]) && o->in_memory)
	{
		snprintf(err, errlen, "--in-memory works only on the temporary cluster, not with --pgdata or --cluster");
		return -1;
	}
	if ((o->pgdata[0] || o->cluster[0]) && (o->slow_wal_iops || o->slow_disk_iops))
	{
		snprintf(err, errlen, "--slow-wal, --slow-disk and --wal-disk work only on the temporary cluster, not with --pgdata (they would move the cluster's files)");
		return -1;
	}
	return 0;
}
