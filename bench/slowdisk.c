/*-------------------------------------------------------------------------
 *
 * slowdisk.c
 *		wal_stall_bench: --slow-wal / --slow-disk, a throttled disk.
 *
 * A sparse file in the work directory becomes a loop device with an ext4
 * file system, mounted in the work directory; that directory is root's,
 * and nobody else may write in it (checked), so that no other account can
 * put a link or a file of its own at the image's name or the mount
 * point's before losetup, mkfs.ext4 -F or mount use them; pg_wal (--slow-wal) or the
 * whole data directory (--slow-disk) is created on it by initdb.  A child
 * cgroup limits writes to that device alone: with the unified hierarchy
 * (cgroup v2, whose root lists "io" in cgroup.controllers) its io.max
 * ("MAJ:MIN wiops=N", and wbps=N for --slow-wal-mbps), created directly
 * under the root, the one cgroup exempt from v2's rule that a cgroup with
 * processes cannot hand controllers to children, after enabling +io in the
 * root's cgroup.subtree_control if it was not; otherwise a cgroup v1 blkio
 * group (blkio.throttle.write_iops_device, write_bps_device).  The
 * postmaster starts inside it, so every backend it forks inherits the
 * limit.  Each resource is registered in the cleanup list the moment it
 * exists, and the cleanups undo it in reverse order: cgroup (its processes
 * moved back to the parent first), the io controller if we enabled it,
 * mount, loop device, file.
 *
 * WSB_CGROUP_ROOT, for the tests only, replaces /sys/fs/cgroup: a plain
 * directory standing for a cgroup root (bench/t/cgroup_v2.sh).
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "engine.h"
#include "expbuffer.h"

#define CGROUP_ROOT "/sys/fs/cgroup"

/* The cgroup root: /sys/fs/cgroup, or the tests' stand-in. */
static const char *
cgroup_root(void)
{
	const char *root = getenv("WSB_CGROUP_ROOT");

	return root && root[0] ? root : CGROUP_ROOT;
}

/* Does the file hold word as a whole space- or newline-separated word? */
static bool
file_has_word(const char *path, const char *word)
{
	char	   *text = wsb_read_file(path, NULL);
	char	   *save = NULL;
	bool		found = false;

	for (char *w = text ? strtok_r(text, " \t\n", &save) : NULL; w && !found;
		 w = strtok_r(NULL, " \t\n", &save))
		found = strcmp(w, word) == 0;
	free(text);
	return found;
}

/*
 * Which cgroup version can throttle here, and the cgroup to create the
 * child under: 2 when the root is the unified hierarchy with the io
 * controller, 1 when the v1 blkio controller is mounted, 0 (err says why,
 * naming both) when neither.
 */
static int
cgroup_detect(const char *flag, char **parent, char *err, size_t errlen)
{
	const char *root = cgroup_root();
	char	   *path = wsb_psprintf("%s/cgroup.controllers", root);
	int			version = 0;

	if (file_has_word(path, "io"))
		version = 2;
	else
	{
		free(path);
		path = wsb_psprintf("%s/blkio/blkio.throttle.write_iops_device", root);
		if (access(path, F_OK) == 0)
			version = 1;
	}
	free(path);
	if (version != 0)
	{
		if (parent)
			*parent = version == 2 ? wsb_xstrdup(root) : wsb_psprintf("%s/blkio", root);
		return version;
	}
	snprintf(err, errlen, "%s needs the cgroup v2 io controller (\"io\" in %s/cgroup.controllers) "
			 "or the cgroup v1 blkio controller (%s/blkio/blkio.throttle.write_iops_device), "
			 "and this system has neither", flag, root, root);
	return 0;
}

/* Can we throttle here?  Checked before anything is created. */
int
wsb_slowdisk_check(const WsbOptions *o, char *err, size_t errlen)
{
	const char *flag = o->slow_wal_iops ? "--slow-wal" : "--slow-disk";
	char		path[PATH_MAX];
	const char *progs[] = {"losetup", "mkfs.ext4", "mount", "umount", NULL};

	if (!o->slow_wal_iops && !o->slow_disk_iops)
		return 0;
	if (geteuid() != 0)
	{
		snprintf(err, errlen, "%s needs root: it creates a loop device, a mount and a cgroup", flag);
		return -1;
	}
	if (cgroup_detect(flag, NULL, err, errlen) == 0)
		return -1;
	if (access("/dev/loop-control", F_OK) != 0)
	{
		snprintf(err, errlen, "%s needs loop devices, and /dev/loop-control is missing", flag);
		return -1;
	}
	for (int i = 0; progs[i]; i++)
		if (!wsb_which(progs[i], path, sizeof(path)))
		{
			snprintf(err, errlen, "%s needs \"%s\", not found on PATH", flag, progs[i]);
			return -1;
		}
	return 0;
}

/*
 * prog with up to four arguments: its exit status, and its output whole in
 * *out (malloc'd, "" if prog is not found; the caller frees it) unless out
 * is NULL.
 */
static int
run_tool(char **out, const char *prog, const char *a1, const char *a2,
		 const char *a3, const char *a4)
{
	WsbCommand	c;
	char		path[1024];
	char	   *text;
	int			rc;

	if (!wsb_which(prog, path, sizeof(path)))
	{
		if (out)
			*out = wsb_xstrdup("");
		return -1;
	}
	wsb_cmd_init(&c, (uid_t) -1, (gid_t) -1);
	wsb_cmd_add(&c, "%s", path);
	if (a1)
		wsb_cmd_add(&c, "%s", a1);
	if (a2)
		wsb_cmd_add(&c, "%s", a2);
	if (a3)
		wsb_cmd_add(&c, "%s", a3);
	if (a4)
		wsb_cmd_add(&c, "%s", a4);
	rc = wsb_cmd_output(&c, &text);
	wsb_cmd_free(&c);
	if (out)
		*out = text;
	else
		free(text);
	return rc;
}

static void
undo_image(void *arg)
{
	WsbSlowDisk *d = arg;

	unlink(d->image);
}

static void
undo_loop(void *arg)
{
	WsbSlowDisk *d = arg;

	for (int i = 0; i < 20; i++)
	{
		if (run_tool(NULL, "losetup", "-d", d->loopdev, NULL, NULL) == 0)
			return;
		usleep(100000);
	}
	wsb_error("could not detach loop device \"%s\" (losetup -d %s)", d->loopdev, d->loopdev);
}

static void
undo_mount(void *arg)
{
	WsbSlowDisk *d = arg;

	for (int i = 0; i < 50; i++)
	{
		if (run_tool(NULL, "umount", d->mountpoint, NULL, NULL, NULL) == 0)
		{
			rmdir(d->mountpoint);
			return;
		}
		usleep(100000);
	}
	wsb_error("could not unmount \"%s\"", d->mountpoint);
}

/* Pids listed in a cgroup.procs file that are still alive. */
static int
live_pids(const char *procs, pid_t *pids, int max)
{
	char	   *text = wsb_read_file(procs, NULL);
	char	   *save = NULL;
	int			n = 0;

	for (char *p = text ? strtok_r(text, " \n", &save) : NULL; p && n < max;
		 p = strtok_r(NULL, " \n", &save))
	{
		pid_t		pid = (pid_t) atol(p);

		if (pid > 0 && (kill(pid, 0) == 0 || errno == EPERM))
			pids[n++] = pid;
	}
	free(text);
	return n;
}

/*
 * Remove the cgroup, v1 or v2.  The last server processes leave it a
 * moment after pg_ctl stop returns; whatever still lives in it after 5 s
 * is moved back to the parent cgroup so that the directory can go.  (A
 * real cgroup's cgroup.procs lists only live processes and its interface
 * files go with rmdir; the tests' stand-in directory lists whatever was
 * written, and its files are removed here.)
 */
static void
undo_cgroup(void *arg)
{
	WsbSlowDisk *d = arg;
	char	   *parent_procs;
	pid_t		pids[256];
	int			n = 0;

	for (int i = 0; i < 50; i++)
	{
		if ((n = live_pids(d->cgroup_procs, pids, 256)) == 0)
			break;
		usleep(100000);
	}
	parent_procs = wsb_psprintf("%s/cgroup.procs", d->cgroup_parent);
	for (int i = 0; i < n; i++)
	{
		FILE	   *f = fopen(parent_procs, "a");

		if (f)
		{
			fprintf(f, "%d\n", (int) pids[i]);
			fclose(f);
		}
	}
	free(parent_procs);
	if (getenv("WSB_CGROUP_ROOT"))
	{
		const char *files[] = {"cgroup.procs", "io.max", "blkio.throttle.write_iops_device",
		"blkio.throttle.write_bps_device", NULL};

		for (int i = 0; files[i]; i++)
		{
			char	   *path = wsb_psprintf("%s/%s", d->cgroup, files[i]);

			unlink(path);
			free(path);
		}
	}
	for (int i = 0; i < 20; i++)
	{
		if (rmdir(d->cgroup) == 0 || errno == ENOENT)
			return;
		usleep(100000);
	}
	wsb_error("could not remove cgroup \"%s\": %s", d->cgroup, strerror(errno));
}

/* Disable the io controller in the parent again, if we enabled it. */
static void
undo_io_controller(void *arg)
{
	WsbSlowDisk *d = arg;
	char	   *path = wsb_psprintf("%s/cgroup.subtree_control", d->cgroup_parent);
	FILE	   *f;

	f = fopen(path, "w");
	if (f == NULL || fprintf(f, "-io\n") < 0 || fclose(f) != 0)
		wsb_error("could not disable the io controller again in \"%s\" (another cgroup may use it now): %s",
				  path, strerror(errno));
	free(path);
}

static int
write_limit(const char *cgroup, const char *file, unsigned maj, unsigned min, long long v,
			char *err, size_t errlen)
{
	char	   *path = wsb_psprintf("%s/%s", cgroup, file);
	FILE	   *f;
	int			rc = 0;

	f = fopen(path, "w");
	if (f == NULL || fprintf(f, "%u:%u %lld\n", maj, min, v) < 0 || fclose(f) != 0)
	{
		snprintf(err, errlen, "could not write \"%u:%u %lld\" to \"%s\": %s", maj, min, v, path, strerror(errno));
		rc = -1;
	}
	free(path);
	return rc;
}

/*
 * Make the throttled device and cgroup under workdir, owned by owner.
 * d->mountpoint is where initdb puts pg_wal or the data directory.
 */
int
wsb_slowdisk_setup(WsbSlowDisk *d, const WsbOptions *o, const char *workdir,
				   uid_t owner, gid_t group, char *err, size_t errlen)
{
	bool		wal = o->slow_wal_iops > 0;
	long long	size = wal ? 4LL << 30 : 32LL << 30;	/* sparse */
	int			fd;
	struct stat st;
	char	   *out;

	memset(d, 0, sizeof(*d));
	if (!o->slow_wal_iops && !o->slow_disk_iops)
		return 0;
	strcpy(d->what, wal ? "pg_wal" : "data directory");
	if (wsb_dir_is_private(workdir, "the work directory", err, errlen) != 0)
		return -1;

	d->image = wsb_psprintf("%s/slow_disk.img", workdir);
	/* in root's work directory, by O_EXCL: never another file or disk */
	fd = open(d->image, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
	{
		snprintf(err, errlen, "could not create \"%s\": %s", d->image, strerror(errno));
		return -1;
	}
	wsb_cleanup_push("loop device image", undo_image, d);
	if (ftruncate(fd, size) != 0)
	{
		snprintf(err, errlen, "could not size \"%s\": %s", d->image, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);

	if (run_tool(&out, "losetup", "-f", "--show", d->image, NULL) != 0 ||
		strncmp(out, "/dev/", 5) != 0 || strlen(out) >= sizeof(d->loopdev))
	{
		snprintf(err, errlen, "could not attach a loop device to \"%s\" (losetup -f --show): %s",
				 d->image, out);
		free(out);
		return -1;
	}
	wsb_strlcpy(d->loopdev, out, sizeof(d->loopdev));
	free(out);
	wsb_cleanup_push("loop device", undo_loop, d);
	if (stat(d->loopdev, &st) != 0 || !S_ISBLK(st.st_mode))
	{
		snprintf(err, errlen, "\"%s\" is not a block device", d->loopdev);
		return -1;
	}
	d->major = major(st.st_rdev);
	d->minor = minor(st.st_rdev);

	if (run_tool(&out, "mkfs.ext4", "-q", "-F", d->loopdev, NULL) != 0)
	{
		snprintf(err, errlen, "mkfs.ext4 on \"%s\" failed: %s", d->loopdev, out);
		free(out);
		return -1;
	}
	free(out);
	d->mountpoint = wsb_psprintf("%s/slow_disk", workdir);
	if (mkdir(d->mountpoint, 0700) != 0)
	{
		snprintf(err, errlen, "could not create \"%s\": %s", d->mountpoint, strerror(errno));
		return -1;
	}
	if (run_tool(&out, "mount", "-o", "noatime", d->loopdev, d->mountpoint) != 0)
	{
		rmdir(d->mountpoint);
		snprintf(err, errlen, "could not mount \"%s\" on \"%s\": %s", d->loopdev, d->mountpoint, out);
		free(out);
		return -1;
	}
	free(out);
	wsb_cleanup_push("mount", undo_mount, d);
	if (chown(d->mountpoint, owner, group) != 0 || chmod(d->mountpoint, 0700) != 0)
	{
		snprintf(err, errlen, "could not give \"%s\" to the cluster's owner: %s", d->mountpoint, strerror(errno));
		return -1;
	}

	d->cgroup_version = cgroup_detect(wal ? "--slow-wal" : "--slow-disk", &d->cgroup_parent,
									  err, errlen);
	if (d->cgroup_version == 0)
		return -1;
	if (d->cgroup_version == 2)
	{
		/* the child's io.max exists only if the parent hands io down */
		char	   *path = wsb_psprintf("%s/cgroup.subtree_control", d->cgroup_parent);
		FILE	   *f;
		int			rc = 0;

		if (!file_has_word(path, "io"))
		{
			f = fopen(path, "w");
			if (f == NULL || fprintf(f, "+io\n") < 0 || fclose(f) != 0)
			{
				snprintf(err, errlen, "could not enable the io controller in \"%s\": %s", path, strerror(errno));
				rc = -1;
			}
			else
				wsb_cleanup_push("io controller", undo_io_controller, d);
		}
		free(path);
		if (rc != 0)
			return -1;
	}
	/* named as the work directory, unique while it exists: the sweep finds it so */
	d->cgroup = wsb_psprintf("%s/%s", d->cgroup_parent, strrchr(workdir, '/') + 1);
	if (mkdir(d->cgroup, 0755) != 0)
	{
		snprintf(err, errlen, "could not create cgroup \"%s\": %s", d->cgroup, strerror(errno));
		return -1;
	}
	d->cgroup_procs = wsb_psprintf("%s/cgroup.procs", d->cgroup);
	wsb_cleanup_push(d->cgroup_version == 2 ? "io cgroup" : "blkio cgroup", undo_cgroup, d);
	d->active = true;
	return 0;
}

/*
 * Write the limits into the cgroup: after pgbench -i, which need not crawl.
 * They take effect at once for the processes already in it.
 */
int
wsb_slowdisk_throttle(WsbSlowDisk *d, const WsbOptions *o, char *err, size_t errlen)
{
	bool		wal = o->slow_wal_iops > 0;
	long long	bps = (long long) (wsb_wal_cap_mbps(o) * 1024 * 1024);

	if (!d->active)
		return 0;
	if (d->cgroup_version == 2)
	{
		char	   *path = wsb_psprintf("%s/io.max", d->cgroup);
		PQExpBufferData line;
		FILE	   *f;
		int			rc = 0;

		/* one line, both keys: the device's limits are set together */
		initPQExpBuffer(&line);
		appendPQExpBuffer(&line, "%u:%u wiops=%d", d->major, d->minor,
						  wal ? o->slow_wal_iops : o->slow_disk_iops);
		if (bps > 0)
			appendPQExpBuffer(&line, " wbps=%lld", bps);
		else if (d->bps_limited)
			appendPQExpBufferStr(&line, " wbps=max");
		f = fopen(path, "w");
		if (f == NULL || fprintf(f, "%s\n", wsb_buffer_text(&line)) < 0 || fclose(f) != 0)
		{
			snprintf(err, errlen, "could not write \"%s\" to \"%s\": %s", line.data, path, strerror(errno));
			rc = -1;
		}
		termPQExpBuffer(&line);
		free(path);
		d->bps_limited = rc == 0 && bps > 0;
		return rc;
	}
	if (write_limit(d->cgroup, "blkio.throttle.write_iops_device", d->major, d->minor,
					wal ? o->slow_wal_iops : o->slow_disk_iops, err, errlen) != 0)
		return -1;
	/* 0 removes the rule */
	if ((bps > 0 || d->bps_limited) &&
		write_limit(d->cgroup, "blkio.throttle.write_bps_device", d->major, d->minor, bps,
					err, errlen) != 0)
		return -1;
	d->bps_limited = bps > 0;
	return 0;
}

void
wsb_slowdisk_describe(const WsbSlowDisk *d, const WsbOptions *o, char *buf, size_t len)
{
	if (!d->active)
	{
		snprintf(buf, len, "pg_wal on the data directory's disk, not throttled");
		return;
	}
	if (o->slow_wal_iops)
	{
		char		cap[32] = "";

		if (wsb_wal_cap_mbps(o) > 0)
			snprintf(cap, sizeof(cap), " and %.3g MB/s", wsb_wal_cap_mbps(o));
		snprintf(buf, len, "pg_wal alone on loop device %u:%u (ext4), writes throttled to %d IOPS%s (%s)",
				 d->major, d->minor, o->slow_wal_iops, cap,
				 d->cgroup_version == 2 ? "cgroup v2 io.max" : "cgroup v1 blkio");
	}
	else
		snprintf(buf, len, "data directory on loop device %u:%u (ext4), writes throttled to %d IOPS (%s)",
				 d->major, d->minor, o->slow_disk_iops,
				 d->cgroup_version == 2 ? "cgroup v2 io.max" : "cgroup v1 blkio");
}

/* Is path a mount point now (/proc/self/mountinfo's fifth field)? */
static bool
is_mount_point(const char *path)
{
	char	   *text = wsb_read_file("/proc/self/mountinfo", NULL);
	char	   *save = NULL;
	bool		found = false;

	for (char *line = text ? strtok_r(text, "\n", &save) : NULL; line && !found;
		 line = strtok_r(NULL, "\n", &save))
	{
		char		point[PATH_MAX];

		found = sscanf(line, "%*s %*s %*s %*s %4095s", point) == 1 && strcmp(point, path) == 0;
	}
	free(text);
	return found;
}

/* The loop device whose backing file is image, into d->loopdev; false if none. */
static bool
find_loop_device(WsbSlowDisk *d, const char *image)
{
	DIR		   *dir = opendir("/sys/block");
	struct dirent *e;
	bool		found = false;

	while (dir && !found && (e = readdir(dir)) != NULL)
	{
		char	   *path;
		char	   *backing;

		if (strncmp(e->d_name, "loop", 4) != 0 || strlen(e->d_name) > 32)
			continue;
		path = wsb_psprintf("/sys/block/%s/loop/backing_file", e->d_name);
		backing = wsb_read_file(path, NULL);
		free(path);
		if (backing && strcmp(wsb_trim(backing), image) == 0)
		{
			snprintf(d->loopdev, sizeof(d->loopdev), "/dev/%.32s", e->d_name);
			found = true;
		}
		free(backing);
	}
	if (dir)
		closedir(dir);
	return found;
}

/*
 * wsb_slowdisk_sweep
 *		Undo the slow disk a killed harness left in workdir, as its cleanups
 *		would have: its cgroup (v2 or v1, named as workdir), the mount, the
 *		loop device.  What is not there is skipped; what was undone is
 *		appended to done.  The server must be stopped first.  false when
 *		the mount or the loop device could not go, so the directory must
 *		stay.
 */
bool
wsb_slowdisk_sweep(const char *workdir, PQExpBuffer done)
{
	WsbSlowDisk d = {0};
	char	   *parents[2];
	bool		ok = true;

	parents[0] = wsb_psprintf("%s", cgroup_root());
	parents[1] = wsb_psprintf("%s/blkio", cgroup_root());
	for (int i = 0; i < 2; i++)
	{
		struct stat st;

		d.cgroup_parent = parents[i];
		d.cgroup = wsb_psprintf("%s/%s", parents[i], strrchr(workdir, '/') + 1);
		d.cgroup_procs = wsb_psprintf("%s/cgroup.procs", d.cgroup);
		if (lstat(d.cgroup, &st) == 0 && S_ISDIR(st.st_mode))
		{
			undo_cgroup(&d);
			appendPQExpBuffer(done, ", cgroup %s", d.cgroup);
		}
		free(d.cgroup);
		free(d.cgroup_procs);
		free(parents[i]);
	}
	d.mountpoint = wsb_psprintf("%s/slow_disk", workdir);
	if (is_mount_point(d.mountpoint))
	{
		undo_mount(&d);
		ok = !is_mount_point(d.mountpoint);
		if (ok)
			appendPQExpBuffer(done, ", mount %s", d.mountpoint);
	}
	d.image = wsb_psprintf("%s/slow_disk.img", workdir);
	if (ok && find_loop_device(&d, d.image))
	{
		undo_loop(&d);
		ok = !find_loop_device(&d, d.image);
		if (ok)
			appendPQExpBuffer(done, ", loop device %s", d.loopdev);
	}
	free(d.mountpoint);
	free(d.image);
	return ok;
}
