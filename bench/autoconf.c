/*-------------------------------------------------------------------------
 *
 * autoconf.c
 *		wal_stall_bench: what postgresql.auto.conf must look like again after
 *		the runs, decided without a server (settings.c asks the server and
 *		runs the statements).
 *
 * Three things live here because they must be exact and can be tested
 * alone: PostgreSQL's list of the settings whose list elements it quotes
 * (GUC_LIST_QUOTE); per setting the harness changed, what the restore
 * does with its entry in postgresql.auto.conf; and which entries must move
 * for the file to have its old order again.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine.h"

/*
 * The settings PostgreSQL marks GUC_LIST_QUOTE, of every major the harness
 * supports (13 to 19): core's guc_tables.c (guc_parameters.dat from 19
 * on) and pg_dump's variable_is_guc_list_quote() in dumputils.c.
 * oauth_validator_libraries exists from 18 on; output_plugin_libraries
 * is in the 15.20 server of Debian 12 (guc.c there; it is not in master's
 * guc_parameters.dat), which bench/t/restore.sh found.  A name a server
 * does not know is never asked about.  bench/t/restore.sh finds the
 * list-quoted settings of the server under test by asking it, and fails
 * when one is missing here.  Extensions cannot define GUC_LIST_QUOTE
 * settings (core refuses them), so core's list is the whole list.
 */
const char *const wsb_list_quote_settings[] = {
	"local_preload_libraries",
	"oauth_validator_libraries",
	"output_plugin_libraries",
	"search_path",
	"session_preload_libraries",
	"shared_preload_libraries",
	"temp_tablespaces",
	"unix_socket_directories",
	NULL
};

/*
 * Does PostgreSQL quote name's list elements?  For such a setting a single
 * literal 'a,b' would be the one element "a,b": its elements go to ALTER
 * SYSTEM one literal each.
 */
bool
wsb_guc_list_quote(const char *name)
{
	for (int i = 0; wsb_list_quote_settings[i]; i++)
		if (strcasecmp(name, wsb_list_quote_settings[i]) == 0)
			return true;
	return false;
}

/*
 * Is value, postgresql.auto.conf's entry for name, the empty list?
 * ALTER SYSTEM cannot write one: SET name = '' makes a list of one empty
 * element ('""'), and RESET removes the entry, which lets
 * postgresql.conf's value take effect.  So the harness cannot put such an
 * entry back once it has changed it.
 */
bool
wsb_auto_conf_empty_list(const char *name, const char *value)
{
	return value != NULL && value[0] == '\0' && wsb_guc_list_quote(name);
}

/* Two entries of postgresql.auto.conf, NULL for none, the same? */
static bool
same_entry(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

/*
 * What the restore does with one setting the harness changed, from its
 * entry in postgresql.auto.conf (the value as pg_file_settings reads it,
 * NULL for no entry) at three moments: before the harness's first change
 * (before), just after the harness's last ALTER SYSTEM of it (ours), and
 * now.  An entry that is no longer ours was changed by someone else during
 * the run (a DBA's ALTER SYSTEM): it is theirs and stays, unless it is
 * back to what it was before anyway.
 */
WsbRestoreAction
wsb_restore_action(const char *before, const char *ours, const char *now)
{
	if (same_entry(now, before))
		return WSB_RESTORE_NOTHING;
	if (!same_entry(now, ours))
		return WSB_RESTORE_KEEP;
	return before ? WSB_RESTORE_SET : WSB_RESTORE_RESET;
}

/* Is name among names[0..n-1] (case-insensitively, as GUC names)? */
static int
name_index(const char *const *names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcasecmp(names[i], name) == 0)
			return i;
	return -1;
}

/*
 * Which entries of postgresql.auto.conf to write again, in which order,
 * for the file to have its old order once more.  ALTER SYSTEM SET takes a
 * setting's entry out of the file and appends the new one, so every
 * change, and every restore, moves an entry to the end; writing an entry
 * again with the value it holds moves it to the end without changing it.
 *
 * before: the entries' names in the file's order before the harness came;
 * now: in its order now, after the restore put the values back (so a
 * DBA's change made during the run is there too).  The order wanted is
 * before's names that are still there, then the names before did not have
 * (a DBA's new entries), in their order now.  The entries that stay are
 * the longest start of that order that now already has in that order;
 * the rest move, each to the end, in the order wanted.  Fills move[] (as
 * long as now) with indexes into now; returns how many.
 */
int
wsb_auto_conf_moves(const char *const *before, int nbefore, const char *const *now, int nnow,
					int *move)
{
	int		   *want = malloc((nnow ? nnow : 1) * sizeof(int));
	int			nwant = 0,
				keep = 0,
				at = 0;

	if (want == NULL)
		return -1;
	for (int b = 0; b < nbefore; b++)
	{
		int			i = name_index(now, nnow, before[b]);

		/* a name the file held twice (edited by hand) is placed once */
		if (i >= 0 && name_index(before, b, before[b]) < 0)
			want[nwant++] = i;
	}
	for (int i = 0; i < nnow; i++)
		if (name_index(before, nbefore, now[i]) < 0)
			want[nwant++] = i;
	/* the longest start of want that is a subsequence of now */
	for (int i = 0; i < nnow && keep < nwant; i++)
		if (want[keep] == i)
			keep++;
	for (int k = keep; k < nwant; k++)
		move[at++] = want[k];
	free(want);
	return at;
}
