/*-------------------------------------------------------------------------
 *
 * options.c
 *		wal_stall_bench: command-line flags, preset files, and the plan
 *		(the cartesian product of the --set values, run interleaved).
 *
 * A preset is a plain text file of "key = value" lines; '#' starts a
 * comment.  Keys: set (repeatable, "GUC=V1,V2"), conf (repeatable, a fixed
 * setting "name = value"), runs, duration, clients, jobs, scale, builtin,
 * script, pgbench_args, pgbench_init_args, optional_library, slow_wal, slow_wal_mbps,
 * slow_disk, margin, budget, seed, aged_pages, aged_rows_per_page, description (repeatable,
 * joined), set_from_17 (repeatable: on
 * PostgreSQL 17 and later these replace the preset's set lines, for a knob
 * that 17 introduced).  Flags on the command line override the preset; a
 * --set on the command line replaces the preset's --set of the same GUC.
 *
 * Values of a --set are separated by commas; a value holding a comma (or
 * an empty value) is written in single quotes:
 *		--set "shared_preload_libraries='',wal_stall,'wal_stall,pg_wait_sampling'"
 *
 * Nothing here touches a server: these are pure functions, unit tested.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <math.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "fits.h"

/* which fields the command line or the preset gave, by key */
enum
{
	F_RUNS, F_DURATION, F_CLIENTS, F_JOBS, F_SCALE, F_BUILTIN, F_SCRIPT,
	F_PGBENCH_ARGS, F_INIT_ARGS, F_SLOW_WAL, F_SLOW_WAL_MBPS, F_SLOW_DISK,
	F_SEED, F_MARGIN, F_BUDGET, F_AGED_PAGES, F_AGED_ROWS,
	F_COUNT
};

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

/*
 * wsb_parse_duration
 *		"90", "90s", "20m", "2h", "1h30m" -> seconds.  false when the text is
 *		not such a duration or is not positive.
 */
bool
wsb_parse_duration(const char *s, double *seconds)
{
	double		total = 0;
	bool		any = false;

	if (s == NULL)
		return false;
	while (*s)
	{
		char	   *end;
		double		v = strtod(s, &end);

		if (end == s || v < 0 || isnan(v))
			return false;
		s = end;
		switch (*s)
		{
			case 'h':
				v *= 3600;
				s++;
				break;
			case 'm':
				v *= 60;
				s++;
				break;
			case 's':
				s++;
				break;
			case '\0':
				break;
			default:
				return false;
		}
		total += v;
		any = true;
	}
	if (!any || !(total > 0))
		return false;
	*seconds = total;
	return true;
}

/* splitmix64: a small PRNG whose stream is the same on every platform, so
 * a seed names one run order everywhere */
static uint64_t
splitmix64(uint64_t *state)
{
	uint64_t	z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * wsb_round_order
 *		The order of configurations in every round: each round a permutation
 *		drawn afresh (Fisher-Yates from the seed's stream), so that no
 *		configuration always runs first and each round's order is
 *		independent of the others'.  Independence matters: an earlier rule
 *		that kept a round from starting with the configuration the previous
 *		one ended with tied neighbouring rounds together, and under drift
 *		inside a round that made the paired t test read 8% false verdicts
 *		at 5% (test_unit_sim.c found it).  order has rounds x nconfigs
 *		entries.
 */
void
wsb_round_order(uint64_t seed, int nconfigs, int rounds, int *order)
{
	uint64_t	state = seed;

	for (int r = 0; r < rounds; r++)
	{
		int		   *p = order + r * nconfigs;

		for (int c = 0; c < nconfigs; c++)
			p[c] = c;
		for (int c = nconfigs - 1; c > 0; c--)
		{
			int			j = (int) (splitmix64(&state) % (uint64_t) (c + 1));
			int			t = p[c];

			p[c] = p[j];
			p[j] = t;
		}
	}
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
		  "  --preset NAME|FILE    read settings and flags from FILE, or NAME.conf in the\n"
		  "                        presets directory ($WSB_PRESETS_DIR, else presets/ beside\n"
		  "                        the binary, else " WSB_PRESETS_DIR_DEFAULT ");\n"
		  "                        flags given here override the preset's, and a --set\n"
		  "                        here replaces the preset's --set of the same setting\n"
		  "  --runs N              rounds (default 3): each runs every configuration once, in\n"
		  "                        an order shuffled from --seed\n"
		  "  --duration S          seconds per run (default 30)\n"
		  "  --seed N              the seed of the order inside each round (default random;\n"
		  "                        printed, and stored in results.csv and the report)\n"
		  "\n"
		  "The verdict (rounds are the unit: each run against the same round's baseline):\n"
		  "  --margin PCT          the change that matters, declared before the runs\n"
		  "                        (default 5): faster/slower by >= PCT%, equivalent within\n"
		  "                        +-PCT%, or inconclusive with the rounds still needed\n"
		  "  --budget DURATION     e.g. 20m, 2h: judge after every round from the third and\n"
		  "                        stop when every configuration is decided or another round\n"
		  "                        would not fit (error spent over the looks); --runs, if\n"
		  "                        given, caps the rounds\n"
		  "  --judge DIR|FILE.csv  no runs, no server: the verdicts of a results directory or\n"
		  "                        of any CSV with the columns configuration, round, tps\n"
		  "                        (optional: ok, CLASS_total_ms, CLASS_episodes, clients,\n"
		  "                        seconds); report and verdicts.csv go to --out if given\n"
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
		  "  --yes                 go ahead on a server other clients are connected to\n"
		  "  --slow-wal IOPS       put pg_wal alone on a loop device whose writes are\n"
		  "                        throttled to IOPS per second (cgroup v2 io.max, or v1\n"
		  "                        blkio); needs root, that controller and losetup;\n"
		  "                        temporary cluster only\n"
		  "  --slow-wal-mbps MB    also limit that device's writes to MB megabytes/second\n"
		  "  --slow-disk IOPS      the whole data directory on a throttled loop device\n"
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

static bool
valid_guc_name(const char *s)
{
	if (!isalpha((unsigned char) *s) && *s != '_')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char) *s) && *s != '_' && *s != '.')
			return false;
	return true;
}

/* "GUC=V1,V2,..." -> set.  0 ok, -1 with a message. */
int
wsb_parse_set(const char *arg, WsbSet *set, char *err, size_t errlen)
{
	const char *eq = strchr(arg, '=');
	const char *p;
	size_t		nl;

	memset(set, 0, sizeof(*set));
	if (eq == NULL)
	{
		snprintf(err, errlen, "--set \"%s\": expected GUC=V1,V2,...", arg);
		return -1;
	}
	nl = eq - arg;
	while (nl > 0 && isspace((unsigned char) arg[nl - 1]))
		nl--;
	if (nl == 0 || nl >= WSB_NAME_LEN)
	{
		snprintf(err, errlen, "--set \"%s\": missing or too long setting name", arg);
		return -1;
	}
	memcpy(set->name, arg, nl);
	set->name[nl] = '\0';
	if (!valid_guc_name(set->name))
	{
		snprintf(err, errlen, "--set \"%s\": \"%s\" is not a setting name", arg, set->name);
		return -1;
	}
	p = eq + 1;
	while (isspace((unsigned char) *p))
		p++;
	if (*p == '\0')
	{
		snprintf(err, errlen, "--set \"%s\": no values after '='", arg);
		return -1;
	}
	for (;;)
	{
		char		v[WSB_VALUE_LEN];
		size_t		n = 0;
		bool		quoted = false;

		while (isspace((unsigned char) *p))
			p++;
		if (*p == '\'')
		{
			quoted = true;
			p++;
			for (;;)
			{
				if (*p == '\0')
				{
					snprintf(err, errlen, "--set \"%s\": unterminated quote", arg);
					return -1;
				}
				if (*p == '\'' && p[1] == '\'')
					p++;		/* '' inside quotes is one quote */
				else if (*p == '\'')
					break;
				if (n < sizeof(v) - 1)
					v[n++] = *p;
				p++;
			}
			p++;
			while (isspace((unsigned char) *p))
				p++;
			if (*p != ',' && *p != '\0')
			{
				snprintf(err, errlen, "--set \"%s\": text after a quoted value", arg);
				return -1;
			}
		}
		else
		{
			while (*p && *p != ',')
			{
				if (n < sizeof(v) - 1)
					v[n++] = *p;
				p++;
			}
			while (n > 0 && isspace((unsigned char) v[n - 1]))
				n--;
		}
		v[n] = '\0';
		if (!quoted && n == 0)
		{
			snprintf(err, errlen, "--set \"%s\": empty value (write '' for an empty string)", arg);
			return -1;
		}
		if (set->nvalues >= WSB_MAX_VALUES)
		{
			snprintf(err, errlen, "--set \"%s\": more than %d values", arg, WSB_MAX_VALUES);
			return -1;
		}
		strcpy(set->values[set->nvalues++], v);
		if (*p == '\0')
			break;
		p++;					/* the comma */
	}
	return 0;
}

/*
 * wsb_setting_refused
 *		Why the harness will not vary or set name, or NULL.  These settings
 *		move the server away from where the harness reaches it (its socket,
 *		port, addresses) or from its files (data directory, configuration
 *		files): after such a change the harness could neither run nor put
 *		anything back.
 */
const char *
wsb_setting_refused(const char *name)
{
	static const char *const moving[] = {"port", "listen_addresses", "unix_socket_directories",
		"unix_socket_group", "unix_socket_permissions", NULL};
	static const char *const files[] = {"data_directory", "config_file", "hba_file", "ident_file",
	NULL};

	for (int i = 0; moving[i]; i++)
		if (strcasecmp(name, moving[i]) == 0)
			return "it moves the server away from the socket the harness reaches it through, "
				"so nothing could be measured or restored";
	for (int i = 0; files[i]; i++)
		if (strcasecmp(name, files[i]) == 0)
			return "it names where the server's own files are, which the harness leaves alone";
	return NULL;
}

/*
 * The range checks of the numbers an experiment is judged by, one for the
 * options and for the files read back (results.csv, plan.txt), so that a
 * file cannot declare what the command line refuses.  what names the value
 * in the message: the option ("margin") or the file's line and column
 * ("\"results.csv\" line 3: margin_pct").  0, or -1 with err.
 */
int
wsb_check_margin(const char *what, const char *text, double *out, char *err, size_t errlen)
{
	char	   *end;
	double		v;

	errno = 0;
	v = strtod(text, &end);
	if (end == text || *end != '\0' || errno != 0 || !(v > 0 && v < 100))
	{
		snprintf(err, errlen, "%s: \"%.60s\" is not a percentage above 0 and below 100", what, text);
		return -1;
	}
	*out = v;
	return 0;
}

int
wsb_check_seed(const char *what, const char *text, long long *out, char *err, size_t errlen)
{
	char	   *end;
	long long	v;

	errno = 0;
	v = strtoll(text, &end, 10);
	if (end == text || *end != '\0' || errno != 0 || v < 0 || v > WSB_MAX_SEED)
	{
		snprintf(err, errlen, "%s: \"%.60s\" is not an integer from 0 to 2^53 - 1", what, text);
		return -1;
	}
	*out = v;
	return 0;
}

/* the looks a --budget allows (wsb_budget_looks): 1 to the rounds less two */
int
wsb_check_looks(const char *what, const char *text, int *out, char *err, size_t errlen)
{
	if (!wsb_parse_int(text, 1, WSB_MAX_ROUNDS - 2, out))
	{
		snprintf(err, errlen, "%s: \"%.60s\" is not an integer from 1 to %d", what, text,
				 WSB_MAX_ROUNDS - 2);
		return -1;
	}
	return 0;
}

/* Add or replace (same GUC) a set.  0 ok, -1 too many or refused. */
static int
put_set(WsbOptions *o, const WsbSet *s, bool replace, char *err, size_t errlen)
{
	const char *refused = wsb_setting_refused(s->name);

	if (refused)
	{
		snprintf(err, errlen, "--set %s: cannot vary \"%s\": %s", s->name, s->name, refused);
		return -1;
	}
	for (int i = 0; i < o->nsets; i++)
		if (strcmp(o->sets[i].name, s->name) == 0)
		{
			if (!replace)
			{
				snprintf(err, errlen, "--set \"%s\" given twice", s->name);
				return -1;
			}
			o->sets[i] = *s;
			return 0;
		}
	if (o->nsets >= WSB_MAX_SETS)
	{
		snprintf(err, errlen, "more than %d --set settings", WSB_MAX_SETS);
		return -1;
	}
	o->sets[o->nsets++] = *s;
	return 0;
}

/* value into a fixed field of size, or -1: a value that does not fit is
 * refused, never cut ("--out: path too long: ...") */
static int
copy_value(char *dst, size_t size, const char *flag, const char *noun, const char *value,
		   char *err, size_t errlen)
{
	size_t		n = strlen(value);

	if (n >= size)
	{
		snprintf(err, errlen, "%s: %s too long: \"%.40s...\" (%zu bytes, at most %zu)",
				 flag, noun, value, n, size - 1);
		return -1;
	}
	memcpy(dst, value, n + 1);
	return 0;
}

/* A numeric or text field by its preset key / flag name (without --). */
static int
set_field(WsbOptions *o, const char *key, const char *value, bool *given,
		  char *err, size_t errlen)
{
	struct
	{
		const char *key;
		int			field;
		int		   *target;
		int			min,
					max;
	}			ints[] = {
		{"runs", F_RUNS, &o->runs, 1, WSB_MAX_ROUNDS},
		{"duration", F_DURATION, &o->duration, 1, 86400},
		{"clients", F_CLIENTS, &o->clients, 1, WSB_MAX_CLIENTS},
		{"jobs", F_JOBS, &o->jobs, 1, 10000},
		{"scale", F_SCALE, &o->scale, 1, 1000000},
		{"slow_wal", F_SLOW_WAL, &o->slow_wal_iops, 1, 10000000},
		{"slow_wal_mbps", F_SLOW_WAL_MBPS, &o->slow_wal_mbps, 1, 100000},
		{"slow_disk", F_SLOW_DISK, &o->slow_disk_iops, 1, 10000000},
		{"aged_pages", F_AGED_PAGES, &o->aged_pages, 1, WSB_AGED_MAX_PAGES},
		{"aged_rows_per_page", F_AGED_ROWS, &o->aged_rows_per_page, 1, WSB_AGED_XIDS_PER_PAGE},
	};

	if (strcmp(key, "margin") == 0)
	{
		if (wsb_check_margin("margin", value, &o->margin_pct, err, errlen) != 0)
			return -1;
		given[F_MARGIN] = true;
		return 0;
	}
	if (strcmp(key, "budget") == 0)
	{
		if (!wsb_parse_duration(value, &o->budget_seconds))
		{
			snprintf(err, errlen, "budget: \"%s\" is not a duration such as 90s, 20m, 2h or 1h30m", value);
			return -1;
		}
		given[F_BUDGET] = true;
		return 0;
	}
	if (strcmp(key, "seed") == 0)
	{
		if (wsb_check_seed("seed", value, &o->seed, err, errlen) != 0)
			return -1;
		o->seed_given = true;
		given[F_SEED] = true;
		return 0;
	}

	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		if (strcmp(key, ints[i].key) == 0)
		{
			if (!wsb_parse_int(value, ints[i].min, ints[i].max, ints[i].target))
			{
				snprintf(err, errlen, "%s: \"%s\" is not an integer from %d to %d",
						 key, value, ints[i].min, ints[i].max);
				return -1;
			}
			given[ints[i].field] = true;
			return 0;
		}
	if (strcmp(key, "builtin") == 0)
	{
		if (*value == '\0' || strlen(value) >= sizeof(o->builtin))
		{
			snprintf(err, errlen, "builtin: \"%s\" is not a pgbench built-in script name", value);
			return -1;
		}
		wsb_strlcpy(o->builtin, value, sizeof(o->builtin));
		o->script[0] = '\0';
		given[F_BUILTIN] = true;
		return 0;
	}
	if (strcmp(key, "script") == 0)
	{
		if (access(value, R_OK) != 0)
		{
			snprintf(err, errlen, "script: cannot read \"%s\"", value);
			return -1;
		}
		if (copy_value(o->script, sizeof(o->script), "script", "path", value, err, errlen) != 0)
			return -1;
		o->builtin[0] = '\0';
		given[F_SCRIPT] = true;
		return 0;
	}
	if (strcmp(key, "pgbench_args") == 0)
	{
		if (copy_value(o->pgbench_args, sizeof(o->pgbench_args), "pgbench_args", "value", value,
					   err, errlen) != 0)
			return -1;
		given[F_PGBENCH_ARGS] = true;
		return 0;
	}
	if (strcmp(key, "pgbench_init_args") == 0)
	{
		if (copy_value(o->pgbench_init_args, sizeof(o->pgbench_init_args), "pgbench_init_args",
					   "value", value, err, errlen) != 0)
			return -1;
		given[F_INIT_ARGS] = true;
		return 0;
	}
	snprintf(err, errlen, "unknown key \"%s\"", key);
	return -1;
}

static void
append_text(char *buf, size_t size, const char *text, const char *sep)
{
	size_t		n = strlen(buf);

	if (n > 0 && sep)
		snprintf(buf + n, size - n, "%s", sep), n = strlen(buf);
	snprintf(buf + n, size - n, "%s", text);
}

/*
 * A preset's conf line names a setting the way a --set does: a name of
 * letters, digits, '_' and at most one '.', and not one the harness
 * refuses.  Whether the server knows it is checked against pg_settings
 * once the server runs (wsb_target_check_settings).
 */
static bool
conf_name_ok(const char *line, const char *eq, char *err, size_t errlen)
{
	char		buf[WSB_NAME_LEN];
	char	   *name;
	const char *refused;
	int			dots = 0;

	snprintf(buf, sizeof(buf), "%.*s", (int) (eq - line), line);
	name = wsb_trim(buf);
	for (const char *p = name; *p; p++)
		if (!(isalnum((unsigned char) *p) || *p == '_' || (*p == '.' && ++dots == 1)))
		{
			snprintf(err, errlen, "\"%s\" is not a setting name", name);
			return false;
		}
	if ((refused = wsb_setting_refused(name)) != NULL)
	{
		snprintf(err, errlen, "cannot set \"%s\": %s", name, refused);
		return false;
	}
	return true;
}

/* The file a preset name stands for: a path as given, else DIR/NAME.conf.
 * snprintf's length: len or more when it did not fit. */
static int
preset_path(const char *name, const char *dir, char *path, size_t len)
{
	if (strchr(name, '/') || access(name, R_OK) == 0)
		return snprintf(path, len, "%s", name);
	return snprintf(path, len, "%s/%s.conf", dir ? dir : ".", name);
}

int
wsb_load_preset(const char *name, const char *presets_dir, WsbOptions *o,
				bool *given, char *err, size_t errlen)
{
	char		path[1024];
	char	   *text,
			   *line,
			   *next;
	int			lineno = 0;
	char		msg[512];

	if (!wsb_fits(preset_path(name, presets_dir, path, sizeof(path)), sizeof(path), path, err, errlen))
		return -1;
	text = wsb_read_file(path, NULL);
	if (text == NULL)
	{
		int			why = errno;
		char		list[512] = "";
		DIR		   *d = presets_dir ? opendir(presets_dir) : NULL;
		struct dirent *e;

		while (d && (e = readdir(d)) != NULL)
		{
			size_t		l = strlen(e->d_name);

			if (l > 5 && strcmp(e->d_name + l - 5, ".conf") == 0)
			{
				char		n[256];

				snprintf(n, sizeof(n), "%.*s", (int) (l - 5), e->d_name);
				append_text(list, sizeof(list), n, ", ");
			}
		}
		if (d)
			closedir(d);
		snprintf(err, errlen, "unknown preset \"%s\": cannot read \"%s\": %s%s%s%s", name, path,
				 strerror(why), *list ? " (presets: " : "", list, *list ? ")" : "");
		return -1;
	}
	wsb_strlcpy(o->preset, name, sizeof(o->preset));
	for (line = text; line; line = next)
	{
		char	   *hash,
				   *eq,
				   *key,
				   *value;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		/* a '#' starts a comment, except inside a quoted value */
		{
			bool		inq = false;

			for (hash = line; *hash; hash++)
			{
				if (*hash == '\'')
					inq = !inq;
				else if (*hash == '#' && !inq)
				{
					*hash = '\0';
					break;
				}
			}
		}
		key = wsb_trim(line);
		if (*key == '\0')
			continue;
		eq = strchr(key, '=');
		if (eq == NULL)
		{
			snprintf(err, errlen, "%s:%d: expected \"key = value\"", path, lineno);
			free(text);
			return -1;
		}
		*eq = '\0';
		key = wsb_trim(key);
		value = wsb_trim(eq + 1);
		if (strcmp(key, "set") == 0)
		{
			WsbSet		s;

			if (wsb_parse_set(value, &s, msg, sizeof(msg)) != 0 ||
				put_set(o, &s, false, msg, sizeof(msg)) != 0)
			{
				snprintf(err, errlen, "%s:%d: %s", path, lineno, msg);
				free(text);
				return -1;
			}
			o->sets[o->nsets - 1].from_preset = true;
		}
		else if (strcmp(key, "set_from_17") == 0)
		{
			WsbSet		s;

			if (o->nsets_from_17 >= WSB_MAX_SETS)
				snprintf(msg, sizeof(msg), "more than %d set_from_17 lines", WSB_MAX_SETS);
			if (o->nsets_from_17 >= WSB_MAX_SETS ||
				wsb_parse_set(value, &s, msg, sizeof(msg)) != 0)
			{
				snprintf(err, errlen, "%s:%d: %s", path, lineno, msg);
				free(text);
				return -1;
			}
			s.from_preset = true;
			o->sets_from_17[o->nsets_from_17++] = s;
		}
		else if (strcmp(key, "conf") == 0)
		{
			char	   *ceq = strchr(value, '=');

			if (ceq == NULL || ceq == value)
			{
				snprintf(err, errlen, "%s:%d: conf: expected \"name = value\"", path, lineno);
				free(text);
				return -1;
			}
			if (!conf_name_ok(value, ceq, msg, sizeof(msg)))
			{
				snprintf(err, errlen, "%s:%d: conf: %s", path, lineno, msg);
				free(text);
				return -1;
			}
			append_text(o->extra_conf, sizeof(o->extra_conf), value, NULL);
			append_text(o->extra_conf, sizeof(o->extra_conf), "\n", NULL);
		}
		else if (strcmp(key, "description") == 0)
			append_text(o->description, sizeof(o->description), value, " ");
		else if (strcmp(key, "optional_library") == 0)
			append_text(o->optional_libraries, sizeof(o->optional_libraries), value, " ");
		else if (set_field(o, key, value, given, msg, sizeof(msg)) != 0)
		{
			snprintf(err, errlen, "%s:%d: %s", path, lineno, msg);
			free(text);
			return -1;
		}
	}
	free(text);
	return 0;
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
	{"--runs", "runs"}, {"--duration", "duration"}, {"--clients", "clients"},
	{"--jobs", "jobs"}, {"--scale", "scale"}, {"--builtin", "builtin"},
	{"--script", "script"}, {"--pgbench-args", "pgbench_args"},
	{"--slow-wal", "slow_wal"}, {"--slow-wal-mbps", "slow_wal_mbps"},
	{"--slow-disk", "slow_disk"},
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
	OPT_VALUE = 512
};

/* the flags without a value, then every value flag */
static const struct
{
	const char *flag;
	int			code;
}			switch_flags[] = {
	{"--help", 'h'}, {"--version", 'V'}, {"--quiet", 'q'},
	{"--validate", OPT_VALIDATE}, {"--yes", OPT_YES},
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
	bool		given[F_COUNT];
	bool		preset_given[F_COUNT];
	char		cli_names[WSB_MAX_SETS + 1][WSB_NAME_LEN];
	int			ncli;
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
	if (put_set(o, &s, true, err, errlen) != 0)
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
		return flag[2] == 'p' ? copy_value(o->pgdata, sizeof(o->pgdata), flag, "path", value, err, errlen)
			: copy_value(o->out, sizeof(o->out), flag, "path", value, err, errlen);
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
		return copy_value(o->group_name, sizeof(o->group_name), flag, "name", value, err, errlen);
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
		return cl ? copy_value(o->cluster, sizeof(o->cluster), flag, "name", value, err, errlen)
			: copy_value(o->service, sizeof(o->service), flag, "name", value, err, errlen);
	}
	if (strcmp(flag, "--pg-config") == 0)
		return copy_value(o->pg_config, sizeof(o->pg_config), flag, "path", value, err, errlen);
	if (strcmp(flag, "--judge") == 0 || strcmp(flag, "--baseline") == 0 ||
		strcmp(flag, "--resume") == 0)
	{
		char	   *dst = flag[2] == 'j' ? o->judge : flag[2] == 'b' ? o->baseline : o->resume;

		if (*value == '\0')
		{
			snprintf(err, errlen, "%s: empty value", flag);
			return -1;
		}
		return copy_value(dst, sizeof(o->judge), flag, flag[2] == 'b' ? "name" : "path",
						  value, err, errlen);
	}
	if (set_field(o, value_flags[k].key, value, as->given, msg, sizeof(msg)) != 0)
	{
		/* "runs: ..." -> "--runs: ..." */
		snprintf(err, errlen, "%s%s", flag, msg + strlen(value_flags[k].key));
		return -1;
	}
	return 0;
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
			default:
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
				break;
		}
	}
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
	o->runs_given = given[F_RUNS];
	o->margin_given = given[F_MARGIN] || preset_given[F_MARGIN];
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
	if (!o->seed_given)
	{
		/* random, but printable and storable: 31 bits of the clock and pid */
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		o->seed = (long long) (((uint64_t) ts.tv_nsec * 2654435761u ^ (uint64_t) ts.tv_sec ^
								((uint64_t) getpid() << 16)) & 0x7fffffff);
	}
	if (given[F_BUILTIN] && given[F_SCRIPT])
	{
		snprintf(err, errlen, "--builtin and --script exclude each other");
		return -1;
	}
	if (o->jobs > o->clients)
	{
		if (given[F_JOBS])
		{
			snprintf(err, errlen, "--jobs (%d) cannot exceed --clients (%d)", o->jobs, o->clients);
			return -1;
		}
		o->jobs = o->clients;
	}
	if (given[F_AGED_ROWS] && !o->aged_pages)
	{
		snprintf(err, errlen, "--aged-rows-per-page needs --aged-pages");
		return -1;
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
	if ((o->pgdata[0] || o->cluster[0]) && (o->slow_wal_iops || o->slow_disk_iops))
	{
		snprintf(err, errlen, "--slow-wal and --slow-disk work only on the temporary cluster, not with --pgdata (they would move the cluster's files)");
		return -1;
	}
	return 0;
}

/*
 * The configurations: the cartesian product of the sets, the last set
 * varying fastest, so configs[0] takes every set's first value (the
 * baseline); the run order is rounds, each running every configuration
 * once in an order shuffled from the seed (wsb_round_order).
 */
int
wsb_make_plan(const WsbOptions *o, WsbPlan *plan, char *err, size_t errlen)
{
	long		n = 1;

	memset(plan, 0, sizeof(*plan));
	for (int i = 0; i < o->nsets; i++)
	{
		n *= o->sets[i].nvalues;
		if (n > WSB_MAX_CONFIGS)
		{
			snprintf(err, errlen, "the --set values make more than %d configurations", WSB_MAX_CONFIGS);
			return -1;
		}
	}
	plan->nconfigs = (int) n;
	for (int c = 0; c < plan->nconfigs; c++)
	{
		WsbConfig  *cf = &plan->configs[c];
		int			rest = c;

		cf->nsettings = o->nsets;
		for (int i = o->nsets - 1; i >= 0; i--)
		{
			int			v = rest % o->sets[i].nvalues;

			rest /= o->sets[i].nvalues;
			strcpy(cf->names[i], o->sets[i].name);
			strcpy(cf->values[i], o->sets[i].values[v]);
		}
		cf->label[0] = '\0';
		for (int i = 0; i < o->nsets; i++)
		{
			char		item[WSB_NAME_LEN + WSB_VALUE_LEN + 4];

			if (cf->values[i][0] == '\0' || strchr(cf->values[i], ' ') || strchr(cf->values[i], ','))
				snprintf(item, sizeof(item), "%s='%s'", cf->names[i], cf->values[i]);
			else
				snprintf(item, sizeof(item), "%s=%s", cf->names[i], cf->values[i]);
			append_text(cf->label, sizeof(cf->label), item, " ");
		}
		if (cf->label[0] == '\0')
			strcpy(cf->label, "as configured");
	}
	plan->seed = o->seed;
	plan->margin_pct = o->margin_pct;
	plan->clients = o->clients;
	/* with --budget and no --runs the budget alone says when to stop */
	plan->nruns = plan->nconfigs *
		(o->budget_seconds > 0 && !o->runs_given ? WSB_BUDGET_MAX_ROUNDS : o->runs);
	plan->order = malloc(sizeof(int) * plan->nruns);
	if (plan->order == NULL)
	{
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	wsb_round_order((uint64_t) o->seed, plan->nconfigs, plan->nruns / plan->nconfigs, plan->order);
	return 0;
}

void
wsb_plan_free(WsbPlan *plan)
{
	free(plan->order);
	plan->order = NULL;
}

/*
 * wsb_sets_for_version
 *		On PostgreSQL 17 and later, a preset's set_from_17 lines replace its
 *		set lines (the clog preset: transaction_buffers instead of
 *		shared_buffers).  A --set from the command line stays, and wins over
 *		a set_from_17 line of the same GUC.  Returns 1 when it replaced them
 *		(the caller makes the plan again), 0 when there was nothing to
 *		replace, -1 on error.
 */
int
wsb_sets_for_version(WsbOptions *o, int major, char *err, size_t errlen)
{
	int			kept = 0;

	if (major < 17 || o->nsets_from_17 == 0)
		return 0;
	for (int i = 0; i < o->nsets; i++)
		if (!o->sets[i].from_preset)
			o->sets[kept++] = o->sets[i];
	o->nsets = kept;
	for (int i = 0; i < o->nsets_from_17; i++)
	{
		bool		given = false;

		for (int j = 0; j < o->nsets; j++)
			given |= strcmp(o->sets[j].name, o->sets_from_17[i].name) == 0;
		if (!given && put_set(o, &o->sets_from_17[i], false, err, errlen) != 0)
			return -1;
	}
	return 1;
}

/*
 * wsb_add_optional_libraries
 *		A preset's optional_library names become more values of its
 *		shared_preload_libraries set, each one alone, when the library is
 *		installed in pkglibdir; the others are left out, with a note.
 *		0, or -1 with err.
 */
int
wsb_add_optional_libraries(WsbOptions *o, const char *pkglibdir, char *err, size_t errlen)
{
	char		names[sizeof(o->optional_libraries)];
	WsbSet	   *set = NULL;

	if (o->optional_libraries[0] == '\0')
		return 0;
	for (int i = 0; i < o->nsets; i++)
		if (strcmp(o->sets[i].name, "shared_preload_libraries") == 0)
			set = &o->sets[i];
	if (set == NULL)
	{
		snprintf(err, errlen, "optional_library needs a set of shared_preload_libraries");
		return -1;
	}
	wsb_strlcpy(names, o->optional_libraries, sizeof(names));
	for (char *name = strtok(names, " "); name; name = strtok(NULL, " "))
	{
		char		path[1400];

		if (!WSB_PATH(path, err, errlen, "%s/%s.so", pkglibdir, name))
			return -1;
		if (access(path, R_OK) != 0)
		{
			wsb_note("%s is not installed (no %s): its configuration is left out", name, path);
			continue;
		}
		if (set->nvalues >= WSB_MAX_VALUES)
		{
			snprintf(err, errlen, "too many values of shared_preload_libraries");
			return -1;
		}
		wsb_strlcpy(set->values[set->nvalues++], name, WSB_VALUE_LEN);
	}
	return 0;
}
