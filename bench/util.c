/*-------------------------------------------------------------------------
 *
 * util.c
 *		wal_stall_bench: rows kept as text, messages, strings, files, and
 *		the cleanup list every created resource is registered in.  Running
 *		commands: proc.c.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <ctype.h>
#include <pwd.h>

#include "engine.h"
#include "expbuffer.h"

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
		into->names = wsb_xcalloc(from->ncols, sizeof(char *));
		for (int i = 0; i < from->ncols; i++)
			into->names[i] = wsb_xstrdup(from->names[i]);
	}
	n = into->nrows + from->nrows;
	into->cells = wsb_xrealloc(into->cells, n * sizeof(char **));
	for (int r = 0; r < from->nrows; r++)
	{
		char	  **row = wsb_xcalloc(into->ncols, sizeof(char *));

		for (int c = 0; c < into->ncols; c++)
		{
			int			fc = wsb_rows_col(from, into->names[c]);

			if (fc >= 0 && from->cells[r][fc] != NULL)
				row[c] = wsb_xstrdup(from->cells[r][fc]);
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

/* ---------- allocation ---------- */

static void *
allocated(void *p)
{
	if (p == NULL)
	{
		wsb_error("out of memory");
		exit(WSB_EXIT_FAILURE);
	}
	return p;
}

void *
wsb_xmalloc(size_t size)
{
	return allocated(malloc(size ? size : 1));
}

void *
wsb_xcalloc(size_t n, size_t size)
{
	return allocated(calloc(n ? n : 1, size ? size : 1));
}

void *
wsb_xrealloc(void *p, size_t size)
{
	return allocated(realloc(p, size ? size : 1));
}

char *
wsb_xstrdup(const char *s)
{
	return allocated(strdup(s));
}

/* The text built in b; when libpq could not grow it (it marks the buffer
 * broken), out of memory as above. */
const char *
wsb_buffer_text(PQExpBuffer b)
{
	if (PQExpBufferBroken(b))
		allocated(NULL);
	return b->data;
}

static char *
vpsprintf(const char *fmt, va_list ap)
{
	va_list		again;
	int			n;
	char	   *s;

	va_copy(again, ap);
	n = vsnprintf(NULL, 0, fmt, ap);
	if (n < 0)
		allocated(NULL);		/* EOVERFLOW: more than INT_MAX bytes */
	s = wsb_xmalloc((size_t) n + 1);
	vsnprintf(s, (size_t) n + 1, fmt, again);
	va_end(again);
	return s;
}

char *
wsb_psprintf(const char *fmt,...)
{
	va_list		ap;
	char	   *s;

	va_start(ap, fmt);
	s = vpsprintf(fmt, ap);
	va_end(ap);
	return s;
}

FILE *
wsb_fopenf(const char *mode, const char *fmt,...)
{
	va_list		ap;
	char	   *path;
	FILE	   *f;
	int			saved;

	va_start(ap, fmt);
	path = vpsprintf(fmt, ap);
	va_end(ap);
	f = fopen(path, mode);
	saved = errno;
	free(path);
	errno = saved;
	return f;
}

/* ---------- messages and strings ---------- */

/*
 * The length of the UTF-8 character at s, 0 if it is not one: a lead byte
 * with its continuation bytes, never an overlong form, a surrogate or past
 * U+10FFFF.
 */
static int
utf8_char_length(const unsigned char *s)
{
	int			len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	for (int i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
		(s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	return len;
}

/*
 * Would a terminal obey the character at str rather than print it, or show
 * other text than it holds?  A C0 control but tab and newline, DEL, a C1
 * control (U+0080 to U+009F, CSI among them), a byte that is not UTF-8
 * (an 8-bit terminal reads 0x9b as CSI), or a bidirectional control
 * (U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069), which reorders
 * what follows it on the screen.  *len: the character's bytes (1 for a
 * byte that is not UTF-8).
 */
bool
wsb_terminal_unsafe(const char *str, int *len)
{
	const unsigned char *s = (const unsigned char *) str;

	*len = utf8_char_length(s);
	if (*len == 0)
	{
		*len = 1;
		return true;
	}
	if ((s[0] < 0x20 && s[0] != '\t' && s[0] != '\n') || s[0] == 0x7f ||
		(s[0] == 0xc2 && s[1] < 0xa0))
		return true;
	return s[0] == 0xe2 &&
		((s[1] == 0x80 && (s[2] == 0x8e || s[2] == 0x8f || (s[2] >= 0xaa && s[2] <= 0xae))) ||
		 (s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9));
}

/*
 * Write s to f, each byte of a character wsb_terminal_unsafe() finds as
 * \xNN: a message may quote what a server or a file said, which another
 * account may have written.
 */
static void
put_for_terminal(FILE *f, const char *s)
{
	while (*s)
	{
		int			len;
		bool		unsafe = wsb_terminal_unsafe(s, &len);

		for (int i = 0; i < len; i++, s++)
		{
			if (unsafe)
				fprintf(f, "\\x%02x", (unsigned char) *s);
			else
				fputc(*s, f);
		}
	}
}

static void
message(const char *prefix, const char *fmt, va_list ap)
{
	char	   *text = vpsprintf(fmt, ap);

	fputs(prefix, stderr);
	put_for_terminal(stderr, text);
	fputc('\n', stderr);
	free(text);
}

void
wsb_error(const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	message("wal_stall_bench: error: ", fmt, ap);
	va_end(ap);
}

void
wsb_note(const char *fmt,...)
{
	va_list		ap;

	if (wsb_quiet)
		return;
	va_start(ap, fmt);
	message("wal_stall_bench: ", fmt, ap);
	va_end(ap);
}

/*
 * The run's log (OUT/harness.log, wsb_log_to): lines a DBA may want after
 * the fact but that say nothing the results do not, such as each restart
 * of the server.  The file is made on its first line, so that a harness
 * that fails before it has anything to log leaves its output directory
 * as empty as it found it; appended to, so that --resume keeps the first
 * part's lines.  O_NOFOLLOW: the output directory is checked to be no
 * other account's, a link planted before that check is still refused.
 */
static char *log_path;
static FILE *log_file;

void
wsb_log_to(const char *path)
{
	free(log_path);
	log_path = path ? wsb_xstrdup(path) : NULL;
	if (log_file)
		fclose(log_file);
	log_file = NULL;
}

void
wsb_log(const char *fmt,...)
{
	va_list		ap;
	time_t		now = time(NULL);
	char		stamp[32];

	if (log_path == NULL)
		return;
	if (log_file == NULL)
	{
		int			fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0666);

		if (fd < 0 || (log_file = fdopen(fd, "a")) == NULL)
		{
			if (fd >= 0)
				close(fd);
			wsb_error("could not write \"%s\": %s", log_path, strerror(errno));
			wsb_log_to(NULL);	/* said once */
			return;
		}
		setvbuf(log_file, NULL, _IOLBF, 0);
	}
	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", localtime(&now));
	fprintf(log_file, "%s ", stamp);
	va_start(ap, fmt);
	vfprintf(log_file, fmt, ap);
	va_end(ap);
	fputc('\n', log_file);
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

/*
 * The next element of a list setting's value at *p, split the way the
 * server splits such a list (commas, blanks around them, double quotes
 * around an element, "" inside them), into el, which has room for
 * strlen(*p) + 1 bytes: an element is never longer than the text it comes
 * from, so none is cut.  *p moves past it; false when no element is left.
 */
bool
wsb_list_element(const char **p, char *el)
{
	const char *s = *p;
	size_t		k = 0;

	while (*s == ' ' || *s == '\t' || *s == ',')
		s++;
	if (*s == '\0')
	{
		*p = s;
		return false;
	}
	if (*s == '"')
	{
		for (s++; *s && !(*s == '"' && s[1] != '"'); s++)
		{
			if (*s == '"')
				s++;			/* "" inside quotes is one " */
			el[k++] = *s;
		}
		if (*s == '"')
			s++;
	}
	else
		for (; *s && *s != ',' && *s != ' ' && *s != '\t'; s++)
			el[k++] = *s;
	el[k] = '\0';
	*p = s;
	return true;
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
			buf = wsb_xrealloc(buf, cap + 1);
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

/*
 * Make path anew for writing: the old name removed, then created with
 * O_EXCL|O_NOFOLLOW, so that a symbolic link or another's file planted at
 * the name is never written through.  mode is narrowed by the umask.  A
 * stdio stream, or NULL with errno.
 */
FILE *
wsb_create_file(const char *path, mode_t mode)
{
	int			fd;
	FILE	   *f;

	if (unlink(path) != 0 && errno != ENOENT)
		return NULL;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (f == NULL)
		close(fd);
	return f;
}

int
wsb_write_file(const char *path, const char *text)
{
	FILE	   *f = wsb_create_file(path, 0666);

	if (f == NULL)
		return -1;
	fputs(text, f);
	return wsb_close_written(f, 0);
}

/*
 * The last non-empty line of text that begins with none of skip (a
 * NULL-ended list, or NULL), to quote in a message to root's terminal:
 * cut at WSB_QUOTED_LINE_MAX bytes, and each byte outside printable ASCII
 * made '?', since another account may have written text (an escape
 * sequence could move the terminal).  Points into text, which it changes;
 * NULL without such a line.
 */
char *
wsb_last_line(char *text, const char *const *skip)
{
	char	   *last = NULL;

	for (char *line = strtok(text, "\r\n"); line; line = strtok(NULL, "\r\n"))
	{
		bool		skipped = false;

		for (int i = 0; skip && skip[i]; i++)
			skipped |= strncmp(line, skip[i], strlen(skip[i])) == 0;
		if (!skipped)
			last = line;
	}
	if (last == NULL)
		return NULL;
	if (strlen(last) > WSB_QUOTED_LINE_MAX)
		last[WSB_QUOTED_LINE_MAX] = '\0';
	for (char *c = last; *c; c++)
		if ((unsigned char) *c < 0x20 || (unsigned char) *c > 0x7e)
			*c = '?';
	return last;
}

/*
 * Read a file that another account (owner) may have made: refused when
 * the name is a symbolic link, when it is no regular file (a FIFO would
 * block us), or when owner is not (uid_t) -1 and the file is neither
 * owner's nor ours (a hard link to a file of root's).  malloc'd and
 * NUL-ended, or NULL with errno.
 */
char *
wsb_read_file_of(const char *path, uid_t owner, size_t *len)
{
	int			fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char	   *buf = NULL;
	size_t		n = 0,
				cap = 0;
	ssize_t		got;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
		(owner != (uid_t) -1 && st.st_uid != owner && st.st_uid != geteuid()))
	{
		close(fd);
		errno = EPERM;
		return NULL;
	}
	do
	{
		if (cap - n < 4096)
		{
			char	   *more = realloc(buf, (cap ? cap * 2 : 8192) + 1);

			if (more == NULL)
			{
				free(buf);
				close(fd);
				errno = ENOMEM;
				return NULL;
			}
			buf = more;
			cap = cap ? cap * 2 : 8192;
		}
		got = read(fd, buf + n, cap - n);
		if (got > 0)
			n += got;
	} while (got > 0 || (got < 0 && errno == EINTR));
	close(fd);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

static char *read_regular(const char *path, size_t max, size_t *len, struct stat *stp,
						  char *why, size_t whylen);

/*
 * Read back a file that may have been changed since the harness wrote it
 * (plan.txt, results.csv), as untrusted input: refused when its name is a
 * symbolic link (a link to another's file would be read as root), when it
 * is no regular file (a FIFO blocks the reader, a device such as /dev/zero
 * never ends), or when it holds more than max bytes.  malloc'd and
 * NUL-ended, or NULL with why saying which (errno kept: ENOENT for a file
 * that is not there).
 */
char *
wsb_read_back(const char *path, size_t max, size_t *len, char *why, size_t whylen)
{
	struct stat st;

	return read_regular(path, max, len, &st, why, whylen);
}

/* wsb_read_back, and the fstat of the file read into *stp */
static char *
read_regular(const char *path, size_t max, size_t *len, struct stat *stp, char *why, size_t whylen)
{
	int			fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char	   *buf;
	size_t		n = 0;
	ssize_t		got;

	if (fd < 0)
	{
		int			saved = errno;

		if (saved == ELOOP && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
			snprintf(why, whylen, "it is a symbolic link, which is not followed");
		else
			snprintf(why, whylen, "%s", strerror(saved));
		errno = saved;
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
	{
		snprintf(why, whylen, "it is %s, not a regular file",
				 S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISCHR(st.st_mode) ? "a character device" :
				 S_ISBLK(st.st_mode) ? "a block device" : S_ISDIR(st.st_mode) ? "a directory" :
				 S_ISSOCK(st.st_mode) ? "a socket" : "something else");
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	if ((uintmax_t) st.st_size > max)
	{
		snprintf(why, whylen, "it has %lld bytes, more than the %zu bytes such a file may have",
				 (long long) st.st_size, max);
		close(fd);
		errno = EFBIG;
		return NULL;
	}
	/* one byte more than the size: a file still growing is seen to */
	buf = wsb_xmalloc((size_t) st.st_size + 2);
	while (n < (size_t) st.st_size + 1 &&
		   ((got = read(fd, buf + n, (size_t) st.st_size + 1 - n)) > 0 || (got < 0 && errno == EINTR)))
		if (got > 0)
			n += got;
	close(fd);
	if (n > (size_t) st.st_size)
	{
		snprintf(why, whylen, "it grew while it was read");
		free(buf);
		errno = EAGAIN;
		return NULL;
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	*stp = st;
	return buf;
}

/*
 * Read a file whose text the harness acts on as the user running it (a
 * preset, a pgbench script): only when no other account can change it.
 * The file (after its links) must be a regular file of root's or ours
 * that neither group nor others may write, and every directory above it
 * must pass wsb_path_is_private; at most max bytes.  what names it in the
 * messages ("--preset", "script").  malloc'd and NUL-ended, or NULL with
 * err and errno (ENOENT: no such file; err then says "cannot read ...").
 */
char *
wsb_read_trusted(const char *path, size_t max, const char *what, size_t *len,
				 char *err, size_t errlen)
{
	char	   *real = realpath(path, NULL);
	char		why[256];
	char	   *text;
	struct stat st;
	struct passwd *pw;

	if (real == NULL)
	{
		int			saved = errno;

		snprintf(err, errlen, "cannot read \"%s\": %s", path, strerror(saved));
		errno = saved;
		return NULL;
	}
	if (stat(real, &st) == 0 && S_ISDIR(st.st_mode))
	{
		snprintf(err, errlen, "cannot read \"%s\": %s", path, strerror(EISDIR));
		free(real);
		errno = EISDIR;
		return NULL;
	}
	/* the path as given: a link on it another account owns is refused */
	if (wsb_path_is_private(path, what, err, errlen) != 0)
	{
		free(real);
		errno = EPERM;
		return NULL;
	}
	text = read_regular(real, max, len, &st, why, sizeof(why));
	if (text == NULL)
	{
		int			saved = errno;

		snprintf(err, errlen, "cannot read \"%s\": %s", path, why);
		free(real);
		errno = saved;
		return NULL;
	}
	/* the file read (its fstat), whose name no other account can change */
	if ((st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & (S_IWGRP | S_IWOTH)))
	{
		pw = getpwuid(st.st_uid);
		if (st.st_uid != 0 && st.st_uid != geteuid())
			snprintf(err, errlen, "cannot use %s \"%s\": it is owned by %s%s%s (uid %d), not by root or "
					 "the user running the harness, and its owner could change it",
					 what, path, pw ? "\"" : "", pw ? pw->pw_name : "another user", pw ? "\"" : "",
					 (int) st.st_uid);
		else
			snprintf(err, errlen, "cannot use %s \"%s\": its %s may write in it (mode %04o), and could "
					 "change it; chmod go-w it", what, path,
					 (st.st_mode & S_IWGRP) && (st.st_mode & S_IWOTH) ? "group and others" :
					 (st.st_mode & S_IWGRP) ? "group" : "others", (unsigned) (st.st_mode & 07777));
		free(text);
		free(real);
		errno = EPERM;
		return NULL;
	}
	free(real);
	return text;
}

/*
 * May the harness write in dir, an existing directory, without another
 * account changing what is there under it?  Only when dir (after its
 * links) is owned by the user running the harness, and neither its group
 * nor others may write in it.  0, or -1 with err saying why (for what:
 * "--out").
 */
int
wsb_dir_is_private(const char *dir, const char *what, char *err, size_t errlen)
{
	struct stat st;
	struct passwd *pw;
	char		mine[64];

	if (stat(dir, &st) != 0)
	{
		snprintf(err, errlen, "cannot use %s \"%s\": %s", what, dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
	{
		snprintf(err, errlen, "cannot use %s \"%s\": it exists and is not a directory", what, dir);
		return -1;
	}
	pw = getpwuid(geteuid());
	snprintf(mine, sizeof(mine), "%s", pw ? pw->pw_name : "?");
	if (st.st_uid != geteuid())
	{
		pw = getpwuid(st.st_uid);
		snprintf(err, errlen, "cannot use %s \"%s\": it is owned by %s%s%s (uid %d), not by \"%s\", "
				 "who runs the harness, and its owner could change the files written there",
				 what, dir, pw ? "\"" : "", pw ? pw->pw_name : "another user", pw ? "\"" : "",
				 (int) st.st_uid, mine);
		return -1;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH))
	{
		snprintf(err, errlen, "cannot use %s \"%s\": its %s may write in it (mode %04o), and could "
				 "change the files written there; chmod go-w it, or choose another directory",
				 what, dir, (st.st_mode & S_IWGRP) && (st.st_mode & S_IWOTH) ? "group and others" :
				 (st.st_mode & S_IWGRP) ? "group" : "others", (unsigned) (st.st_mode & 07777));
		return -1;
	}
	return 0;
}

/* Owned by root or by the user running the harness. */
static bool
ours(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

/*
 * May a step be taken in directory dir without another account changing
 * what it holds?  Only when dir is root's or ours and nobody else may
 * write in it, unless it is sticky, as /tmp is: there only an entry's
 * owner may rename or remove it.  0, or -1 with err (what and path name
 * the option and the path given).
 */
static int
walk_dir_is_private(const char *dir, const char *what, const char *path, char *err, size_t errlen)
{
	struct stat st;
	struct passwd *pw;
	bool		theirs;

	if (stat(dir, &st) != 0)
	{
		snprintf(err, errlen, "cannot use %s \"%s\": %s: %s", what, path, dir, strerror(errno));
		return -1;
	}
	theirs = !ours(st.st_uid);
	if (!theirs && !((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)))
		return 0;
	pw = getpwuid(st.st_uid);
	snprintf(err, errlen, "cannot use %s \"%s\": the directory \"%s\" above it is %s%s%s%s "
			 "(mode %04o), who could put another directory in its place",
			 what, path, dir, theirs ? "owned by " : "writable by ", theirs ? "\"" : "",
			 theirs ? (pw ? pw->pw_name : "another user") :
			 (st.st_mode & S_IWOTH) ? "others" : "its group",
			 theirs ? "\"" : "", (unsigned) (st.st_mode & 07777));
	return -1;
}

/*
 * Can only root and we change what path names?  Follows it as the kernel
 * does, one name at a time: every directory a name is looked up in must
 * pass walk_dir_is_private(), and every symbolic link on the way must be
 * root's or ours, since a link's owner may point it elsewhere (in /tmp
 * too: the sticky bit keeps the link itself, not where it points).
 * realpath() alone would tell where the path leads today, not who could
 * change that.  A relative path starts at the working directory.  The
 * last name need not exist; what it names is for the caller to judge.
 * 0, or -1 with err naming the first directory or link that fails.
 */
int
wsb_path_is_private(const char *path, const char *what, char *err, size_t errlen)
{
	char		resolved[PATH_MAX];
	char		rest[2 * PATH_MAX];
	int			links = 0;

	if (path[0] == '/')
		snprintf(resolved, sizeof(resolved), "/");
	else if (getcwd(resolved, sizeof(resolved)) == NULL)
	{
		snprintf(err, errlen, "cannot use %s \"%s\": the working directory: %s", what, path,
				 strerror(errno));
		return -1;
	}
	else if (wsb_path_is_private(resolved, what, err, errlen) != 0)
		return -1;
	if (strlen(path) >= sizeof(rest))
	{
		snprintf(err, errlen, "cannot use %s \"%.200s...\": %s", what, path, strerror(ENAMETOOLONG));
		return -1;
	}
	snprintf(rest, sizeof(rest), "%s", path);

	while (rest[0])
	{
		char		name[PATH_MAX];
		char		next[PATH_MAX];
		char		target[PATH_MAX];
		size_t		len = strcspn(rest, "/");
		bool		last;
		struct stat st;
		ssize_t		n;

		snprintf(name, sizeof(name), "%.*s", (int) (len < sizeof(name) ? len : sizeof(name) - 1), rest);
		len += strspn(rest + len, "/");
		memmove(rest, rest + len, strlen(rest + len) + 1);
		last = rest[0] == '\0';
		if (name[0] == '\0' || strcmp(name, ".") == 0)
			continue;
		if (strcmp(name, "..") == 0)
		{
			char	   *slash = strrchr(resolved, '/');

			slash[slash == resolved ? 1 : 0] = '\0';
			continue;
		}
		if (walk_dir_is_private(resolved, what, path, err, errlen) != 0)
			return -1;
		if (snprintf(next, sizeof(next), "%s%s%s", resolved, strcmp(resolved, "/") == 0 ? "" : "/",
					 name) >= (int) sizeof(next))
		{
			snprintf(err, errlen, "cannot use %s \"%s\": %s", what, path, strerror(ENAMETOOLONG));
			return -1;
		}
		if (lstat(next, &st) != 0)
		{
			if (errno == ENOENT && last)
				return 0;
			snprintf(err, errlen, "cannot use %s \"%s\": %s: %s", what, path, next, strerror(errno));
			return -1;
		}
		if (!S_ISLNK(st.st_mode))
		{
			snprintf(resolved, sizeof(resolved), "%s", next);
			continue;
		}
		if (!ours(st.st_uid))
		{
			struct passwd *pw = getpwuid(st.st_uid);

			snprintf(err, errlen, "cannot use %s \"%s\": the link \"%s\" on its way is owned by %s%s%s "
					 "(uid %d), who could point it elsewhere", what, path, next, pw ? "\"" : "",
					 pw ? pw->pw_name : "another user", pw ? "\"" : "", (int) st.st_uid);
			return -1;
		}
		n = readlink(next, target, sizeof(target) - 1);
		if (n < 0 || ++links > 40 || (size_t) n + 1 + strlen(rest) >= sizeof(rest))
		{
			snprintf(err, errlen, "cannot use %s \"%s\": %s: %s", what, path, next,
					 strerror(n < 0 ? errno : ELOOP));
			return -1;
		}
		target[n] = '\0';
		/* the link's text, then what followed it */
		memmove(rest + n + 1, rest, strlen(rest) + 1);
		memcpy(rest, target, n);
		rest[n] = '/';
		if (target[0] == '/')
			snprintf(resolved, sizeof(resolved), "/");
	}
	return 0;
}

/*
 * The results directory, existing: refused unless private
 * (wsb_dir_is_private) and only root and we can change the path to it
 * (wsb_path_is_private).  With --group it goes to that group, mode 02750:
 * under the harness's umask (027 then) what is made in it is 0640 and, by
 * the set-group-ID bit, of that group too.  0, or -1 with err.
 */
int
wsb_out_dir_secure(const char *dir, const WsbOptions *o, char *err, size_t errlen)
{
	if (wsb_dir_is_private(dir, "--out", err, errlen) != 0 ||
		wsb_path_is_private(dir, "--out", err, errlen) != 0)
		return -1;
	if (o->group_name[0] &&
		(chown(dir, (uid_t) -1, o->group) != 0 || chmod(dir, 02750) != 0))
	{
		snprintf(err, errlen, "cannot use --out \"%s\" with --group %s: %s", dir, o->group_name,
				 strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Close a file written with stdio: rc, or -1 when a write to it failed
 * (its error flag) or the close did (the buffered rest not written).
 */
int
wsb_close_written(FILE *f, int rc)
{
	if (ferror(f))
		rc = -1;
	if (fclose(f) != 0)
		rc = -1;
	return rc;
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
