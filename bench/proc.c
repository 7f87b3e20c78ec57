/*-------------------------------------------------------------------------
 *
 * proc.c
 *		wal_stall_bench: running programs.  Every child the harness starts
 *		(pgbench, pg_ctl, bpftrace, gnuplot, pg_config, mount...) is
 *		started, waited for and stopped here, so that each gets the same
 *		process group, signals, user, cgroup and parent-death signal.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#define _GNU_SOURCE				/* vasprintf */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proc.h"
#include "wsb.h"

/* how often a wait with a timeout looks at the child */
#define WSB_PROC_POLL_SECONDS 0.05

void
wsb_cmd_init(WsbCommand *cmd, uid_t uid, gid_t gid)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->uid = uid;
	cmd->gid = gid;
}

void
wsb_cmd_add(WsbCommand *cmd, const char *fmt,...)
{
	va_list		ap;
	char	   *arg;

	if (cmd->error)
		return;
	if (cmd->argc >= (int) (sizeof(cmd->argv) / sizeof(cmd->argv[0])) - 1)
	{
		cmd->error = E2BIG;
		return;
	}
	va_start(ap, fmt);
	if (vasprintf(&arg, fmt, ap) < 0)
	{
		cmd->error = ENOMEM;
		arg = NULL;
	}
	va_end(ap);
	if (arg == NULL)
		return;
	cmd->argv[cmd->argc++] = arg;
	cmd->argv[cmd->argc] = NULL;
}

void
wsb_cmd_free(WsbCommand *cmd)
{
	for (int i = 0; i < cmd->argc; i++)
		free(cmd->argv[i]);
	cmd->argc = 0;
}

/*
 * The umask children run under: the one the harness was started with, not
 * the tighter one it keeps for its own files (wsb_proc_keep_umask).
 */
static mode_t child_umask = 022;

void
wsb_proc_keep_umask(mode_t mask)
{
	child_umask = mask;
}

/*
 * Open fd's file in the child and put it in place; exits the child when
 * it cannot be opened.  Opened after the child became its user (for a
 * child of another user), so that its files are made with that user's
 * rights alone.  A symbolic link at the name is refused (O_NOFOLLOW), and
 * a file made anew is made by O_EXCL after the old name is removed: the
 * directories a root child writes in are root's own, and a planted link
 * there is never followed.
 */
static void
child_redirect(int fd, const char *path, bool append)
{
	int			f;

	if (path == NULL || strcmp(path, "/dev/null") == 0)
		f = open("/dev/null", O_WRONLY);
	else if (append)
		f = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0600);
	else
	{
		if (unlink(path) != 0 && errno != ENOENT)
			f = -1;
		else
			f = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
	}
	if (f < 0)
	{
		fprintf(stderr, "could not open \"%s\": %s\n", path ? path : "/dev/null", strerror(errno));
		_exit(126);
	}
	if (f != fd)
	{
		dup2(f, fd);
		close(f);
	}
}

/* stdin from /dev/null; stdout into capture_fd (>= 0) or the files */
static void
child_files(const WsbCommand *cmd, int capture_fd)
{
	int			null = open("/dev/null", O_RDONLY);

	if (null >= 0 && null != 0)
	{
		dup2(null, 0);
		close(null);
	}
	if (capture_fd >= 0)
	{
		dup2(capture_fd, 1);
		close(capture_fd);
		if (cmd->stderr_path)
			child_redirect(2, cmd->stderr_path, true);
		return;
	}
	if (cmd->stdout_path || !cmd->stderr_path)
		child_redirect(1, cmd->stdout_path, cmd->stdout_append);
	if (cmd->stderr_path && !(cmd->stdout_path && strcmp(cmd->stderr_path, cmd->stdout_path) == 0))
		child_redirect(2, cmd->stderr_path, cmd->stdout_append);
	else
		dup2(1, 2);				/* one file for both, opened once */
}

/* Before the user changes: root may write any cgroup's procs file. */
static void
child_enter_cgroup(const char *procs)
{
	FILE	   *f = fopen(procs, "w");

	if (f == NULL || fprintf(f, "%d\n", (int) getpid()) < 0 || fclose(f) != 0)
	{
		fprintf(stderr, "could not enter cgroup \"%s\": %s\n", procs, strerror(errno));
		_exit(126);
	}
}

/*
 * A child that runs as another user gets none of our environment, which
 * may hold root's secrets and which that user could read in
 * /proc/PID/environ (a server it starts keeps it): only the locale and
 * time zone, which shape initdb's cluster and pgbench's output, and a
 * PATH of the system's own.  Every connection detail the harness passes
 * as an argument.
 */
static void
child_clean_environment(void)
{
	char	   *kept[64];
	int			nkept = 0;

	for (char **e = environ; *e && nkept < (int) (sizeof(kept) / sizeof(kept[0])); e++)
		if (strncmp(*e, "LC_", 3) == 0 || strncmp(*e, "LANG=", 5) == 0 ||
			strncmp(*e, "LANGUAGE=", 9) == 0 || strncmp(*e, "TZ=", 3) == 0)
			kept[nkept++] = strdup(*e);
	clearenv();
	for (int i = 0; i < nkept; i++)
		if (kept[i])
			putenv(kept[i]);
	setenv("PATH", "/usr/local/bin:/usr/bin:/bin", 1);
}

/*
 * Become uid/gid, with that user's supplementary groups and HOME, USER and
 * LOGNAME in a clean environment (child_clean_environment); without a
 * passwd entry, with no supplementary group at all (not root's) and
 * HOME=/.  Any step that fails ends the child.
 */
static void
child_become_user(uid_t uid, gid_t gid)
{
	struct passwd *pw = getpwuid(uid);
	int			rc;

	child_clean_environment();
	if (pw)
	{
		rc = initgroups(pw->pw_name, gid);
		setenv("HOME", pw->pw_dir, 1);
		setenv("USER", pw->pw_name, 1);
		setenv("LOGNAME", pw->pw_name, 1);
	}
	else
	{
		rc = setgroups(0, NULL);
		setenv("HOME", "/", 1);
		unsetenv("USER");
		unsetenv("LOGNAME");
	}
	if (rc != 0)
	{
		fprintf(stderr, "could not set the groups of user %d: %s\n", (int) uid, strerror(errno));
		_exit(126);
	}
	if (setgid(gid) != 0 || setuid(uid) != 0)
	{
		fprintf(stderr, "could not become user %d: %s\n", (int) uid, strerror(errno));
		_exit(126);
	}
}

/*
 * In a child, after its user is set (a change of credentials clears the
 * setting): SIGTERM when the harness dies, so that a harness killed with
 * SIGKILL leaves no pgbench or bpftrace running.  A server that pg_ctl
 * starts is pg_ctl's child's child and does not inherit it.
 */
static void
child_die_with_parent(pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(126);				/* the harness died before the line above */
}

/* In the child: set everything up and exec; never returns. */
static void
child_exec(const WsbCommand *cmd, pid_t parent, int capture_fd)
{
	sigset_t	none;
	bool		other_user = cmd->uid != (uid_t) -1 && cmd->uid != geteuid();

	setpgid(0, 0);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	umask(child_umask);
	if (cmd->cgroup_procs)
		child_enter_cgroup(cmd->cgroup_procs);
	if (other_user)
		child_become_user(cmd->uid, cmd->gid);
	/* as the user: its output files are made with its rights */
	child_files(cmd, capture_fd);
	/* ours may be a directory the user cannot enter */
	if ((cmd->cwd || other_user) && chdir(cmd->cwd ? cmd->cwd : "/") != 0)
		_exit(126);
	child_die_with_parent(parent);
	execv(cmd->argv[0], cmd->argv);
	fprintf(stderr, "could not execute \"%s\": %s\n", cmd->argv[0], strerror(errno));
	_exit(127);
}

/* fork and exec; capture_fd >= 0: the write end of a pipe for stdout */
static pid_t
spawn(const WsbCommand *cmd, int capture_fd, int close_fd)
{
	pid_t		pid;
	pid_t		parent = getpid();

	if (cmd->error)
	{
		errno = cmd->error;
		return -1;
	}
	if (cmd->argc == 0)
	{
		errno = EINVAL;
		return -1;
	}
	/* nothing buffered is written twice, nor left behind for the child */
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
	{
		if (close_fd >= 0)
			close(close_fd);
		child_exec(cmd, parent, capture_fd);
	}
	setpgid(pid, pid);
	return pid;
}

pid_t
wsb_cmd_start(WsbCommand *cmd)
{
	return spawn(cmd, -1, -1);
}

/*
 * Call fn(arg) in a child that became uid/gid first (or stays ourselves
 * when uid is ours): what must be done with only that user's rights, like
 * removing a tree that user could change under us.  fn's result (0 ok) or
 * -1 when the child could not be started or did not end normally.
 */
int
wsb_run_as_user(uid_t uid, gid_t gid, int (*fn) (void *arg), void *arg)
{
	pid_t		pid;
	int			status;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
	{
		if (uid != geteuid())
			child_become_user(uid, gid);
		if (chdir("/") != 0)
			_exit(126);
		_exit(fn(arg) == 0 ? 0 : 1);
	}
	if (wsb_proc_wait(pid, -1, &status) != 1 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int
exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -1;
}

int
wsb_cmd_wait(pid_t pid)
{
	int			status;

	if (wsb_proc_wait(pid, -1, &status) != 1)
		return -1;
	return exit_code(status);
}

int
wsb_cmd_run(WsbCommand *cmd)
{
	pid_t		pid = wsb_cmd_start(cmd);

	if (pid < 0)
		return -1;
	return wsb_cmd_wait(pid);
}

int
wsb_cmd_output(WsbCommand *cmd, char **out)
{
	int			fds[2];
	pid_t		pid;
	size_t		n = 0,
				cap = 256;
	ssize_t		got;
	char	   *buf = wsb_xmalloc(cap);

	buf[0] = '\0';
	*out = buf;
	if (pipe(fds) != 0)
		return -1;
	pid = spawn(cmd, fds[1], fds[0]);
	close(fds[1]);
	if (pid < 0)
	{
		close(fds[0]);
		return -1;
	}
	/* read to the end, so the child never blocks on a full pipe */
	for (;;)
	{
		if (n == cap - 1)
			*out = buf = wsb_xrealloc(buf, cap *= 2);
		got = read(fds[0], buf + n, cap - 1 - n);
		if (got == 0 || (got < 0 && errno != EINTR))
			break;
		if (got > 0)
			n += got;
	}
	close(fds[0]);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		buf[--n] = '\0';
	return wsb_cmd_wait(pid);
}

static double
monotonic_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
wsb_proc_wait(pid_t pid, double timeout, int *status)
{
	double		until = monotonic_now() + timeout;

	if (timeout < 0)
	{
		while (waitpid(pid, status, 0) < 0)
			if (errno != EINTR)
				return -1;
		return 1;
	}
	for (;;)
	{
		pid_t		w = waitpid(pid, status, WNOHANG);
		double		left = until - monotonic_now();
		struct timespec ts;

		if (w == pid)
			return 1;
		if (w < 0 && errno != EINTR)
			return -1;
		if (left <= 0)
			return 0;
		if (left > WSB_PROC_POLL_SECONDS)
			left = WSB_PROC_POLL_SECONDS;
		ts.tv_sec = 0;
		ts.tv_nsec = (long) (left * 1e9);
		nanosleep(&ts, NULL);
	}
}

int
wsb_proc_stop(pid_t pid, int sig, double grace, bool group)
{
	int			status = 0;
	int			waited;

	if (pid <= 0)
		return -1;
	if (group)
		kill(-pid, sig);
	kill(pid, sig);
	waited = wsb_proc_wait(pid, grace, &status);
	/* a group's other members may outlive its leader */
	if (group)
		kill(-pid, SIGKILL);
	if (waited == 0)
	{
		kill(pid, SIGKILL);
		waited = wsb_proc_wait(pid, -1, &status);
	}
	return waited == 1 ? status : -1;
}

/*
 * dir/prog into path when it is executable.  A name longer than PATH_MAX
 * or than path is passed over: a truncated name is not what was found.
 * path is left as it was when nothing is found.
 */
static bool
try_dir(const char *dir, size_t dirlen, const char *prog, char *path, size_t len)
{
	char		buf[PATH_MAX];
	int			n = snprintf(buf, sizeof(buf), "%.*s/%s", (int) dirlen, dir, prog);

	if (dirlen == 0 || n < 0 || (size_t) n >= sizeof(buf) || (size_t) n >= len ||
		access(buf, X_OK) != 0)
		return false;
	memcpy(path, buf, n + 1);
	return true;
}

bool
wsb_which_on_path(const char *prog, char *path, size_t len)
{
	const char *p = getenv("PATH");

	while (p && *p)
	{
		const char *colon = strchr(p, ':');
		size_t		dl = colon ? (size_t) (colon - p) : strlen(p);

		if (try_dir(p, dl, prog, path, len))
			return true;
		p = colon ? colon + 1 : NULL;
	}
	return false;
}

bool
wsb_which(const char *prog, char *path, size_t len)
{
	const char *dirs[] = {"/usr/sbin", "/sbin", "/usr/bin", "/bin", NULL};

	if (wsb_which_on_path(prog, path, len))
		return true;
	for (int i = 0; dirs[i]; i++)
		if (try_dir(dirs[i], strlen(dirs[i]), prog, path, len))
			return true;
	return false;
}
