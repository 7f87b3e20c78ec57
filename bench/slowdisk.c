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
 * limit.
 *
 * With --slow-wal the file system keeps its journal on a device of its
 * own, so that a limit can reach it: the block layer charges the journal's
 * writes (REQ_META) to a cgroup's limits but never holds them back, so
 * ext4's own journal on the throttled device would go at full speed.  The
 * journal device is a loop device with direct I/O on a second loop device,
 * the store; the store's writes come from the loop driver on behalf of the
 * journal thread (jbd2), which is moved into the cgroup, and they are plain
 * writes, held back by a limit on the store.  An fsync that must commit the
 * journal (after the file's size or times changed) then waits for it, as
 * on the seeds' disks; an fdatasync of a file already allocated does not.
 *
 * Each resource is registered in the cleanup list the moment it exists,
 * and the cleanups undo it in reverse order: cgroup (its processes moved
 * back to the parent first), the io controller if we enabled it, mount,
 * journal device, store, the store's file, loop device, file.
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
#include <stdarg.h>
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
 * prog with its arguments, a NULL-terminated list: its exit status, and its
 * output whole in *out (malloc'd, "" if prog is not found; the caller frees
 * it) unless out is NULL.
 */
static int
run_tool(char **out, const char *prog,...)
{
	WsbCommand	c;
	char		path[1024];
	char	   *text;
	const char *arg;
	va_list		args;
	int			rc;

	if (!wsb_which(prog, path, sizeof(path)))
	{
		if (out)
			*out = wsb_xstrdup("");
		return -1;
	}
	wsb_cmd_init(&c, (uid_t) -1, (gid_t) -1);
	wsb_cmd_add(&c, "%s", path);
	va_start(args, prog);
	while ((arg = va_arg(args, const char *)) != NULL)
		wsb_cmd_add(&c, "%s", arg);
	va_end(args);
	rc = wsb_cmd_output(&c, &text);
	wsb_cmd_free(&c);
	if (out)
		*out = text;
	else
		free(text);
	return rc;
}

/*
 * Write one line to a cgroup interface file, in one write: the kernel
 * takes each write as one command (one device's limits, one pid).  what
 * says what the write was for, so that a failure says it too.
 */
static int
write_cgroup_file(const char *path, const char *line, const char *what,
				  char *err, size_t errlen)
{
	FILE	   *f = fopen(path, "w");
	bool		ok = f != NULL && fprintf(f, "%s\n", line) >= 0;

	if (f != NULL && fclose(f) != 0)
		ok = false;
	if (!ok)
	{
		snprintf(err, errlen, "could not %s: could not write \"%s\" to \"%s\": %s",
				 what, line, path, strerror(errno));
		return -1;
	}
	return 0;
}

/* A v1 blkio limit, "MAJ:MIN VALUE" (0 removes the rule). */
static int
write_blkio_limit(const char *cgroup, const char *file, unsigned maj, unsigned min, long long v,
				  char *err, size_t errlen)
{
	char	   *path = wsb_psprintf("%s/%s", cgroup, file);
	char	   *line = wsb_psprintf("%u:%u %lld", maj, min, v);
	int			rc = write_cgroup_file(path, line, "set a blkio limit", err, errlen);

	free(path);
	free(line);
	return rc;
}

static bool find_loop_device(const char *backing, char *dev, size_t devlen);

/*
 * Remove an image (arg: its path), unless a loop device still uses it:
 * the sweep finds the device by it.
 */
static void
undo_image(void *arg)
{
	const char *image = arg;
	char		dev[64];

	if (find_loop_device(image, dev, sizeof(dev)))
		wsb_error("\"%s\" is still attached to \"%s\": kept, for the next start to undo", image, dev);
	else
		unlink(image);
}

/* Is the loop device dev attached (its backing_file in sysfs)? */
static bool
loop_attached(const char *dev)
{
	char	   *path = wsb_psprintf("/sys/block/%s/loop/backing_file", strrchr(dev, '/') + 1);
	bool		attached = access(path, F_OK) == 0;

	free(path);
	return attached;
}

/*
 * Detach a loop device and wait until it has gone:
 * losetup -d only marks a busy device to go when its last user closes it,
 * and its file must not be removed under a device the sweep could then not
 * find by it.
 */
static void
detach_loop(const char *dev)
{
	for (int i = 0; i < 40 && loop_attached(dev); i++)
	{
		if (run_tool(NULL, "losetup", "-d", dev, NULL) != 0 || loop_attached(dev))
			usleep(100000);
	}
	if (loop_attached(dev))
		wsb_error("could not detach loop device \"%s\" (losetup -d %s): it is still in use", dev, dev);
}

/* arg: the device's path */
static void
undo_loop(void *arg)
{
	detach_loop(arg);
}

static void
undo_mount(void *arg)
{
	WsbSlowDisk *d = arg;

	for (int i = 0; i < 50; i++)
	{
		if (run_tool(NULL, "umount", d->mountpoint, NULL) == 0)
		{
			rmdir(d->mountpoint);
			return;
		}
		usleep(100000);
	}
	wsb_error("could not unmount \"%s\"", d->mountpoint);
}

/* the kernel's PF_KTHREAD (include/linux/sched.h), in /proc/PID/stat's flags */
#define PROC_FLAG_KERNEL_THREAD 0x00200000

/* Is pid a kernel thread? */
static bool
is_kernel_thread(pid_t pid)
{
	char	   *path = wsb_psprintf("/proc/%d/stat", (int) pid);
	char	   *text = wsb_read_file(path, NULL);
	char	   *p = text ? strrchr(text, ')') : NULL;
	unsigned long flags = 0;

	/* after the name: state, ppid, pgrp, session, tty, tpgid, flags */
	if (p == NULL || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
		flags = 0;
	free(path);
	free(text);
	return (flags & PROC_FLAG_KERNEL_THREAD) != 0;
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
 * (and the journal thread at once) is moved back to the parent cgroup so
 * that the directory can go.  (A
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
		bool		servers = false;

		/* the journal thread stays until moved: wait for the server only */
		n = live_pids(d->cgroup_procs, pids, 256);
		for (int j = 0; j < n && !servers; j++)
			servers = !is_kernel_thread(pids[j]);
		if (!servers)
			break;
		usleep(100000);
	}
	parent_procs = wsb_psprintf("%s/cgroup.procs", d->cgroup_parent);
	for (int i = 0; i < n; i++)
	{
		char		pid[16];
		char		err[256];

		/* one that cannot move keeps the cgroup, and rmdir below says so */
		snprintf(pid, sizeof(pid), "%d", (int) pids[i]);
		(void) write_cgroup_file(parent_procs, pid, "move a process back", err, sizeof(err));
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
	char		err[512];

	if (write_cgroup_file(path, "-io", "disable the io controller", err, sizeof(err)) != 0)
		wsb_error("%s (another cgroup may use the io controller now)", err);
	free(path);
}

/* A sparse file of size bytes, new (O_EXCL, in root's work directory): never another's file. */
static int
make_image(const char *path, long long size, char *err, size_t errlen)
{
	int			fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0)
	{
		snprintf(err, errlen, "could not create \"%s\": %s", path, strerror(errno));
		return -1;
	}
	if (ftruncate(fd, size) != 0)
	{
		snprintf(err, errlen, "could not size \"%s\": %s", path, strerror(errno));
		close(fd);
		unlink(path);
		return -1;
	}
	close(fd);
	return 0;
}

/* A free loop device on backing (a file or a device), into dev. */
static int
attach_loop(const char *backing, bool direct_io, char *dev, size_t devlen, char *err, size_t errlen)
{
	char	   *out;
	int			rc;

	rc = direct_io ? run_tool(&out, "losetup", "-f", "--show", "--direct-io=on", backing, NULL) :
		run_tool(&out, "losetup", "-f", "--show", backing, NULL);
	if (rc != 0 || strncmp(out, "/dev/", 5) != 0 || strlen(out) >= devlen)
	{
		snprintf(err, errlen, "could not attach a loop device to \"%s\" (losetup -f --show): %s",
				 backing, out);
		free(out);
		return -1;
	}
	wsb_strlcpy(dev, out, devlen);
	free(out);
	return 0;
}

static int
device_numbers(const char *dev, unsigned *maj, unsigned *min, char *err, size_t errlen)
{
	struct stat st;

	if (stat(dev, &st) != 0 || !S_ISBLK(st.st_mode))
	{
		snprintf(err, errlen, "\"%s\" is not a block device", dev);
		return -1;
	}
	*maj = major(st.st_rdev);
	*min = minor(st.st_rdev);
	return 0;
}

/*
 * The external journal for pg_wal's file system: the store (a loop device
 * on a file of its own) and the journal device (direct I/O on the store),
 * made a journal by mkfs.ext4 -O journal_dev.
 */
static int
make_journal(WsbSlowDisk *d, const char *workdir, char *err, size_t errlen)
{
	char	   *out;
	char	   *path;
	char	   *dio;
	int			rc;

	d->journal_image = wsb_psprintf("%s/slow_journal.img", workdir);
	if (make_image(d->journal_image, 128LL << 20, err, errlen) != 0)
		return -1;
	wsb_cleanup_push("journal store image", undo_image, d->journal_image);
	if (attach_loop(d->journal_image, false, d->store_loopdev, sizeof(d->store_loopdev),
					err, errlen) != 0)
		return -1;
	wsb_cleanup_push("journal store loop device", undo_loop, d->store_loopdev);
	if (device_numbers(d->store_loopdev, &d->store_major, &d->store_minor, err, errlen) != 0)
		return -1;
	if (attach_loop(d->store_loopdev, true, d->journal_loopdev, sizeof(d->journal_loopdev),
					err, errlen) != 0)
		return -1;
	wsb_cleanup_push("journal loop device", undo_loop, d->journal_loopdev);
	if ((rc = run_tool(&out, "mkfs.ext4", "-q", "-F", "-O", "journal_dev", "-b", "4096",
					   d->journal_loopdev, NULL)) != 0)
	{
		snprintf(err, errlen, "could not make \"%s\" an ext4 journal device: mkfs.ext4 exited with status %d%s%s",
				 d->journal_loopdev, rc, out[0] ? ": " : "", out);
		free(out);
		return -1;
	}
	free(out);
	/* without direct I/O the store's writes would come from writeback, outside the cgroup */
	path = wsb_psprintf("/sys/block/%s/loop/dio", strrchr(d->journal_loopdev, '/') + 1);
	dio = wsb_read_file(path, NULL);
	d->journal_throttled = dio != NULL && atoi(dio) == 1;
	if (!d->journal_throttled)
		wsb_note("\"%s\" does not do direct I/O on \"%s\": the journal is not throttled, "
				 "and --wal-disk's fsync rate will not come near the seed's",
				 d->journal_loopdev, d->store_loopdev);
	free(path);
	free(dio);
	return 0;
}

/*
 * Move the file system's journal thread into the cgroup, so that the
 * store's writes it causes are the cgroup's.  ext4 names it in
 * /sys/fs/ext4/DEVICE/journal_task (a kernel without that file gets a note
 * and no move).  The cgroup's removal moves it back.
 */
static int
move_journal_thread(WsbSlowDisk *d, char *err, size_t errlen)
{
	char	   *path = wsb_psprintf("/sys/fs/ext4/%s/journal_task", strrchr(d->loopdev, '/') + 1);
	char	   *text = wsb_read_file(path, NULL);
	long		pid = text ? atol(text) : 0;
	int			rc = 0;

	if (pid <= 0)
	{
		/* an older kernel: the runs go on, with the journal not throttled */
		wsb_note("could not find the journal thread of \"%s\" (no \"%s\"): its journal is not "
				 "throttled, and --wal-disk's fsync rate will not come near the seed's", d->loopdev, path);
		d->journal_throttled = false;
	}
	else
	{
		char		line[24];
		char		what[64];

		snprintf(line, sizeof(line), "%ld", pid);
		snprintf(what, sizeof(what), "move the journal thread (pid %ld)", pid);
		rc = write_cgroup_file(d->cgroup_procs, line, what, err, errlen);
	}
	free(path);
	free(text);
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
	char	   *out;
	char	   *journal = NULL;
	int			rc;

	memset(d, 0, sizeof(*d));
	if (!o->slow_wal_iops && !o->slow_disk_iops)
		return 0;
	strcpy(d->what, wal ? "pg_wal" : "data directory");
	if (wsb_dir_is_private(workdir, "the work directory", err, errlen) != 0)
		return -1;

	d->image = wsb_psprintf("%s/slow_disk.img", workdir);
	if (make_image(d->image, size, err, errlen) != 0)
		return -1;
	wsb_cleanup_push("loop device image", undo_image, d->image);
	if (attach_loop(d->image, false, d->loopdev, sizeof(d->loopdev), err, errlen) != 0)
		return -1;
	wsb_cleanup_push("loop device", undo_loop, d->loopdev);
	if (device_numbers(d->loopdev, &d->major, &d->minor, err, errlen) != 0)
		return -1;
	if (wal && make_journal(d, workdir, err, errlen) != 0)
		return -1;

	if ((rc = wal ? run_tool(&out, "mkfs.ext4", "-q", "-F", "-b", "4096", "-J",
							 (journal = wsb_psprintf("device=%s", d->journal_loopdev)), d->loopdev, NULL) :
		 run_tool(&out, "mkfs.ext4", "-q", "-F", d->loopdev, NULL)) != 0)
	{
		snprintf(err, errlen, "could not make an ext4 file system on \"%s\": mkfs.ext4 exited with status %d%s%s",
				 d->loopdev, rc, out[0] ? ": " : "", out);
		free(out);
		free(journal);
		return -1;
	}
	free(out);
	free(journal);
	d->mountpoint = wsb_psprintf("%s/slow_disk", workdir);
	if (mkdir(d->mountpoint, 0700) != 0)
	{
		snprintf(err, errlen, "could not create \"%s\": %s", d->mountpoint, strerror(errno));
		return -1;
	}
	if (run_tool(&out, "mount", "-o", "noatime", d->loopdev, d->mountpoint, NULL) != 0)
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
		int			rc = 0;

		if (!file_has_word(path, "io"))
		{
			if ((rc = write_cgroup_file(path, "+io", "enable the io controller", err, errlen)) == 0)
				wsb_cleanup_push("io controller", undo_io_controller, d);
		}
		free(path);
		if (rc != 0)
			return -1;
	}
	/* named as the work directory, whose name target.c keeps unique across
	 * /tmp and /dev/shm: the sweep finds it so */
	d->cgroup = wsb_psprintf("%s/%s", d->cgroup_parent, strrchr(workdir, '/') + 1);
	if (mkdir(d->cgroup, 0755) != 0)
	{
		snprintf(err, errlen, "could not create cgroup \"%s\": %s", d->cgroup, strerror(errno));
		return -1;
	}
	d->cgroup_procs = wsb_psprintf("%s/cgroup.procs", d->cgroup);
	wsb_cleanup_push(d->cgroup_version == 2 ? "io cgroup" : "blkio cgroup", undo_cgroup, d);
	if (wal && move_journal_thread(d, err, errlen) != 0)
		return -1;
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
	long long	journal_bps = wal ? o->slow_journal_kbps * 1024LL : 0;

	if (!d->active)
		return 0;
	if (d->cgroup_version == 2)
	{
		char	   *path = wsb_psprintf("%s/io.max", d->cgroup);
		PQExpBufferData line;
		int			rc;

		/* one line, both keys: the device's limits are set together */
		initPQExpBuffer(&line);
		appendPQExpBuffer(&line, "%u:%u wiops=%d", d->major, d->minor,
						  wal ? o->slow_wal_iops : o->slow_disk_iops);
		if (bps > 0)
			appendPQExpBuffer(&line, " wbps=%lld", bps);
		else if (d->bps_limited)
			appendPQExpBufferStr(&line, " wbps=max");
		rc = write_cgroup_file(path, wsb_buffer_text(&line), "set the io limit", err, errlen);
		if (rc == 0)
			d->bps_limited = bps > 0;
		/* a write a device: the journal's store has its own line */
		resetPQExpBuffer(&line);
		if (journal_bps > 0)
			appendPQExpBuffer(&line, "%u:%u wbps=%lld", d->store_major, d->store_minor, journal_bps);
		else if (d->journal_limited)
			appendPQExpBuffer(&line, "%u:%u wbps=max", d->store_major, d->store_minor);
		if (rc == 0 && line.len > 0 && (rc = write_cgroup_file(path, wsb_buffer_text(&line), "set the journal's io limit",
														   err, errlen)) == 0)
			d->journal_limited = journal_bps > 0;
		termPQExpBuffer(&line);
		free(path);
		return rc;
	}
	if (write_blkio_limit(d->cgroup, "blkio.throttle.write_iops_device", d->major, d->minor,
					wal ? o->slow_wal_iops : o->slow_disk_iops, err, errlen) != 0)
		return -1;
	/* 0 removes the rule */
	if ((bps > 0 || d->bps_limited) &&
		write_blkio_limit(d->cgroup, "blkio.throttle.write_bps_device", d->major, d->minor, bps,
					err, errlen) != 0)
		return -1;
	d->bps_limited = bps > 0;
	if ((journal_bps > 0 || d->journal_limited) &&
		write_blkio_limit(d->cgroup, "blkio.throttle.write_bps_device", d->store_major, d->store_minor,
					journal_bps, err, errlen) != 0)
		return -1;
	d->journal_limited = journal_bps > 0;
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
		char		journal[96] = "";

		if (wsb_wal_cap_mbps(o) > 0)
			snprintf(cap, sizeof(cap), " and %.3g MB/s", wsb_wal_cap_mbps(o));
		if (o->slow_journal_kbps > 0)
			snprintf(journal, sizeof(journal), ", its journal's store (%u:%u) to %d kB/s",
					 d->store_major, d->store_minor, o->slow_journal_kbps);
		snprintf(buf, len, "pg_wal alone on loop device %u:%u (ext4, its journal on a device of its own), "
				 "writes throttled to %d IOPS%s%s (%s)",
				 d->major, d->minor, o->slow_wal_iops, cap, journal,
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

/* The loop device whose backing file is backing, into dev; false if none. */
static bool
find_loop_device(const char *backing, char *dev, size_t devlen)
{
	DIR		   *dir = opendir("/sys/block");
	struct dirent *e;
	bool		found = false;

	while (dir && !found && (e = readdir(dir)) != NULL)
	{
		char	   *path;
		char	   *text;

		if (strncmp(e->d_name, "loop", 4) != 0 || strlen(e->d_name) > 32)
			continue;
		path = wsb_psprintf("/sys/block/%s/loop/backing_file", e->d_name);
		text = wsb_read_file(path, NULL);
		free(path);
		if (text && strcmp(wsb_trim(text), backing) == 0)
		{
			snprintf(dev, devlen, "/dev/%.32s", e->d_name);
			found = true;
		}
		free(text);
	}
	if (dir)
		closedir(dir);
	return found;
}

/* Detach the loop device on backing, if any; false if it stays. */
static bool
sweep_loop_device(const char *backing, PQExpBuffer done)
{
	char		dev[64];

	if (!find_loop_device(backing, dev, sizeof(dev)))
		return true;
	detach_loop(dev);
	if (find_loop_device(backing, dev, sizeof(dev)))
		return false;
	appendPQExpBuffer(done, ", loop device %s", dev);
	return true;
}

/*
 * wsb_slowdisk_sweep
 *		Undo the slow disk a killed harness left in workdir, as its cleanups
 *		would have: its cgroup (v2 or v1, named as workdir), the mount, the
 *		journal's loop devices, the loop device.  What is not there is
 *		skipped; what was undone is
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
	d.journal_image = wsb_psprintf("%s/slow_journal.img", workdir);
	if (ok && find_loop_device(d.journal_image, d.store_loopdev, sizeof(d.store_loopdev)))
	{
		/* the journal device's backing file is the store */
		ok = sweep_loop_device(d.store_loopdev, done) && sweep_loop_device(d.journal_image, done);
	}
	d.image = wsb_psprintf("%s/slow_disk.img", workdir);
	ok = ok && sweep_loop_device(d.image, done);
	free(d.mountpoint);
	free(d.journal_image);
	free(d.image);
	return ok;
}
