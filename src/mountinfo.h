/* The mount table: /proc/self/mountinfo parsed by util-linux's libmount,
 * and the mount a path sits on (jobprep's own walk of the mount tree).
 *
 * Each line is (proc(5)):
 *   ID PARENT MAJOR:MINOR ROOT MOUNT_POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER_OPTIONS
 * ROOT, MOUNT_POINT, SOURCE and FSTYPE escape space, tab, newline and
 * backslash as \ooo octal (\040 \011 \012 \134); the table holds them decoded
 * (a backslash not followed by three octal digits stays as it is). */
#ifndef JOBPREP_MOUNTINFO_H
#define JOBPREP_MOUNTINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jobprep/error.h"
#include "path_internal.h" /* jp_path_is_under, which jp_mount_table_find uses */

/* What a filesystem type means for a job. */
enum jp_fs_kind {
	JP_FS_LOCAL = 0,  /* a disk of this machine (ext4, xfs, btrfs, ...) */
	JP_FS_NETWORK,    /* network or cluster storage: nfs, lustre, fuse.sshfs... */
	JP_FS_EPHEMERAL,  /* memory or container layers: tmpfs, ramfs, overlay */
	JP_FS_PSEUDO,     /* kernel interfaces: proc, sysfs, cgroup, devpts... */
};

struct jp_mount {
	int id;
	int parent_id;
	unsigned major, minor;
	char *root;          /* the directory of the filesystem shown here ("/" unless a bind) */
	char *mount_point;   /* absolute, in this process's view */
	char *options;       /* per-mount options, e.g. "ro,nosuid" */
	char *optional;      /* optional fields joined by ' ', e.g. "shared:1"; "" if none */
	char *fstype;        /* e.g. "nfs4", "fuse.sshfs" */
	char *source;        /* e.g. "server:/export", "/dev/vda"; "" if none */
	char *super_options; /* per-superblock options */
	bool read_only;      /* "ro" in the mount's or the superblock's options */
};

/* Every field owned by the table; free with jp_mount_table_dispose. */
struct jp_mount_table {
	struct jp_mount *v;
	size_t n;
};

#define JP_MOUNT_TABLE_INIT { NULL, 0 }

/* Parse mountinfo text of `len` bytes (need not be NUL-terminated). A line
 * that does not follow the format, or whose root or mount point is not
 * absolute, is an error (JP_EFORMAT) naming its line number; blank lines and
 * '#' comments are passed over; `origin` names the text in messages. On
 * failure *out is left empty. */
int jp_mount_table_parse(struct jp_mount_table *out, const char *text, size_t len,
			 const char *origin, struct jp_error *err);
/* Read and parse a mountinfo file; path NULL means /proc/self/mountinfo. */
int jp_mount_table_load(struct jp_mount_table *out, const char *path, struct jp_error *err);
void jp_mount_table_dispose(struct jp_mount_table *table);

/* The mount an absolute, resolved path sits on: the kernel's view, walking
 * the mount tree from the root mount (a later mount on the same point, or on
 * an ancestor, hides the earlier one; "/data2" is not under "/data"). NULL if
 * none covers it. Borrowed from the table. */
const struct jp_mount *jp_mount_table_find(const struct jp_mount_table *table, const char *path);

/* What a filesystem type means (the type as in mountinfo: "fuse.sshfs"). */
enum jp_fs_kind jp_fs_kind_of(const char *fstype);
/* What a statfs(2) f_type magic means; *known says whether it was recognised,
 * and *name (may be NULL) gets a static short name such as "nfs". */
enum jp_fs_kind jp_fs_kind_of_magic(int64_t magic, bool *known, const char **name);
/* Short English name of a kind ("local disk", "network storage", ...). */
const char *jp_fs_kind_name(enum jp_fs_kind kind);

/* Whether path sits on this machine's own storage (a disk, tmpfs, a
 * container layer: not a network filesystem), by the mount table; false
 * when the table cannot be read. A look there that did not answer in time
 * says the machine was busy, not that a mount hung. */
bool jp_mount_path_is_own(const char *path);

#endif
