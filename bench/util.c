/*-------------------------------------------------------------------------
 *
 * util.c
 *		wal_stall_bench: rows kept as text, messages, strings, files,
 *		running commands (as the cluster's owner, in a cgroup), and the
 *		cleanup list every created resource is registered in.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <ctype.h>

#include "engine.h"

volatile sig_atomic_t wsb_interrupted = 0;
bool		wsb_quiet = false;

/* ---------- rows ---------- */

int
wsb_rows_col(const WsbRows *rows, const char *name)
{
	for (int i = 0; i < rows->ncols; i++)
		if (strcmp(rows->names[i], name) == 0)
			return i;
	return -1;
}

const char *
wsb_rows_get(const WsbRows *rows, int row, const char *name)
{
	int			c = wsb_rows_col(rows, name);

	if (c < 0 || row < 0 || row >= rows->nrows)
		return NULL;
	return rows->cells[row][c];
}

double
wsb_rows_double(const WsbRows *rows, int row, const char *name, double if_null)
{
	const char *v = wsb_rows_get(rows, row, name);
	char	   *end;
	double		d;

	if (v == NULL || *v == '\0')
		return if_null;
	if (strcmp(v, "t") == 0)
		return 1;
	if (strcmp(v, "f") == 0)
		return 0;
	d = strtod(v, &end);
	return end == v ? if_null : d;
}

/*
 * Append the rows of from to into.  An empty into takes from's columns;
 * otherwise columns are matched by name (a column into lacks is dropped).
 */
void
wsb_rows_append(WsbRows *into, const WsbRows *from)
{
	int			n;

	if (from->nrows == 0 && into->ncols > 0)
		return;
	if (into->ncols == 0)
	{
		into->ncols = from->ncols;
		into->names = calloc(from->ncols ? from->ncols : 1, sizeof(char *));
		for (int i = 0; i < from->ncols; i++)
			into->names[i] = strdup(from->names[i]);
	}
	n = into->nrows + from->nrows;
	into->cells = realloc(into->cells, (n ? n : 1) * sizeof(char **));
	for (int r = 0; r < from->nrows; r++)
	{
		char	  **row = calloc(into->ncols ? into->ncols : 1, sizeof(char *));

		for (int c = 0; c < into->ncols; c++)
		{
			int			fc = wsb_rows_col(from, into->names[c]);

			if (fc >= 0 && from->cells[r][fc] != NULL)
				row[c] = strdup(from->cells[r][fc]);
		}
		into->cells[into->nrows + r] = row;
	}
	into->nrows = n;
}

void
wsb_rows_free(WsbRows *rows)
{
	for (int r = 0; r < rows->nrows; r++)
	{
		for (int c = 0; c < rows->ncols; c++)
			free(rows->cells[r][c]);
		free(rows->cells[r]);
	}
	for (int c = 0; c < rows->ncols; c++)
		free(rows->names[c]);
	free(rows->cells);
	free(rows->names);
	memset(rows, 0, sizeof(*rows));
}

/* ---------- messages and strings ---------- */

void
wsb_error(const char *fmt,...)
{
	va_list		ap;

	fputs("wal_stall_bench: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void
wsb_note(const char *fmt,...)
{
	va_list		ap;

	if (wsb_quiet)
		return;
	fputs("wal_stall_bench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void
wsb_strlcpy(char *dst, const char *src, size_t size)
{
	size_t		n = strlen(src);

	if (size == 0)
		return;
	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

char *
wsb_trim(char *s)
{
	char	   *e;

	while (isspace((unsigned char) *s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char) e[-1]))
		*--e = '\0';
	return s;
}

bool
wsb_parse_int(const char *s, int min, int max, int *out)
{
	char	   *end;
	long		v;

	if (s == NULL || *s == '\0')
		return false;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return false;
	*out = (int) v;
	return true;
}

char *
wsb_read_file(const char *path, size_t *len)
{
	FILE	   *f = fopen(path, "r");
	char	   *buf = NULL;
	size_t		n = 0,
				cap = 0,
				got;

	struct stat st;

	if (f == NULL)
		return NULL;
	/* a directory opens, and reads as empty: it is no file to read */
	if (fstat(fileno(f), &st) != 0 || S_ISDIR(st.st_mode))
	{
		fclose(f);
		errno = EISDIR;
		return NULL;
	}
	do
	{
		if (cap - n < 4096)
		{
			cap = cap ? cap * 2 : 8192;
			buf = realloc(buf, cap + 1);
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

int
wsb_write_file(const char *path, const char *text)
{
	FILE	   *f = fopen(path, "w");

	if (f == NULL)
		return -1;
	fputs(text, f);
	return fclose(f) == 0 ? 0 : -1;
}

double
wsb_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void
wsb_sleep(double seconds)
{
	double		until = wsb_now() + seconds;

	while (!wsb_interrupted)
	{
		double		left = until - wsb_now();
		struct timespec ts;

		if (left <= 0)
			break;
		if (left > 0.1)
			left = 0.1;
		ts.tv_sec = 0;
		ts.tv_nsec = (long) (left * 1e9);
		nanosleep(&ts, NULL);
	}
}

/* ---------- commands ---------- */

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
	char		buf[8192];

	if (cmd->argc >= (int) (sizeof(cmd->argv) / sizeof(cmd->argv[0])) - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	cmd->argv[cmd->argc++] = strdup(buf);
	cmd->argv[cmd->argc] = NULL;
}

void
wsb_cmd_free(WsbCommand *cmd)
{
	for (int i = 0; i < cmd->argc; i++)
		free(cmd->argv[i]);
	cmd->argc = 0;
}

static void
child_redirect(int fd, const char *path, bool append)
{
	int			f = open(path ? path : "/dev/null",
						 O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0644);

	if (f >= 0 && f != fd)
	{
		dup2(f, fd);
		close(f);
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

pid_t
wsb_cmd_start(WsbCommand *cmd)
{
	pid_t		pid;
	pid_t		parent = getpid();

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
	{
		sigset_t	none;

		setpgid(0, 0);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		child_redirect(0, "/dev/null", false);
		if (cmd->stdout_path || !cmd->stderr_path)
			child_redirect(1, cmd->stdout_path, cmd->stdout_append);
		if (cmd->stderr_path)
			child_redirect(2, cmd->stderr_path, cmd->stdout_append);
		else
			dup2(1, 2);
		if (cmd->cgroup_procs)
		{
			FILE	   *f = fopen(cmd->cgroup_procs, "w");

			if (f == NULL || fprintf(f, "%d\n", (int) getpid()) < 0 || fclose(f) != 0)
			{
				fprintf(stderr, "could not enter cgroup \"%s\": %s\n",
						cmd->cgroup_procs, strerror(errno));
				_exit(126);
			}
		}
		if (cmd->uid != (uid_t) -1 && cmd->uid != geteuid())
		{
			struct passwd *pw = getpwuid(cmd->uid);

			if (pw)
			{
				initgroups(pw->pw_name, cmd->gid);
				setenv("HOME", pw->pw_dir, 1);
				setenv("USER", pw->pw_name, 1);
				setenv("LOGNAME", pw->pw_name, 1);
			}
			if (setgid(cmd->gid) != 0 || setuid(cmd->uid) != 0)
			{
				fprintf(stderr, "could not become user %d: %s\n", (int) cmd->uid, strerror(errno));
				_exit(126);
			}
			/* a directory the user may be unable to enter */
			if (chdir("/") != 0)
				_exit(126);
		}
		child_die_with_parent(parent);
		execv(cmd->argv[0], cmd->argv);
		fprintf(stderr, "could not execute \"%s\": %s\n", cmd->argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	return pid;
}

int
wsb_cmd_wait(pid_t pid)
{
	int			status;

	while (waitpid(pid, &status, 0) < 0)
	{
		if (errno != EINTR)
			return -1;
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -1;
}

int
wsb_cmd_run(WsbCommand *cmd)
{
	pid_t		pid = wsb_cmd_start(cmd);

	if (pid < 0)
		return -1;
	return wsb_cmd_wait(pid);
}

/* Run and capture stdout (first outlen-1 bytes), trailing newline cut. */
int
wsb_cmd_output(WsbCommand *cmd, char *out, size_t outlen)
{
	int			fds[2];
	pid_t		pid;
	pid_t		parent = getpid();
	size_t		n = 0;
	ssize_t		got;
	char		sink[512];

	if (pipe(fds) != 0)
		return -1;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
	{
		close(fds[0]);
		dup2(fds[1], 1);
		close(fds[1]);
		setpgid(0, 0);
		child_redirect(0, "/dev/null", false);
		if (cmd->stderr_path)
			child_redirect(2, cmd->stderr_path, true);
		if (cmd->uid != (uid_t) -1 && cmd->uid != geteuid())
		{
			if (setgid(cmd->gid) != 0 || setuid(cmd->uid) != 0)
				_exit(126);
			if (chdir("/") != 0)
				_exit(126);
		}
		child_die_with_parent(parent);
		execv(cmd->argv[0], cmd->argv);
		_exit(127);
	}
	close(fds[1]);
	while ((got = read(fds[0], n < outlen - 1 ? out + n : sink,
					   n < outlen - 1 ? outlen - 1 - n : sizeof(sink))) != 0)
	{
		if (got < 0)
		{
			if (errno == EINTR)
				continue;
			break;
		}
		if (n < outlen - 1)
			n += got;
	}
	close(fds[0]);
	out[n] = '\0';
	while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == '\r'))
		out[--n] = '\0';
	return wsb_cmd_wait(pid);
}

bool
wsb_which(const char *prog, char *path, size_t len)
{
	const char *p = getenv("PATH");
	const char *dirs[] = {"/usr/sbin", "/sbin", "/usr/bin", "/bin", NULL};
	char		buf[PATH_MAX];

	while (p && *p)
	{
		const char *colon = strchr(p, ':');
		size_t		dl = colon ? (size_t) (colon - p) : strlen(p);

		snprintf(buf, sizeof(buf), "%.*s/%s", (int) dl, p, prog);
		if (dl > 0 && access(buf, X_OK) == 0)
		{
			wsb_strlcpy(path, buf, len);
			return true;
		}
		p = colon ? colon + 1 : NULL;
	}
	for (int i = 0; dirs[i]; i++)
	{
		snprintf(buf, sizeof(buf), "%s/%s", dirs[i], prog);
		if (access(buf, X_OK) == 0)
		{
			wsb_strlcpy(path, buf, len);
			return true;
		}
	}
	return false;
}

/* ---------- cleanup list ---------- */

#define WSB_MAX_CLEANUPS 32

static struct
{
	char		what[128];
	WsbCleanupFn fn;
	void	   *arg;
	bool		done;
}			cleanups[WSB_MAX_CLEANUPS];
static int	ncleanups = 0;

int
wsb_cleanup_push(const char *what, WsbCleanupFn fn, void *arg)
{
	if (ncleanups >= WSB_MAX_CLEANUPS)
		return -1;
	wsb_strlcpy(cleanups[ncleanups].what, what, sizeof(cleanups[0].what));
	cleanups[ncleanups].fn = fn;
	cleanups[ncleanups].arg = arg;
	cleanups[ncleanups].done = false;
	return ncleanups++;
}

void
wsb_cleanup_done(int handle)
{
	if (handle >= 0 && handle < ncleanups)
		cleanups[handle].done = true;
}

/* Undo everything still registered, newest first.  Safe to call twice. */
void
wsb_cleanup_run(void)
{
	for (int i = ncleanups - 1; i >= 0; i--)
	{
		if (cleanups[i].done)
			continue;
		cleanups[i].done = true;
		cleanups[i].fn(cleanups[i].arg);
	}
}
