/*-------------------------------------------------------------------------
 *
 * settings.c
 *		wal_stall_bench: changing the target's settings, and putting them
 *		back.
 *
 * Settings change through ALTER SYSTEM only.  With --pgdata, before the
 * first change the statements that undo every change are written to
 * OUT/restore.sql.  At the end (also on failure and on SIGINT/SIGTERM)
 * each setting the harness changed gets its old entry in
 * postgresql.auto.conf back: ALTER SYSTEM RESET where it had none, ALTER
 * SYSTEM SET to the old value where it had one.  No other setting gets
 * another value, and an entry someone else changed during the run (a
 * DBA's ALTER SYSTEM) is kept and named.  ALTER SYSTEM SET appends its
 * entry to the file, so the entries that moved are then written again,
 * each with the value it holds, in the file's old order.  autoconf.c
 * decides what to write.
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
#include <sys/stat.h>
#include <unistd.h>
#include <libpq-fe.h>

#include "engine.h"
#include "expbuffer.h"
#include "sql.h"

/*
 * postgresql.auto.conf's entries as the server reads the file now, in the
 * file's order (name, setting): every entry, or those of one setting when
 * name is not NULL.
 */
static int
auto_conf_rows(WsbTarget *t, const char *name, WsbRows *r, char *err, size_t errlen)
{
	const char *p[1] = {name};

	return wsb_sql_rows(t->conn,
						"SELECT name, setting FROM pg_catalog.pg_file_settings "
						"WHERE sourcefile = pg_catalog.current_setting('data_directory'::pg_catalog.text) "
						"|| '/postgresql.auto.conf'::pg_catalog.text "
						"AND ($1::pg_catalog.text IS NULL "
						"OR pg_catalog.lower(name) = pg_catalog.lower($1::pg_catalog.text)) "
						"ORDER BY seqno",
						1, p, r, err, errlen);
}

/* The value postgresql.auto.conf holds for name now (malloc'd), or NULL. */
static int
auto_conf_now(WsbTarget *t, const char *name, char **value, char *err, size_t errlen)
{
	WsbRows		r;

	*value = NULL;
	if (auto_conf_rows(t, name, &r, err, errlen) != 0)
		return -1;
	/* the file's last entry of the name is the one the server takes */
	if (r.nrows > 0 && r.cells[r.nrows - 1][1])
		*value = wsb_xstrdup(r.cells[r.nrows - 1][1]);
	wsb_rows_free(&r);
	return 0;
}

/*
 * Every entry of postgresql.auto.conf, in the file's order, before any
 * change: pg_file_settings gives each value as the server reads it, its
 * quotes and escapes already undone, so a value goes back through
 * PQescapeLiteral exactly (pasting the file's text into a literal would
 * double each backslash on every restore).  No limit on the entries.
 */
int
wsb_settings_read_auto_conf(WsbTarget *t, char *err, size_t errlen)
{
	WsbRows		r;

	if (auto_conf_rows(t, NULL, &r, err, errlen) != 0)
		return -1;
	t->nauto = r.nrows;
	t->auto_names = wsb_xcalloc(r.nrows, sizeof(char *));
	t->auto_values = wsb_xcalloc(r.nrows, sizeof(char *));
	for (int i = 0; i < r.nrows; i++)
	{
		t->auto_names[i] = wsb_xstrdup(r.cells[i][0] ? r.cells[i][0] : "");
		t->auto_values[i] = wsb_xstrdup(r.cells[i][1] ? r.cells[i][1] : "");
	}
	wsb_rows_free(&r);
	return 0;
}

/* The value name had in postgresql.auto.conf (its last entry), or NULL. */
static const char *
auto_conf_value_before(const WsbTarget *t, const char *name)
{
	const char *found = NULL;

	for (int a = 0; a < t->nauto; a++)
		if (strcasecmp(t->auto_names[a], name) == 0)
			found = t->auto_values[a];
	return found;
}

/*
 * Append to buf the literals of one list setting's value as ALTER SYSTEM
 * takes them, one per element ('a', 'b'), split by wsb_list_element
 * (util.c); ALTER SYSTEM quotes each element again as it writes the file.
 * Returns the number of elements, -1 if one cannot be escaped.
 */
static int
append_list_literals(PQExpBuffer buf, PGconn *conn, const char *value)
{
	const char *p = value;
	char	   *el = wsb_xmalloc(strlen(value) + 1);
	int			n = 0;

	while (wsb_list_element(&p, el))
	{
		char	   *lit = PQescapeLiteral(conn, el, strlen(el));

		if (lit == NULL)
		{
			free(el);
			return -1;
		}
		appendPQExpBuffer(buf, "%s%s", n++ ? ", " : "", lit);
		PQfreemem(lit);
	}
	free(el);
	return n;
}

/* Append "ALTER SYSTEM RESET name" to buf; false if name cannot be escaped. */
static bool
append_reset(PQExpBuffer buf, PGconn *conn, const char *name)
{
	char	   *id = PQescapeIdentifier(conn, name, strlen(name));

	if (id == NULL)
		return false;
	appendPQExpBuffer(buf, "ALTER SYSTEM RESET %s", id);
	PQfreemem(id);
	return true;
}

/*
 * Append "ALTER SYSTEM SET name = value" to buf: one literal, or one per
 * element for a list setting (GUC_LIST_QUOTE, autoconf.c).  False if the
 * connection cannot escape a part, or for an empty list, which ALTER
 * SYSTEM cannot write; buf then holds a part of the statement.
 */
static bool
append_set(PQExpBuffer buf, PGconn *conn, const char *name, const char *value)
{
	char	   *id = PQescapeIdentifier(conn, name, strlen(name));
	char	   *lit;

	if (id == NULL)
		return false;
	appendPQExpBuffer(buf, "ALTER SYSTEM SET %s = ", id);
	PQfreemem(id);
	if (wsb_guc_list_quote(name))
		return append_list_literals(buf, conn, value) > 0;
	lit = PQescapeLiteral(conn, value, strlen(value));
	if (lit == NULL)
		return false;
	appendPQExpBufferStr(buf, lit);
	PQfreemem(lit);
	return true;
}

/*
 * The statement that gives name the value it had in postgresql.auto.conf:
 * ALTER SYSTEM SET, or ALTER SYSTEM RESET where it had none.  malloc'd;
 * NULL if the connection cannot escape the value, out of memory, or for
 * an empty list, which ALTER SYSTEM cannot write (a cluster with one is
 * refused before anything changes: wsb_settings_check_restorable).
 */
static char *
restore_statement(PGconn *conn, const char *name, const char *value)
{
	PQExpBufferData sql;
	bool		ok;

	initPQExpBuffer(&sql);
	ok = value ? append_set(&sql, conn, name, value) : append_reset(&sql, conn, name);
	if (!ok || PQExpBufferDataBroken(sql))
	{
		termPQExpBuffer(&sql);
		return NULL;
	}
	return sql.data;
}

/*
 * The statements restore.sql holds: ALTER SYSTEM RESET of each setting the
 * harness changed that postgresql.auto.conf did not hold; then every entry
 * the file held, from the first one the harness changed on, written again
 * with the value it had when the harness started, in the file's old order
 * (each ALTER SYSTEM SET appends its entry, so this puts the order back
 * too).  Run by hand after a harness that could not restore, so it cannot
 * know what else changed meanwhile; its comment says so.  Names whose
 * every ALTER SYSTEM failed were never changed and are left out.  Returns
 * the number of statements in *out (each malloc'd, NULL where one could
 * not be built).
 */
static int
restore_statements(const WsbTarget *t, char ***out)
{
	int			first = t->nauto;
	int			n = 0;
	char	  **stmts = wsb_xcalloc(t->nchanged + t->nauto + 1, sizeof(char *));

	for (int i = 0; i < t->nchanged; i++)
		if (t->was_set[i] && t->orig_auto[i] == NULL)
			stmts[n++] = restore_statement(t->conn, t->changed[i], NULL);
	for (int a = 0; a < t->nauto && first == t->nauto; a++)
		for (int i = 0; i < t->nchanged; i++)
			if (t->was_set[i] && strcasecmp(t->auto_names[a], t->changed[i]) == 0)
				first = a;
	for (int a = first; a < t->nauto; a++)
		stmts[n++] = restore_statement(t->conn, t->auto_names[a], t->auto_values[a]);
	*out = stmts;
	return n;
}

static void
free_statements(char **stmts, int n)
{
	for (int i = 0; i < n; i++)
		free(stmts[i]);
	free(stmts);
}

/*
 * s as one word of a POSIX shell: as it is when it holds only letters,
 * digits and _ . / - (the usual paths and names), else in single quotes,
 * each ' written '\''.  The socket directory is the cluster owner's to
 * name, and root's shell runs the command restore.sql prints.
 */
static void
append_shell_word(PQExpBuffer buf, const char *s)
{
	if (s[0] != '\0' && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
								"0123456789_./-") == strlen(s))
	{
		appendPQExpBufferStr(buf, s);
		return;
	}
	appendPQExpBufferChar(buf, '\'');
	for (; *s; s++)
	{
		if (*s == '\'')
			appendPQExpBufferStr(buf, "'\\''");
		else
			appendPQExpBufferChar(buf, *s);
	}
	appendPQExpBufferChar(buf, '\'');
}

/*
 * Whether s can stand in restore.sql's comment lines: a control
 * character (a carriage return ends a comment for psql as a newline does)
 * would put the rest of it among the statements.
 */
bool
wsb_journal_printable(const char *s)
{
	for (; s && *s; s++)
		if ((unsigned char) *s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

/*
 * OUT/restore.sql's first lines: the exact command that runs it (as the
 * cluster's owner, over the server's socket, every word shell-quoted) and
 * what to do about a setting that needs a restart.
 */
static void
journal_header(FILE *f, const WsbTarget *t)
{
	PQExpBufferData cmd,
				pgdata;

	initPQExpBuffer(&cmd);
	if (geteuid() != t->uid)
	{
		appendPQExpBufferStr(&cmd, "runuser -u ");
		append_shell_word(&cmd, t->owner);
		appendPQExpBufferStr(&cmd, " -- ");
	}
	appendPQExpBufferStr(&cmd, "psql -X -h ");
	append_shell_word(&cmd, t->sockdir);
	appendPQExpBuffer(&cmd, " -p %d -U ", t->port);
	append_shell_word(&cmd, PQuser(t->conn));
	appendPQExpBufferStr(&cmd, " -d postgres < ");
	append_shell_word(&cmd, t->journal);
	initPQExpBuffer(&pgdata);
	append_shell_word(&pgdata, t->pgdata);
	fprintf(f, "-- wal_stall_bench changed these settings of the cluster at %s\n"
			"-- with ALTER SYSTEM.  Should the harness die before restoring them, run\n"
			"--   %s\n"
			"-- and then, if SELECT name FROM pg_settings WHERE pending_restart lists any\n"
			"-- setting, restart the server the way it is managed (pg_ctl restart -D %s).\n",
			t->pgdata, wsb_buffer_text(&cmd), wsb_buffer_text(&pgdata));
	termPQExpBuffer(&cmd);
	termPQExpBuffer(&pgdata);
}

/*
 * OUT/restore.sql: what undoes every change, written before each change,
 * headed by the command that runs it (journal_header).  Refused (EINVAL)
 * when a name it prints holds a control character.
 */
int
wsb_settings_journal(WsbTarget *t)
{
	FILE	   *f;
	char	  **stmts;
	int			n;

	if (t->temporary || t->journal == NULL || t->conn == NULL)
		return 0;
	if (!wsb_journal_printable(t->pgdata) || !wsb_journal_printable(t->sockdir) ||
		!wsb_journal_printable(t->owner) || !wsb_journal_printable(PQuser(t->conn)) ||
		!wsb_journal_printable(t->journal))
	{
		errno = EINVAL;
		return -1;
	}
	/* 0600 even with --group: it may hold old values of secret settings */
	f = wsb_create_file(t->journal, 0600);
	if (f == NULL)
		return -1;
	journal_header(f, t);
	n = restore_statements(t, &stmts);
	for (int i = 0; i < n; i++)
		if (stmts[i])
			fprintf(f, "%s;\n", stmts[i]);
	free_statements(stmts, n);
	fprintf(f, "-- (the entries of postgresql.auto.conf from the first one the harness changed\n"
			"-- on get the values they had when it started, in their old order)\n");
	/* what a killed --aged-pages run left: copies first, the template last */
	for (int i = 0; t->aged_databases[i] != NULL; i++)
		fprintf(f, "DROP DATABASE IF EXISTS %s WITH (FORCE);\n", t->aged_databases[i]);
	if (t->created_db)
		fprintf(f, "DROP DATABASE IF EXISTS " WSB_DATABASE " WITH (FORCE);\n");
	fprintf(f, "SELECT pg_catalog.pg_reload_conf();\n");
	/* read by root's shell (the "<" above): OUT need not be the owner's */
	return fchmod(fileno(f), 0600) == 0 ? wsb_close_written(f, 0) : wsb_close_written(f, -1);
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
	t->orig_auto[t->nchanged] = t->temporary ? NULL : auto_conf_value_before(t, name);
	t->was_set[t->nchanged] = false;
	t->nchanged++;
	return 0;
}

/*
 * Keep the entry postgresql.auto.conf holds for changed setting i now,
 * just after the harness wrote it: at the end, an entry that differs from
 * it was written by someone else.
 */
static int
remember_ours(WsbTarget *t, int i, char *err, size_t errlen)
{
	char	   *now;

	if (t->temporary)
		return 0;
	if (auto_conf_now(t, t->changed[i], &now, err, errlen) != 0)
		return -1;
	free(t->auto_ours[i]);
	t->auto_ours[i] = now;
	return 0;
}

/* The index of name among the changed settings, or -1. */
static int
changed_index(const WsbTarget *t, const char *name)
{
	for (int i = 0; i < t->nchanged; i++)
		if (strcasecmp(t->changed[i], name) == 0)
			return i;
	return -1;
}

/*
 * ALTER SYSTEM for one setting; *reset tells an empty list was RESET.
 * The journal names the setting before the statement runs, so that a
 * harness killed in between still leaves what undoes it; if the statement
 * fails and the setting was never changed before, it leaves the journal
 * and the restore again.
 */
static int
alter_system(WsbTarget *t, const char *name, const char *value, bool *reset,
			 char *err, size_t errlen)
{
	PQExpBufferData sql;
	char		msg[512];
	int			i,
				rc;
	bool		was_set,
				built;

	*reset = false;
	if (remember(t, name, err, errlen) != 0)
		return -1;
	i = changed_index(t, name);
	was_set = t->was_set[i];
	t->was_set[i] = true;
	if (!was_set && wsb_settings_journal(t) != 0)
	{
		t->was_set[i] = false;
		snprintf(err, errlen, "could not write the restore journal \"%s\": %s", t->journal, strerror(errno));
		return -1;
	}

	initPQExpBuffer(&sql);
	built = append_set(&sql, t->conn, name, value);
	if (!built && wsb_guc_list_quote(name))
	{
		/* ALTER SYSTEM cannot write an empty list: RESET is the nearest */
		resetPQExpBuffer(&sql);
		built = *reset = append_reset(&sql, t->conn, name);
	}
	if (!built || PQExpBufferDataBroken(sql))
	{
		snprintf(err, errlen, "cannot set %s: %s", name,
				 PQExpBufferDataBroken(sql) ? "out of memory" : PQerrorMessage(t->conn));
		rc = -1;
	}
	else
	{
		rc = wsb_sql_exec(t->conn, sql.data, msg, sizeof(msg));
		if (rc != 0)
			snprintf(err, errlen, "cannot set %s to '%s': %s", name, value, msg);
	}
	termPQExpBuffer(&sql);
	if (rc != 0)
	{
		if (!was_set)
		{
			t->was_set[i] = false;
			wsb_settings_journal(t);
		}
		return rc;
	}
	return remember_ours(t, i, err, errlen);
}

/*
 * A connection to change settings on: the harness's own, or a new one
 * where a failed restart left none, so that the error names the failed
 * connection and not a missing one.
 */
static int
ensure_connected(WsbTarget *t, char *err, size_t errlen)
{
	char		msg[900];

	if (t->conn && PQstatus(t->conn) == CONNECTION_OK)
		return 0;
	if (wsb_sql_connect(t, t->dbname, msg, sizeof(msg)) == 0)
		return 0;
	snprintf(err, errlen, "no connection to the server to change settings on: %s", msg);
	return -1;
}

/*
 * Wait until this backend has read the configuration files again (5 s at
 * most).  A Ctrl-C ends the wait of a change, but not of the restore: what
 * needs a restart is read only once the files are read again.
 */
static int
reload_and_wait(WsbTarget *t, bool interruptible, char *err, size_t errlen)
{
	const char *q = "SELECT pg_catalog.pg_conf_load_time()::pg_catalog.text";
	char		loaded0[64],
				loaded[64];

	if (wsb_sql_value(t->conn, q, NULL, loaded0, sizeof(loaded0), err, errlen) != 0 ||
		wsb_sql_exec(t->conn, "SELECT pg_catalog.pg_reload_conf()", err, errlen) != 0)
		return -1;
	for (int i = 0; i < 100; i++)
	{
		if (wsb_sql_value(t->conn, q, NULL, loaded, sizeof(loaded), err, errlen) != 0)
			return -1;
		if (strcmp(loaded, loaded0) != 0 || (interruptible && wsb_interrupted))
			break;
		usleep(50000);
	}
	return 0;
}

/*
 * Append to buf a text[] literal, "{"a","b"}", of the names whose reset[]
 * is want, or of every name when reset is NULL.
 */
static void
append_name_array(PQExpBuffer buf, int n, char names[][WSB_NAME_LEN], const bool *reset, bool want)
{
	int			k = 0;

	appendPQExpBufferChar(buf, '{');
	for (int i = 0; i < n; i++)
		if (reset == NULL || reset[i] == want)
			appendPQExpBuffer(buf, "%s\"%s\"", k++ ? "," : "", names[i]);
	appendPQExpBufferChar(buf, '}');
}

/*
 * Does a setting the harness changed still differ from its files until a
 * restart?  A postmaster-context setting set back to its old value shows
 * as "setting could not be applied" in pg_file_settings, one RESET back to
 * its default as pending_restart in pg_settings (it has no file line).
 */
static int
restart_pending(WsbTarget *t, bool *pending, char *err, size_t errlen)
{
	PQExpBufferData list;
	const char *p[1];
	WsbRows		r;
	int			rc;

	initPQExpBuffer(&list);
	append_name_array(&list, t->nchanged, t->changed, NULL, false);
	if (PQExpBufferDataBroken(list))
	{
		snprintf(err, errlen, "out of memory");
		termPQExpBuffer(&list);
		return -1;
	}
	p[0] = list.data;
	rc = wsb_sql_rows(t->conn,
					 "SELECT name FROM pg_catalog.pg_settings WHERE pending_restart "
					 "AND pg_catalog.lower(name) = ANY (SELECT pg_catalog.lower(x) "
					 "FROM pg_catalog.unnest($1::pg_catalog.text[]) x) "
					 "UNION SELECT name FROM pg_catalog.pg_file_settings "
					 "WHERE error = 'setting could not be applied' "
					 "AND pg_catalog.lower(name) = ANY (SELECT pg_catalog.lower(x) "
					 "FROM pg_catalog.unnest($1::pg_catalog.text[]) x)",
					 1, p, &r, err, errlen);
	termPQExpBuffer(&list);
	if (rc != 0)
		return -1;
	*pending = r.nrows > 0;
	wsb_rows_free(&r);
	return 0;
}

/*
 * Say that changed setting i's entry was written by someone else during
 * the run and stays as they left it.  Always said, --quiet or not: the
 * restore did not do what restore.sql says.
 */
static void
say_kept(const WsbTarget *t, int i, const char *now)
{
	fprintf(stderr, "wal_stall_bench: %s changed during the run by someone else: kept as they "
			"left it in postgresql.auto.conf (%s%s%s), not restored to %s%s%s\n",
			t->changed[i], now ? "'" : "", now ? now : "no entry", now ? "'" : "",
			t->orig_auto[i] ? "'" : "", t->orig_auto[i] ? t->orig_auto[i] : "no entry",
			t->orig_auto[i] ? "'" : "");
}

/*
 * Put back changed setting i's entry of postgresql.auto.conf, as
 * wsb_restore_action (autoconf.c) decides from what the file holds now.
 */
static int
restore_one(WsbTarget *t, int i, char *err, size_t errlen)
{
	char	   *now;
	char	   *sql = NULL;
	char		msg[512];
	int			rc = 0;

	if (auto_conf_now(t, t->changed[i], &now, msg, sizeof(msg)) != 0)
	{
		snprintf(err, errlen, "could not read the entry of %s in postgresql.auto.conf: %s",
				 t->changed[i], msg);
		return -1;
	}
	switch (wsb_restore_action(t->orig_auto[i], t->auto_ours[i], now))
	{
		case WSB_RESTORE_NOTHING:
			break;
		case WSB_RESTORE_KEEP:
			say_kept(t, i, now);
			break;
		case WSB_RESTORE_SET:
		case WSB_RESTORE_RESET:
			sql = restore_statement(t->conn, t->changed[i], t->orig_auto[i]);
			if (sql == NULL)
			{
				snprintf(err, errlen, "could not restore %s: ALTER SYSTEM cannot write its old value '%.200s'",
						 t->changed[i], t->orig_auto[i] ? t->orig_auto[i] : "");
				rc = -1;
			}
			else if (wsb_sql_exec(t->conn, sql, msg, sizeof(msg)) != 0)
			{
				snprintf(err, errlen, "could not restore: %.200s: %.250s", sql, msg);
				rc = -1;
			}
			break;
	}
	free(sql);
	free(now);
	return rc;
}

/*
 * Give postgresql.auto.conf its old order again: the entries that
 * wsb_auto_conf_moves (autoconf.c) says moved are written again, each with
 * the value the file holds now, so that no value changes, a DBA's
 * included.  Every ALTER SYSTEM SET, the harness's and the restore's,
 * moved an entry to the end of the file.
 */
static int
restore_order(WsbTarget *t, char *err, size_t errlen)
{
	WsbRows		r;
	const char **now;
	int		   *move;
	int			n,
				rc = 0;
	char		msg[512];

	if (auto_conf_rows(t, NULL, &r, err, errlen) != 0)
		return -1;
	now = wsb_xcalloc(r.nrows + 1, sizeof(char *));
	move = wsb_xcalloc(r.nrows + 1, sizeof(int));
	for (int i = 0; i < r.nrows; i++)
		now[i] = r.cells[i][0] ? r.cells[i][0] : "";
	n = wsb_auto_conf_moves((const char *const *) t->auto_names, t->nauto,
							now, r.nrows, move);
	if (n < 0)
	{
		snprintf(err, errlen, "could not put the entries of postgresql.auto.conf back in order: out of memory");
		rc = -1;
	}
	for (int k = 0; k < n && rc == 0; k++)
	{
		const char *name = now[move[k]];
		const char *value = r.cells[move[k]][1] ? r.cells[move[k]][1] : "";
		char	   *sql = restore_statement(t->conn, name, value);

		if (sql == NULL)
		{
			snprintf(err, errlen, "could not put the entries of postgresql.auto.conf back in order: "
					 "ALTER SYSTEM cannot write the value of %s ('%.200s')", name, value);
			rc = -1;
		}
		else if (wsb_sql_exec(t->conn, sql, msg, sizeof(msg)) != 0)
		{
			snprintf(err, errlen, "could not restore: %.200s: %.250s", sql, msg);
			rc = -1;
		}
		free(sql);
	}
	free(now);
	free(move);
	wsb_rows_free(&r);
	return rc;
}

/*
 * Put the changed settings back as they were in postgresql.auto.conf, and
 * make the server use them: a reload always (also after a failed
 * statement), and a restart of a server that was running when the harness
 * came if a restored setting needs one, so that nothing is left pending.
 */
int
wsb_settings_restore(WsbTarget *t, char *err, size_t errlen)
{
	int			failed = 0;
	char		msg[512];
	bool		pending = false;

	for (int i = 0; i < t->nchanged; i++)
		if (t->was_set[i] &&
			restore_one(t, i, failed ? msg : err, failed ? sizeof(msg) : errlen) != 0)
			failed = 1;
	if (!failed && restore_order(t, err, errlen) != 0)
		failed = 1;
	if (reload_and_wait(t, false, failed ? msg : err, failed ? sizeof(msg) : errlen) != 0)
		return -1;
	if (failed)
		return -1;
	if (t->temporary || !t->was_running)
		return 0;				/* stopped at the end anyway */
	if (restart_pending(t, &pending, err, errlen) != 0)
		return -1;
	if (pending)
	{
		wsb_note("restarting the server: a restored setting takes effect only at a restart");
		return wsb_control_restart(t, err, errlen);
	}
	return 0;
}

/* Is name among the settings the harness will change (names and --set)? */
static bool
will_change(const WsbTarget *t, int n, char names[][WSB_NAME_LEN], const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcasecmp(names[i], name) == 0)
			return true;
	for (int i = 0; i < t->opts->nsets; i++)
		if (strcasecmp(t->opts->sets[i].name, name) == 0)
			return true;
	return false;
}

/*
 * Can postgresql.auto.conf be put back exactly once the harness changed
 * the settings names (n of them) and the --set ones?  Every entry from the
 * first one the harness changes on may be written again (ALTER SYSTEM SET
 * moves an entry to the end of the file), and an empty list cannot be
 * written (autoconf.c): such a cluster is refused before anything
 * changes, with what to do about it.
 */
int
wsb_settings_check_restorable(const WsbTarget *t, int n, char names[][WSB_NAME_LEN],
							  char *err, size_t errlen)
{
	int			first = -1;

	for (int a = 0; a < t->nauto && first < 0; a++)
		if (will_change(t, n, names, t->auto_names[a]))
			first = a;
	for (int a = first < 0 ? t->nauto : first; a < t->nauto; a++)
	{
		const char *name = t->auto_names[a];
		char		why[WSB_NAME_LEN + 160];

		if (!wsb_auto_conf_empty_list(name, t->auto_values[a]))
			continue;
		if (will_change(t, n, names, name))
			snprintf(why, sizeof(why), "which the harness, changing %s, could not write back", name);
		else
			snprintf(why, sizeof(why), "which the harness could not write again after changing %s, "
					 "an entry before it (every ALTER SYSTEM SET moves its entry to the end of the "
					 "file)", t->auto_names[first]);
		snprintf(err, errlen,
				 "cannot benchmark the cluster at \"%s\": its postgresql.auto.conf sets %s to the "
				 "empty list (''), %s: ALTER SYSTEM writes '' as one empty element, and RESET "
				 "removes the line; nothing was changed.  If the server should take "
				 "postgresql.conf's value, remove the line (ALTER SYSTEM RESET %s) and run again",
				 t->pgdata, name, why, name);
		return -1;
	}
	return 0;
}

static int	apply_and_check(WsbTarget *t, const char *set_list, const char *reset_list,
							char *err, size_t errlen);

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
	bool		reset[WSB_MAX_SETS + 8];
	PQExpBufferData set_list,
				reset_list;
	int			rc;

	if (n == 0)
		return 0;
	if (ensure_connected(t, err, errlen) != 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (alter_system(t, names[i], values[i], &reset[i], err, errlen) != 0)
			return -1;
	initPQExpBuffer(&set_list);
	initPQExpBuffer(&reset_list);
	append_name_array(&set_list, n, names, reset, false);
	append_name_array(&reset_list, n, names, reset, true);
	if (PQExpBufferDataBroken(set_list) || PQExpBufferDataBroken(reset_list))
	{
		snprintf(err, errlen, "out of memory");
		rc = -1;
	}
	else
		rc = apply_and_check(t, set_list.data, reset_list.data, err, errlen);
	termPQExpBuffer(&set_list);
	termPQExpBuffer(&reset_list);
	return rc;
}

/*
 * wsb_settings_apply's reload, restart and checks, once ALTER SYSTEM has
 * run: set_list and reset_list are text[] literals of the names set and
 * reset.
 */
static int
apply_and_check(WsbTarget *t, const char *set_list, const char *reset_list,
				char *err, size_t errlen)
{
	WsbRows		r;
	bool		restart = false;
	const char *p[1];

	if (reload_and_wait(t, true, err, errlen) != 0)
		return -1;

	p[0] = set_list;
	if (wsb_sql_rows(t->conn,
					 "SELECT name, error FROM pg_catalog.pg_file_settings f "
					 "WHERE pg_catalog.lower(name) = ANY (SELECT pg_catalog.lower(x) "
					 "FROM pg_catalog.unnest($1::pg_catalog.text[]) x) "
					 "AND error IS NOT NULL "
					 "AND seqno = (SELECT pg_catalog.max(seqno) FROM pg_catalog.pg_file_settings g "
					 "WHERE g.name = f.name)",
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
	if (wsb_sql_rows(t->conn, "SELECT name FROM pg_catalog.pg_settings WHERE pending_restart "
					 "AND pg_catalog.lower(name) = ANY (SELECT pg_catalog.lower(x) "
					 "FROM pg_catalog.unnest($1::pg_catalog.text[]) x)",
					 1, p, &r, err, errlen) != 0)
		return -1;
	restart |= r.nrows > 0;
	wsb_rows_free(&r);
	if (restart && wsb_control_restart(t, err, errlen) != 0)
		return -1;

	p[0] = set_list;
	if (wsb_sql_rows(t->conn,
					 "SELECT name, setting, error FROM pg_catalog.pg_file_settings f "
					 "WHERE pg_catalog.lower(name) = ANY (SELECT pg_catalog.lower(x) "
					 "FROM pg_catalog.unnest($1::pg_catalog.text[]) x) "
					 "AND seqno = (SELECT pg_catalog.max(seqno) FROM pg_catalog.pg_file_settings g "
					 "WHERE g.name = f.name) "
					 "AND NOT (applied AND sourcefile LIKE '%/postgresql.auto.conf'::pg_catalog.text)",
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
	if (wsb_sql_rows(t->conn, "SELECT name, setting FROM pg_catalog.pg_settings "
					 "WHERE setting <> ''::pg_catalog.text "
					 "AND pg_catalog.lower(name) = ANY (SELECT pg_catalog.lower(x) "
					 "FROM pg_catalog.unnest($1::pg_catalog.text[]) x)",
					 1, p, &r, err, errlen) != 0)
		return -1;
	if (r.nrows > 0)
	{
		snprintf(err, errlen, "cannot make %s empty: ALTER SYSTEM RESET leaves it '%s' from the "
				 "configuration files (ALTER SYSTEM cannot write an empty list)",
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

static void
free_values(char **values, int n)
{
	for (int i = 0; values && i < n; i++)
		free(values[i]);
	free(values);
}

/*
 * Is name a setting the server knows and lets change?  Custom "prefix.name"
 * settings pass here; ALTER SYSTEM then says whether the prefix takes them.
 * what says where the name came from ("--set wal_buffers", "preset conf").
 */
static int
check_setting_name(WsbTarget *t, const char *name, const char *what, char *err, size_t errlen)
{
	const char *p[1] = {name};
	char		version[64] = "";
	char		msg[512];
	WsbRows		r;
	int			rc = 0;

	if (wsb_sql_rows(t->conn, "SELECT context FROM pg_catalog.pg_settings "
					 "WHERE pg_catalog.lower(name) = pg_catalog.lower($1::pg_catalog.text)",
					 1, p, &r, err, errlen) != 0)
		return -1;
	if (r.nrows == 0 && strchr(name, '.') == NULL)
	{
		wsb_sql_value(t->conn, "SELECT pg_catalog.current_setting('server_version'::pg_catalog.text)",
					  NULL, version, sizeof(version), msg, sizeof(msg));
		snprintf(err, errlen, "%s: unknown setting \"%s\" (not in pg_settings of PostgreSQL %s)",
				 what, name, version);
		rc = -1;
	}
	else if (r.nrows > 0 && strcmp(r.cells[0][0], "internal") == 0)
	{
		snprintf(err, errlen, "%s: \"%s\" cannot be changed (an internal setting)", what, name);
		rc = -1;
	}
	wsb_rows_free(&r);
	return rc;
}

/*
 * Check every --set setting and value, and every preset conf name, before
 * any run: the name must be in pg_settings (custom "prefix.name" settings
 * excepted) and ALTER SYSTEM must accept each value; the file is put back
 * afterwards.
 */
int
wsb_target_check_settings(WsbTarget *t, const WsbPlan *plan, char *err, size_t errlen)
{
	const WsbOptions *o = t->opts;
	bool		reset;
	char		msg[512];
	char	  **before = NULL;	/* each --set name's auto.conf text before */
	char	   *conf = wsb_xstrdup(o->extra_conf),
			   *line,
			   *save = NULL;

	for (line = strtok_r(conf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
	{
		char	   *eq = strchr(line, '=');

		if (eq == NULL)
			continue;
		*eq = '\0';
		if (check_setting_name(t, wsb_trim(line), "preset conf", err, errlen) != 0)
		{
			free(conf);
			return -1;
		}
	}
	free(conf);
	before = wsb_xcalloc(o->nsets + 1, sizeof(char *));
	for (int i = 0; i < o->nsets; i++)
	{
		char		what[WSB_NAME_LEN + 8];

		snprintf(what, sizeof(what), "--set %s", o->sets[i].name);
		if (check_setting_name(t, o->sets[i].name, what, err, errlen) != 0 ||
			(!t->temporary && auto_conf_now(t, o->sets[i].name, &before[i], err, errlen) != 0))
			goto fail;
		for (int v = 0; v < o->sets[i].nvalues; v++)
			if (alter_system(t, o->sets[i].name, o->sets[i].values[v], &reset, msg, sizeof(msg)) != 0)
			{
				snprintf(err, errlen, "--set %s=%s: %s", o->sets[i].name, o->sets[i].values[v],
						 strchr(msg, ':') ? strchr(msg, ':') + 2 : msg);
				goto fail;
			}
	}
	/*
	 * Back as before, without a reload: nothing took effect.  Only the --set
	 * names, each to the text postgresql.auto.conf held just before: the
	 * harness's own settings (wal_stall preloaded, WAL I/O timed) were
	 * applied already and must stay.
	 */
	for (int i = 0; i < o->nsets; i++)
	{
		char	   *sql;
		int			rc;

		if (t->temporary && before[i] == NULL)
			continue;			/* a later apply sets it anyway */
		sql = restore_statement(t->conn, o->sets[i].name, before[i]);
		rc = sql ? wsb_sql_exec(t->conn, sql, err, errlen) : -1;
		free(sql);
		if (rc == 0 && changed_index(t, o->sets[i].name) >= 0)
			rc = remember_ours(t, changed_index(t, o->sets[i].name), err, errlen);
		if (rc != 0)
			goto fail;
	}
	free_values(before, o->nsets);
	(void) plan;
	return 0;

fail:
	free_values(before, o->nsets);
	return -1;
}
