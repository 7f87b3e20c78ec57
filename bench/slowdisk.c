/*-------------------------------------------------------------------------
 *
 * slowdisk.c
 *		wal_stall_bench: --slow-wal / --slow-disk, a throttled disk.
 *
 * A sparse file in the work directory becomes a loop device with an ext4
 * file system, mounted in the work directory; pg_wal (--slow-wal) or the
 * whole data directory (--slow-disk) is created on it by initdb.  A cgroup
 * v1 blkio group limits writes to that device alone (write_iops_device,
 * and write_bps_device for --slow-wal-mbps); the postmaster starts inside
 * it, so every backend it forks inherits the limit.  Each resource is
 * registered in the cleanup list the moment it exists, and the cleanups
 * undo it in reverse order: cgroup, mount, loop device, file.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "engine.h"

#define BLKIO_ROOT "/sys/fs/cgroup/blkio"

/* Can we throttle here?  Checked before anything is created. */
int
wsb_slowdisk_check(const WsbOptions *o, char *err, size_t errlen)
{
	const char *flag = o->slow_wal_iops ? "--slow-wal" : "--slow-disk";
	char		path[1024];
	const char *progs[] = {"losetup", "mkfs.ext4", "mount", "umount", NULL};

	if (!o->slow_wal_iops && !o->slow_disk_iops)
		return 0;
	if (geteuid() != 0)
	{
		snprintf(err, errlen, "%s needs root: it creates a loop device, a mount and a blkio cgroup", flag);
		return -1;
	}
	if (access(BLKIO_ROOT "/blkio.throttle.write_iops_device", F_OK) != 0)
	{
		snprintf(err, errlen, "%s needs the cgroup v1 blkio controller, and " BLKIO_ROOT " has no blkio.throttle.write_iops_device", flag);
		return -1;
	}
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

static int
run_tool(char *out, size_t outlen, const char *prog, const char *a1, const char *a2,
		 const char *a3, const char *a4)
{
	WsbCommand	c;
	char		path[1024];
	char		buf[256];
	int			rc;

	if (!wsb_which(prog, path, sizeof(path)))
		return -1;
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
	rc = wsb_cmd_output(&c, out ? out : buf, out ? outlen : sizeof(buf));
	wsb_cmd_free(&c);
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
		if (run_tool(NULL, 0, "losetup", "-d", d->loopdev, NULL, NULL) == 0)
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
		if (run_tool(NULL, 0, "umount", d->mountpoint, NULL, NULL, NULL) == 0)
		{
			rmdir(d->mountpoint);
			return;
		}
		usleep(100000);
	}
	wsb_error("could not unmount \"%s\"", d->mountpoint);
}

/*
 * Remove the cgroup.  The last server processes leave it a moment after
 * pg_ctl stop returns; anything still in it after 5 s is moved to the root
 * group so that the directory can go.
 */
static void
undo_cgroup(void *arg)
{
	WsbSlowDisk *d = arg;

	for (int i = 0; i < 50; i++)
	{
		if (rmdir(d->cgroup) == 0 || errno == ENOENT)
			return;
		usleep(100000);
	}
	{
		char	   *pids = wsb_read_file(d->cgroup_procs, NULL);
		char	   *save = NULL;

		for (char *p = pids ? strtok_r(pids, "\n", &save) : NULL; p; p = strtok_r(NULL, "\n", &save))
		{
			FILE	   *f = fopen(BLKIO_ROOT "/cgroup.procs", "w");

			if (f)
			{
				fprintf(f, "%s\n", p);
				fclose(f);
			}
		}
		free(pids);
	}
	for (int i = 0; i < 20; i++)
	{
		if (rmdir(d->cgroup) == 0 || errno == ENOENT)
			return;
		usleep(100000);
	}
	wsb_error("could not remove cgroup \"%s\": %s", d->cgroup, strerror(errno));
}

static int
write_limit(const char *cgroup, const char *file, unsigned maj, unsigned min, long long v,
			char *err, size_t errlen)
{
	char		path[1200];
	FILE	   *f;

	snprintf(path, sizeof(path), "%s/%s", cgroup, file);
	f = fopen(path, "w");
	if (f == NULL || fprintf(f, "%u:%u %lld\n", maj, min, v) < 0 || fclose(f) != 0)
	{
		snprintf(err, errlen, "could not write \"%u:%u %lld\" to \"%s\": %s", maj, min, v, path, strerror(errno));
		return -1;
	}
	return 0;
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
	char		out[256];

	memset(d, 0, sizeof(*d));
	if (!o->slow_wal_iops && !o->slow_disk_iops)
		return 0;
	strcpy(d->what, wal ? "pg_wal" : "data directory");

	snprintf(d->image, sizeof(d->image), "%s/slow_disk.img", workdir);
	fd = open(d->image, O_WRONLY | O_CREAT | O_EXCL, 0600);
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

	if (run_tool(out, sizeof(out), "losetup", "-f", "--show", d->image, NULL) != 0 ||
		strncmp(out, "/dev/", 5) != 0)
	{
		snprintf(err, errlen, "could not attach a loop device to \"%s\" (losetup -f --show): %s", d->image, out);
		return -1;
	}
	wsb_strlcpy(d->loopdev, out, sizeof(d->loopdev));
	wsb_cleanup_push("loop device", undo_loop, d);
	if (stat(d->loopdev, &st) != 0 || !S_ISBLK(st.st_mode))
	{
		snprintf(err, errlen, "\"%s\" is not a block device", d->loopdev);
		return -1;
	}
	d->major = major(st.st_rdev);
	d->minor = minor(st.st_rdev);

	if (run_tool(out, sizeof(out), "mkfs.ext4", "-q", "-F", d->loopdev, NULL) != 0)
	{
		snprintf(err, errlen, "mkfs.ext4 on \"%s\" failed: %s", d->loopdev, out);
		return -1;
	}
	snprintf(d->mountpoint, sizeof(d->mountpoint), "%s/slow_disk", workdir);
	if (mkdir(d->mountpoint, 0700) != 0)
	{
		snprintf(err, errlen, "could not create \"%s\": %s", d->mountpoint, strerror(errno));
		return -1;
	}
	if (run_tool(out, sizeof(out), "mount", "-o", "noatime", d->loopdev, d->mountpoint) != 0)
	{
		rmdir(d->mountpoint);
		snprintf(err, errlen, "could not mount \"%s\" on \"%s\": %s", d->loopdev, d->mountpoint, out);
		return -1;
	}
	wsb_cleanup_push("mount", undo_mount, d);
	if (chown(d->mountpoint, owner, group) != 0 || chmod(d->mountpoint, 0700) != 0)
	{
		snprintf(err, errlen, "could not give \"%s\" to the cluster's owner: %s", d->mountpoint, strerror(errno));
		return -1;
	}

	snprintf(d->cgroup, sizeof(d->cgroup), BLKIO_ROOT "/wal_stall_bench.%d", (int) getpid());
	if (mkdir(d->cgroup, 0755) != 0)
	{
		snprintf(err, errlen, "could not create cgroup \"%s\": %s", d->cgroup, strerror(errno));
		return -1;
	}
	snprintf(d->cgroup_procs, sizeof(d->cgroup_procs), "%s/cgroup.procs", d->cgroup);
	wsb_cleanup_push("blkio cgroup", undo_cgroup, d);
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

	if (!d->active)
		return 0;
	if (write_limit(d->cgroup, "blkio.throttle.write_iops_device", d->major, d->minor,
					wal ? o->slow_wal_iops : o->slow_disk_iops, err, errlen) != 0)
		return -1;
	if (wal && o->slow_wal_mbps &&
		write_limit(d->cgroup, "blkio.throttle.write_bps_device", d->major, d->minor,
					(long long) o->slow_wal_mbps * 1024 * 1024, err, errlen) != 0)
		return -1;
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
		snprintf(buf, len, "pg_wal alone on loop device %u:%u (ext4), writes throttled to %d IOPS%s%.0d%s",
				 d->major, d->minor, o->slow_wal_iops,
				 o->slow_wal_mbps ? " and " : "", o->slow_wal_mbps, o->slow_wal_mbps ? " MB/s" : "");
	else
		snprintf(buf, len, "data directory on loop device %u:%u (ext4), writes throttled to %d IOPS",
				 d->major, d->minor, o->slow_disk_iops);
}
