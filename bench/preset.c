/*-------------------------------------------------------------------------
 *
 * preset.c
 *		wal_stall_bench: the preset file format, and what its keys mean.
 *
 * A preset is a plain text file of "key = value" lines; '#' starts a
 * comment.  Keys: set (repeatable, "GUC=V1,V2"), conf (repeatable, a fixed
 * setting "name = value"), runs, duration, warmup, clients, jobs, scale, builtin,
 * script, pgbench_args, pgbench_init_args, optional_library, slow_wal, slow_wal_mbps,
 * slow_disk, wal_disk, in_memory (on or off), margin, budget, seed, aged_pages, aged_rows_per_page, description (repeatable,
 * joined), set_from_17 (repeatable: on
 * PostgreSQL 17 and later these replace the preset's set lines, for a knob
 * that 17 introduced).  Flags on the command line override the preset; a
 * --set on the command line replaces the preset's --set of the same GUC.
 * The flags that take a key's value (options.c) are read through
 * wsb_preset_set_field, the same way.
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
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "disk_profile.h"
#include "engine.h"

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
int
wsb_preset_put_set(WsbOptions *o, const WsbSet *s, bool replace, char *err, size_t errlen)
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
int
wsb_copy_value(char *dst, size_t size, const char *flag, const char *noun, const char *value,
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
int
wsb_preset_set_field(WsbOptions *o, const char *key, const char *value, bool *given,
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
		{"runs", WSB_F_RUNS, &o->runs, 1, WSB_MAX_ROUNDS},
		{"duration", WSB_F_DURATION, &o->duration, 1, 86400},
		{"warmup", WSB_F_WARMUP, &o->warmup, 0, 3600},
		{"clients", WSB_F_CLIENTS, &o->clients, 1, WSB_MAX_CLIENTS},
		{"jobs", WSB_F_JOBS, &o->jobs, 1, 10000},
		{"scale", WSB_F_SCALE, &o->scale, 1, 1000000},
		{"slow_wal", WSB_F_SLOW_WAL, &o->slow_wal_iops, 1, 10000000},
		{"slow_wal_mbps", WSB_F_SLOW_WAL_MBPS, &o->slow_wal_mbps, 1, 100000},
		{"slow_disk", WSB_F_SLOW_DISK, &o->slow_disk_iops, 1, 10000000},
		{"aged_pages", WSB_F_AGED_PAGES, &o->aged_pages, 1, WSB_AGED_MAX_PAGES},
		{"aged_rows_per_page", WSB_F_AGED_ROWS, &o->aged_rows_per_page, 1, WSB_AGED_XIDS_PER_PAGE},
	};

	if (strcmp(key, "margin") == 0)
	{
		if (wsb_check_margin("margin", value, &o->margin_pct, err, errlen) != 0)
			return -1;
		given[WSB_F_MARGIN] = true;
		return 0;
	}
	if (strcmp(key, "budget") == 0)
	{
		if (!wsb_parse_duration(value, &o->budget_seconds))
		{
			snprintf(err, errlen, "budget: \"%s\" is not a duration such as 90s, 20m, 2h or 1h30m", value);
			return -1;
		}
		given[WSB_F_BUDGET] = true;
		return 0;
	}
	if (strcmp(key, "seed") == 0)
	{
		if (wsb_check_seed("seed", value, &o->seed, err, errlen) != 0)
			return -1;
		o->seed_given = true;
		given[WSB_F_SEED] = true;
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
		given[WSB_F_BUILTIN] = true;
		return 0;
	}
	if (strcmp(key, "script") == 0)
	{
		/* run as the cluster's owner, copied by root: never another's file */
		char		msg[1024];
		char	   *text = wsb_read_trusted(value, WSB_SCRIPT_MAX, "the file", NULL, msg, sizeof(msg));

		if (text == NULL)
		{
			snprintf(err, errlen, "script: %s", msg);
			return -1;
		}
		free(text);
		if (wsb_copy_value(o->script, sizeof(o->script), "script", "path", value, err, errlen) != 0)
			return -1;
		o->builtin[0] = '\0';
		given[WSB_F_SCRIPT] = true;
		return 0;
	}
	if (strcmp(key, "wal_disk") == 0)
	{
		if (wsb_disk_profile(value) == NULL)
		{
			snprintf(err, errlen, "wal_disk: \"%.100s\" is not a disk profile (%s)", value,
					 wsb_disk_profile_names());
			return -1;
		}
		wsb_strlcpy(o->wal_disk, value, sizeof(o->wal_disk));
		given[WSB_F_WAL_DISK] = true;
		return 0;
	}
	if (strcmp(key, "in_memory") == 0)
	{
		if (strcmp(value, "on") != 0 && strcmp(value, "off") != 0)
		{
			snprintf(err, errlen, "in_memory: \"%.100s\" is neither on nor off", value);
			return -1;
		}
		o->in_memory = strcmp(value, "on") == 0;
		given[WSB_F_IN_MEMORY] = true;
		return 0;
	}
	if (strcmp(key, "pgbench_args") == 0)
	{
		if (wsb_copy_value(o->pgbench_args, sizeof(o->pgbench_args), "pgbench_args", "value", value,
					   err, errlen) != 0)
			return -1;
		given[WSB_F_PGBENCH_ARGS] = true;
		return 0;
	}
	if (strcmp(key, "pgbench_init_args") == 0)
	{
		if (wsb_copy_value(o->pgbench_init_args, sizeof(o->pgbench_init_args), "pgbench_init_args",
					   "value", value, err, errlen) != 0)
			return -1;
		given[WSB_F_INIT_ARGS] = true;
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

/*
 * The file a preset name stands for: a path as given when it has a '/'
 * ("./quick" for a file here), else DIR/NAME.conf, never a file of that
 * name in the current directory, which another account may have put
 * there (/tmp).  malloc'd.
 */
static char *
preset_path(const char *name, const char *dir)
{
	if (strchr(name, '/'))
		return wsb_xstrdup(name);
	return wsb_psprintf("%s/%s.conf", dir ? dir : ".", name);
}

/* An optional_library value: one library's bare name, as pkglibdir holds
 * it (NAME.so), with no path in it */
static bool
library_name_ok(const char *name)
{
	if (*name == '\0')
		return false;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char) *p) && *p != '_' && *p != '-')
			return false;
	return true;
}

int
wsb_load_preset(const char *name, const char *presets_dir, WsbOptions *o,
				bool *given, char *err, size_t errlen)
{
	char	   *path = preset_path(name, presets_dir);
	char	   *text,
			   *line,
			   *next;
	int			lineno = 0;
	char		msg[512];

	text = wsb_read_trusted(path, WSB_PRESET_MAX, "--preset", NULL, msg, sizeof(msg));
	if (text == NULL && errno != ENOENT)
	{
		snprintf(err, errlen, "%s", msg);
		free(path);
		return -1;
	}
	if (text == NULL)
	{
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
		snprintf(err, errlen, "unknown preset \"%s\": %s%s%s%s", name, msg,
				 *list ? " (presets: " : "", list, *list ? ")" : "");
		free(path);
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
			free(path);
			return -1;
		}
		*eq = '\0';
		key = wsb_trim(key);
		value = wsb_trim(eq + 1);
		if (strcmp(key, "set") == 0)
		{
			WsbSet		s;

			if (wsb_parse_set(value, &s, msg, sizeof(msg)) != 0 ||
				wsb_preset_put_set(o, &s, false, msg, sizeof(msg)) != 0)
			{
				snprintf(err, errlen, "%s:%d: %s", path, lineno, msg);
				free(text);
				free(path);
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
				free(path);
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
				free(path);
				return -1;
			}
			if (!conf_name_ok(value, ceq, msg, sizeof(msg)))
			{
				snprintf(err, errlen, "%s:%d: conf: %s", path, lineno, msg);
				free(text);
				free(path);
				return -1;
			}
			append_text(o->extra_conf, sizeof(o->extra_conf), value, NULL);
			append_text(o->extra_conf, sizeof(o->extra_conf), "\n", NULL);
		}
		else if (strcmp(key, "description") == 0)
			append_text(o->description, sizeof(o->description), value, " ");
		else if (strcmp(key, "optional_library") == 0)
		{
			if (!library_name_ok(value))
			{
				snprintf(err, errlen, "%s:%d: optional_library: \"%s\" is not a library's bare name "
						 "(letters, digits, '_' and '-')", path, lineno, value);
				free(text);
				free(path);
				return -1;
			}
			append_text(o->optional_libraries, sizeof(o->optional_libraries), value, " ");
		}
		else if (wsb_preset_set_field(o, key, value, given, msg, sizeof(msg)) != 0)
		{
			snprintf(err, errlen, "%s:%d: %s", path, lineno, msg);
			free(text);
			free(path);
			return -1;
		}
	}
	free(text);
	free(path);
	return 0;
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
		if (!given && wsb_preset_put_set(o, &o->sets_from_17[i], false, err, errlen) != 0)
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
		char	   *path = wsb_psprintf("%s/%s.so", pkglibdir, name);
		bool		installed = access(path, R_OK) == 0;

		if (!installed)
			wsb_note("%s is not installed (no %s): its configuration is left out", name, path);
		free(path);
		if (!installed)
			continue;
		if (set->nvalues >= WSB_MAX_VALUES)
		{
			snprintf(err, errlen, "too many values of shared_preload_libraries");
			return -1;
		}
		wsb_strlcpy(set->values[set->nvalues++], name, WSB_VALUE_LEN);
	}
	return 0;
}

/*
 * wsb_conf_names_known
 *		Is every name of a preset's conf lines (extra_conf, "name = value"
 *		lines) a setting of the server, before any line is written into a
 *		configuration file?  described is the output of "postgres
 *		--describe-config", a line per setting a configuration file may hold,
 *		its name first and a tab after it; names match without regard to
 *		case, as the server matches them.  A custom "prefix.name" passes: the
 *		server takes any, and its library checks it once loaded.  server
 *		names the binary in the message.  0, or -1 with err naming the first
 *		unknown name.
 */
int
wsb_conf_names_known(const char *extra_conf, const char *described, const char *server,
					 char *err, size_t errlen)
{
	for (const char *line = extra_conf; *line;)
	{
		const char *end = strchr(line, '\n');
		size_t		len = end ? (size_t) (end - line) : strlen(line);
		char		name[WSB_NAME_LEN];
		const char *eq = memchr(line, '=', len);
		bool		known = false;
		char	   *n;

		if (eq != NULL)
		{
			snprintf(name, sizeof(name), "%.*s", (int) (eq - line), line);
			n = wsb_trim(name);
			known = strchr(n, '.') != NULL;
			for (const char *d = described; !known && d && *d;)
			{
				size_t		nl = strlen(n);

				known = strncasecmp(d, n, nl) == 0 && d[nl] == '\t';
				d = strchr(d, '\n');
				d = d ? d + 1 : NULL;
			}
			if (!known)
			{
				snprintf(err, errlen, "preset conf: unknown setting \"%s\" (\"%s --describe-config\" does "
						 "not list it), refused before any configuration file is written", n, server);
				return -1;
			}
		}
		line += len + (end ? 1 : 0);
	}
	return 0;
}
