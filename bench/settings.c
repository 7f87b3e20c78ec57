/*-------------------------------------------------------------------------
 *
 * settings.c
 *		wal_stall_bench: changing the target's settings, and putting them
 *		back.
 *
 * Settings change through ALTER SYSTEM only.  With --pgdata, before the
 * first change the statements that undo every change are written to
 * OUT/restore.sql, and at the end (also on failure and on SIGINT/SIGTERM)
 * they are executed: ALTER SYSTEM RESET for a setting postgresql.auto.conf
 * did not hold, ALTER SYSTEM SET to the old text for one it did, in the
 * file's old order.
 *
 * A change is applied with pg_reload_conf(); pg_file_settings then says
 * whether a restart is needed ("setting could not be applied", for a
 * postmaster-context setting), and after it every value must show as
 * applied from postgresql.auto.conf, or the run does not start.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <libpq-fe.h>

#include "engine.h"

/* The raw value text of name in postgresql.auto.conf, malloc'd, or NULL. */
static char *
auto_conf_value(const WsbTarget *t, const char *name)
{
	char		path[1100];
	char	   *text,
			   *line,
			   *save = NULL,
			   *found = NULL;

	snprintf(path, sizeof(path), "%s/postgresql.auto.conf", t->pgdata);
	text = wsb_read_file(path, NULL);
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save))
	{
		char	   *p = wsb_trim(line),
				   *eq;
		size_t		nl;

		if (*p == '#')
			continue;
		eq = strchr(p, '=');
		if (eq == NULL)
			continue;
		nl = eq - p;
		while (nl > 0 && p[nl - 1] == ' ')
			nl--;
		if (strlen(name) == nl && strncasecmp(p, name, nl) == 0)
		{
			free(found);
			found = strdup(wsb_trim(eq + 1));
		}
	}
	free(text);
	return found;
}

/* Remember every entry of postgresql.auto.conf, in order, before any change. */
void
wsb_settings_read_auto_conf(WsbTarget *t)
{
	char		path[1100];
	char	   *text,
			   *line,
			   *save = NULL;

	snprintf(path, sizeof(path), "%s/postgresql.auto.conf", t->pgdata);
	text = wsb_read_file(path, NULL);
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save))
	{
		char	   *p = wsb_trim(line),
				   *eq;

		if (*p == '#' || (eq = strchr(p, '=')) == NULL || t->nauto >= 64)
			continue;
		*eq = '\0';
		t->auto_names[t->nauto] = strdup(wsb_trim(p));
		t->auto_values[t->nauto] = strdup(wsb_trim(eq + 1));
		t->nauto++;
	}
	free(text);
}

/*
 * The statements that put postgresql.auto.conf back: RESET what was not
 * there, then SET again, in their old order, every old entry from the
 * first one we changed on (ALTER SYSTEM SET moves an entry to the end of
 * the file, so this restores the order as well as the values).
 */
static int
restore_statements(const WsbTarget *t, char stmts[][WSB_VALUE_LEN * 2 + 128], int max)
{
	int			n = 0,
				first = -1;

	for (int i = 0; i < t->nchanged && n < max; i++)
		if (t->orig_auto[i] == NULL)
			snprintf(stmts[n++], WSB_VALUE_LEN * 2 + 128, "ALTER SYSTEM RESET \"%s\"", t->changed[i]);
	for (int a = 0; a < t->nauto && first < 0; a++)
		for (int i = 0; i < t->nchanged; i++)
			if (strcasecmp(t->auto_names[a], t->changed[i]) == 0)
			{
				first = a;
				break;
			}
	for (int a = first < 0 ? t->nauto : first; a < t->nauto && n < max; a++)
		snprintf(stmts[n++], WSB_VALUE_LEN * 2 + 128, "ALTER SYSTEM SET \"%s\" = %s",
				 t->auto_names[a], t->auto_values[a]);
	return n;
}

int
wsb_settings_journal(WsbTarget *t)
{
	FILE	   *f;

	if (t->temporary || t->journal[0] == '\0')
		return 0;
	f = fopen(t->journal, "w");
	if (f == NULL)
		return -1;
	fprintf(f, "-- wal_stall_bench changed these settings of the cluster at %s\n"
			"-- with ALTER SYSTEM.  Should the harness die before restoring them, run\n"
			"--   psql -h %s -p %d -d postgres -f %s\n"
			"-- then restart the server (pg_ctl restart -D %s) if a setting needs it.\n",
			t->pgdata, t->sockdir, t->port, t->journal, t->pgdata);
	{
		static char stmts[WSB_MAX_SETS + 8 + 64][WSB_VALUE_LEN * 2 + 128];
		int			n = restore_statements(t, stmts, (int) (sizeof(stmts) / sizeof(stmts[0])));

		for (int i = 0; i < n; i++)
			fprintf(f, "%s;\n", stmts[i]);
	}
	if (t->created_db)
		fprintf(f, "DROP DATABASE IF EXISTS wal_stall_bench;\n");
	fprintf(f, "SELECT pg_reload_conf();\n");
	return fclose(f);
}

/* Note that name is about to change; journal it first. */
static int
remember(WsbTarget *t, const char *name, char *err, size_t errlen)
{
	for (int i = 0; i < t->nchanged; i++)
		if (strcasecmp(t->changed[i], name) == 0)
			return 0;
	if (t->nchanged >= (int) (sizeof(t->changed) / sizeof(t->changed[0])))
	{
		snprintf(err, errlen, "too many settings to change");
		return -1;
	}
	wsb_strlcpy(t->changed[t->nchanged], name, WSB_NAME_LEN);
	t->orig_auto[t->nchanged] = t->temporary ? NULL : auto_conf_value(t, name);
	t->nchanged++;
	if (wsb_settings_journal(t) != 0)
	{
		snprintf(err, errlen, "could not write the restore journal \"%s\": %s", t->journal, strerror(errno));
		t->nchanged--;
		return -1;
	}
	return 0;
}

/*
 * The settings whose list elements PostgreSQL quotes (GUC_LIST_QUOTE): a
 * single literal 'a,b' would become the one element "a,b", and '' the one
 * element "", so their elements go to ALTER SYSTEM one literal each, and
 * an empty list (which ALTER SYSTEM cannot write before PostgreSQL 17) is
 * an ALTER SYSTEM RESET, checked afterwards to have left the list empty.
 */
static bool
is_quoted_list(const char *name)
{
	const char *lists[] = {"shared_preload_libraries", "session_preload_libraries",
		"local_preload_libraries", "search_path", "temp_tablespaces", NULL};

	for (int i = 0; lists[i]; i++)
		if (strcasecmp(name, lists[i]) == 0)
			return true;
	return false;
}

/* ALTER SYSTEM for one setting; *reset tells an empty list was RESET. */
static int
alter_system(WsbTarget *t, const char *name, const char *value, bool *reset,
			 char *err, size_t errlen)
{
	char	   *id = PQescapeIdentifier(t->conn, name, strlen(name));
	char		sql[WSB_VALUE_LEN * 4 + WSB_NAME_LEN + 64];
	char		msg[512];
	int			rc;

	*reset = false;
	if (id == NULL)
	{
		snprintf(err, errlen, "%s", PQerrorMessage(t->conn));
		return -1;
	}
	if (is_quoted_list(name))
	{
		char		buf[WSB_VALUE_LEN];
		char	   *save = NULL;
		int			n = 0;

		snprintf(sql, sizeof(sql), "ALTER SYSTEM SET %s = ", id);
		wsb_strlcpy(buf, value, sizeof(buf));
		for (char *e = strtok_r(buf, ",", &save); e; e = strtok_r(NULL, ",", &save))
		{
			char	   *el = wsb_trim(e);
			char	   *lit;

			if (*el == '\0')
				continue;
			lit = PQescapeLiteral(t->conn, el, strlen(el));
			snprintf(sql + strlen(sql), sizeof(sql) - strlen(sql), "%s%s", n++ ? ", " : "", lit);
			PQfreemem(lit);
		}
		if (n == 0)
		{
			snprintf(sql, sizeof(sql), "ALTER SYSTEM RESET %s", id);
			*reset = true;
		}
	}
	else
	{
		char	   *lit = PQescapeLiteral(t->conn, value, strlen(value));

		snprintf(sql, sizeof(sql), "ALTER SYSTEM SET %s = %s", id, lit);
		PQfreemem(lit);
	}
	PQfreemem(id);
	rc = wsb_sql_exec(t->conn, sql, msg, sizeof(msg));
	if (rc != 0)
		snprintf(err, errlen, "cannot set %s to '%s': %s", name, value, msg);
	return rc;
}

/* Put the changed settings back as they were in postgresql.auto.conf. */
int
wsb_settings_restore(WsbTarget *t, char *err, size_t errlen)
{
	int			failed = 0;
	WsbRows		r;

	static char stmts[WSB_MAX_SETS + 8 + 64][WSB_VALUE_LEN * 2 + 128];
	int			n = restore_statements(t, stmts, (int) (sizeof(stmts) / sizeof(stmts[0])));

	for (int i = 0; i < n; i++)
	{
		char		msg[512];

		if (wsb_sql_exec(t->conn, stmts[i], msg, sizeof(msg)) != 0)
		{
			snprintf(err, errlen, "could not restore: %.200s: %.250s", stmts[i], msg);
			failed = 1;
		}
	}
	if (failed)
		return -1;
	wsb_sql_exec(t->conn, "SELECT pg_reload_conf()", err, errlen);
	if (t->temporary || !t->was_running)
		return 0;				/* stopped at the end anyway */
	/* a postmaster-context setting back to its old value needs a restart */
	usleep(200000);
	if (wsb_sql_rows(t->conn,
					 "SELECT name FROM pg_file_settings WHERE error = 'setting could not be applied'",
					 0, NULL, &r, err, errlen) == 0)
	{
		bool		restart = r.nrows > 0;

		wsb_rows_free(&r);
		if (restart)
			return wsb_target_restart(t, err, errlen);
	}
	return 0;
}

/* "{"a","b"}" for the names whose reset[] is want */
static void
name_array(int n, char names[][WSB_NAME_LEN], const bool *reset, bool want, char *buf, size_t len)
{
	int			k = 0;

	wsb_strlcpy(buf, "{", len);
	for (int i = 0; i < n; i++)
		if (reset[i] == want)
			snprintf(buf + strlen(buf), len - strlen(buf), "%s\"%s\"", k++ ? "," : "", names[i]);
	strncat(buf, "}", len - strlen(buf) - 1);
}

/*
 * Change settings: ALTER SYSTEM, reload and wait until this backend has
 * read the files again (pg_conf_load_time moves), restart if a value
 * cannot be applied without one (pg_file_settings says so for a changed
 * postmaster-context setting, pg_settings.pending_restart for a reset
 * one), then check that every value took effect: pg_file_settings, which
 * this backend computes, marks a file's value "applied" when it equals the
 * active one, and the last line for the name must be ours, in
 * postgresql.auto.conf; a reset list must now be empty.
 */
int
wsb_settings_apply(WsbTarget *t, int n, char names[][WSB_NAME_LEN], char values[][WSB_VALUE_LEN],
			   char *err, size_t errlen)
{
	WsbRows		r;
	bool		restart = false;
	bool		reset[WSB_MAX_SETS + 8];
	char		set_list[4096],
				reset_list[4096];
	char		loaded0[64],
				loaded[64];
	const char *p[1];

	if (n == 0)
		return 0;
	if (wsb_sql_value(t->conn, "SELECT pg_conf_load_time()::text", NULL, loaded0, sizeof(loaded0),
				  err, errlen) != 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (remember(t, names[i], err, errlen) != 0 ||
			alter_system(t, names[i], values[i], &reset[i], err, errlen) != 0)
			return -1;
	name_array(n, names, reset, false, set_list, sizeof(set_list));
	name_array(n, names, reset, true, reset_list, sizeof(reset_list));
	if (wsb_sql_exec(t->conn, "SELECT pg_reload_conf()", err, errlen) != 0)
		return -1;
	for (int i = 0; i < 100; i++)
	{
		if (wsb_sql_value(t->conn, "SELECT pg_conf_load_time()::text", NULL, loaded, sizeof(loaded),
					  err, errlen) != 0)
			return -1;
		if (strcmp(loaded, loaded0) != 0 || wsb_interrupted)
			break;
		usleep(50000);
	}

	p[0] = set_list;
	if (wsb_sql_rows(t->conn,
					 "SELECT name, error FROM pg_file_settings f "
					 "WHERE lower(name) = ANY (SELECT lower(x) FROM unnest($1::text[]) x) "
					 "AND error IS NOT NULL "
					 "AND seqno = (SELECT max(seqno) FROM pg_file_settings g WHERE g.name = f.name)",
					 1, p, &r, err, errlen) != 0)
		return -1;
	for (int i = 0; i < r.nrows; i++)
	{
		const char *e = wsb_rows_get(&r, i, "error");

		if (strcmp(e, "setting could not be applied") == 0)
			restart = true;
		else
		{
			snprintf(err, errlen, "setting %s: %s", wsb_rows_get(&r, i, "name"), e);
			wsb_rows_free(&r);
			return -1;
		}
	}
	wsb_rows_free(&r);
	p[0] = reset_list;
	if (wsb_sql_rows(t->conn, "SELECT name FROM pg_settings WHERE pending_restart "
					 "AND lower(name) = ANY (SELECT lower(x) FROM unnest($1::text[]) x)",
					 1, p, &r, err, errlen) != 0)
		return -1;
	restart |= r.nrows > 0;
	wsb_rows_free(&r);
	if (restart && wsb_target_restart(t, err, errlen) != 0)
		return -1;

	p[0] = set_list;
	if (wsb_sql_rows(t->conn,
					 "SELECT name, setting, error FROM pg_file_settings f "
					 "WHERE lower(name) = ANY (SELECT lower(x) FROM unnest($1::text[]) x) "
					 "AND seqno = (SELECT max(seqno) FROM pg_file_settings g WHERE g.name = f.name) "
					 "AND NOT (applied AND sourcefile LIKE '%/postgresql.auto.conf')",
					 1, p, &r, err, errlen) != 0)
		return -1;
	if (r.nrows > 0)
	{
		snprintf(err, errlen, "setting %s = '%s' did not take effect%s%s",
				 wsb_rows_get(&r, 0, "name"), wsb_rows_get(&r, 0, "setting"),
				 wsb_rows_get(&r, 0, "error") ? ": " : "",
				 wsb_rows_get(&r, 0, "error") ? wsb_rows_get(&r, 0, "error") : "");
		wsb_rows_free(&r);
		return -1;
	}
	wsb_rows_free(&r);
	p[0] = reset_list;
	if (wsb_sql_rows(t->conn, "SELECT name, setting FROM pg_settings WHERE setting <> '' "
					 "AND lower(name) = ANY (SELECT lower(x) FROM unnest($1::text[]) x)",
					 1, p, &r, err, errlen) != 0)
		return -1;
	if (r.nrows > 0)
	{
		snprintf(err, errlen, "cannot make %s empty: ALTER SYSTEM RESET leaves it '%s' from the "
				 "configuration files (PostgreSQL before 17 cannot write an empty list with ALTER SYSTEM)",
				 wsb_rows_get(&r, 0, "name"), wsb_rows_get(&r, 0, "setting"));
		wsb_rows_free(&r);
		return -1;
	}
	wsb_rows_free(&r);
	return 0;
}

int
wsb_target_apply(WsbTarget *t, const WsbConfig *c, char *err, size_t errlen)
{
	char		names[WSB_MAX_SETS][WSB_NAME_LEN];
	char		values[WSB_MAX_SETS][WSB_VALUE_LEN];

	for (int i = 0; i < c->nsettings; i++)
	{
		strcpy(names[i], c->names[i]);
		strcpy(values[i], c->values[i]);
	}
	return wsb_settings_apply(t, c->nsettings, names, values, err, errlen);
}

/*
 * Check every --set setting and value before any run: the name must be in
 * pg_settings (custom "prefix.name" settings excepted) and ALTER SYSTEM
 * must accept each value; the file is put back afterwards.
 */
int
wsb_target_validate(WsbTarget *t, const WsbPlan *plan, char *err, size_t errlen)
{
	const WsbOptions *o = t->opts;
	bool		reset;
	char		version[64] = "";
	char		msg[512];

	wsb_sql_value(t->conn, "SHOW server_version", NULL, version, sizeof(version), msg, sizeof(msg));
	for (int i = 0; i < o->nsets; i++)
	{
		const char *p[1] = {o->sets[i].name};
		WsbRows		r;

		if (wsb_sql_rows(t->conn, "SELECT context FROM pg_settings WHERE lower(name) = lower($1)",
						 1, p, &r, err, errlen) != 0)
			return -1;
		if (r.nrows == 0 && strchr(o->sets[i].name, '.') == NULL)
		{
			snprintf(err, errlen, "--set %s: unknown setting \"%s\" (not in pg_settings of PostgreSQL %s)",
					 o->sets[i].name, o->sets[i].name, version);
			wsb_rows_free(&r);
			return -1;
		}
		if (r.nrows > 0 && strcmp(r.cells[0][0], "internal") == 0)
		{
			snprintf(err, errlen, "--set %s: \"%s\" cannot be changed (an internal setting)",
					 o->sets[i].name, o->sets[i].name);
			wsb_rows_free(&r);
			return -1;
		}
		wsb_rows_free(&r);
		if (remember(t, o->sets[i].name, err, errlen) != 0)
			return -1;
		for (int v = 0; v < o->sets[i].nvalues; v++)
			if (alter_system(t, o->sets[i].name, o->sets[i].values[v], &reset, msg, sizeof(msg)) != 0)
			{
				snprintf(err, errlen, "--set %s=%s: %s", o->sets[i].name, o->sets[i].values[v],
						 strchr(msg, ':') ? strchr(msg, ':') + 2 : msg);
				return -1;
			}
	}
	/* back as before, without a reload: nothing took effect */
	for (int i = 0; i < t->nchanged; i++)
	{
		char		sql[WSB_VALUE_LEN * 2 + 128];

		if (t->orig_auto[i])
			snprintf(sql, sizeof(sql), "ALTER SYSTEM SET \"%s\" = %s", t->changed[i], t->orig_auto[i]);
		else if (t->temporary)
			continue;			/* a later apply sets it anyway */
		else
			snprintf(sql, sizeof(sql), "ALTER SYSTEM RESET \"%s\"", t->changed[i]);
		if (wsb_sql_exec(t->conn, sql, err, errlen) != 0)
			return -1;
	}
	(void) plan;
	return 0;
}
