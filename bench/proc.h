/*-------------------------------------------------------------------------
 *
 * proc.h
 *		wal_stall_bench, proc.c: the one way to run a program (as a user, in a
 *		cgroup, in a directory, its output into files or captured), to wait
 *		for it with a timeout, and to stop it (a signal, a grace period,
 *		then SIGKILL).  Depends on libc only.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WSB_PROC_H
#define WSB_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * What to run and how.  uid/gid: -1 for ourselves, else the child drops to
 * that user (with its groups, HOME, USER and LOGNAME) before exec (we are
 * root), and only then opens stdout_path and stderr_path, with that user's
 * rights.  Those are never followed when they are symbolic links; a file
 * not appended to is made anew (the old name removed, then O_EXCL).  Children get their own process group, so a Ctrl-C on the
 * terminal reaches only the harness, which then stops them itself; they
 * get SIGTERM when the harness dies.  cgroup_procs: a cgroup.procs file
 * the child writes its own pid into before exec (so everything it starts
 * is in the cgroup), or NULL.
 */
typedef struct WsbCommand
{
	char	   *argv[96];
	int			argc;
	int			error;			/* errno of a failed wsb_cmd_add (E2BIG: argv is
								 * full): wsb_cmd_start then fails with it */
	uid_t		uid;			/* (uid_t) -1: keep */
	gid_t		gid;
	const char *stdout_path;	/* NULL: /dev/null */
	const char *stderr_path;	/* NULL: same as stdout */
	bool		stdout_append;
	const char *cgroup_procs;
	const char *cwd;			/* NULL: ours, or "/" for another user */
} WsbCommand;

extern void wsb_cmd_init(WsbCommand *cmd, uid_t uid, gid_t gid);
extern void wsb_cmd_add(WsbCommand *cmd, const char *fmt,...) __attribute__((format(printf, 2, 3)));
extern void wsb_cmd_free(WsbCommand *cmd);

/* the umask of every child (the harness's own may be tighter) */
extern void wsb_proc_keep_umask(mode_t mask);

/* fn(arg) in a child that is uid/gid: 0 when it returned 0, else -1 */
extern int	wsb_run_as_user(uid_t uid, gid_t gid, int (*fn) (void *arg), void *arg);

/* the child's pid; -1 with errno on failure */
extern pid_t wsb_cmd_start(WsbCommand *cmd);

/*
 * Run and capture stdout whole, its trailing newlines cut, into *out
 * (malloc'd, the caller frees it; "" when the command could not run);
 * stderr goes to stderr_path (appended) or stays ours.  The exit status
 * as wsb_cmd_wait returns it, or -1.
 */
extern int	wsb_cmd_output(WsbCommand *cmd, char **out);

/* start + wait: the exit status, 128+signal, or -1 */
extern int	wsb_cmd_run(WsbCommand *cmd);

/* Wait until pid exits: its exit status, 128+signal, or -1. */
extern int	wsb_cmd_wait(pid_t pid);

/*
 * Wait up to timeout seconds (0: only look; < 0: as long as it takes) for
 * pid to exit.  1: it exited, *status holds waitpid's status; 0: still
 * running; -1: waitpid failed (errno).
 */
extern int	wsb_proc_wait(pid_t pid, double timeout, int *status);

/*
 * Stop pid: send sig (to its process group too when group), wait up to
 * grace seconds, then SIGKILL (the group's stragglers too when group) and
 * reap it.  waitpid's status, or -1 when it could not be reaped.
 */
extern int	wsb_proc_stop(pid_t pid, int sig, double grace, bool group);

/* prog in a PATH directory (empty entries skipped) */
extern bool wsb_which_on_path(const char *prog, char *path, size_t len);

/* prog on PATH, else in /usr/sbin, /sbin, /usr/bin or /bin */
extern bool wsb_which(const char *prog, char *path, size_t len);

#endif							/* WSB_PROC_H */
