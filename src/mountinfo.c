/* The mount table: /proc/self/mountinfo parsed by util-linux's libmount
 * (which decodes the \ooo escapes), checked, and the mount a path sits on. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <libmount.h>

#include "jobprep/i18n.h"
#include "mountinfo.h"
#include "path_internal.h"

#define MOUNTINFO_MAX_BYTES (64u << 20)

static void mount_dispose(struct jp_mount *m)
{
	free(m->root);
	free(m->mount_point);
	free(m->options);
	free(m->optional);
	free(m->fstype);
	free(m->source);
	free(m->super_options);
	memset(m, 0, sizeof(*m));
}

void jp_mount_table_dispose(struct jp_mount_table *table)
{
	for (size_t i = 0; i < table->n; i++)
		mount_dispose(&table->v[i]);
	free(table->v);
	table->v = NULL;
	table->n = 0;
}

/* True when the comma-separated list `opts` has the element `want`. */
static bool has_option(const char *opts, const char *want)
{
	size_t wl = strlen(want);
	const char *p = opts;
	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len == wl && memcmp(p, want, wl) == 0)
			return true;
		p = end ? end + 1 : NULL;
	}
	return false;
}

/* A copy of s, "" for NULL (libmount leaves absent fields NULL). */
static char *copy_field(const char *s)
{
	return strdup(s ? s : "");
}

/* One entry libmount parsed into *m; returns a static reason when it breaks
 * a rule of jobprep's (libmount takes relative paths), NULL when out of
 * memory, "" when it is a mount. */
static const char *take_fs(struct jp_mount *m, struct libmnt_fs *fs)
{
	const char *root = mnt_fs_get_root(fs), *target = mnt_fs_get_target(fs);
	dev_t dev = mnt_fs_get_devno(fs);

	/* no root: the first line did not look like mountinfo, and libmount
	 * read the text as an fstab */
	if (!root || mnt_fs_get_id(fs) < 0 || mnt_fs_get_parent_id(fs) < 0)
		return N_("not a line of the mountinfo format");
	if (root[0] != '/')
		return N_("the root field must be an absolute path");
	if (!target || target[0] != '/')
		return N_("the mount point must be an absolute path");
	m->id = mnt_fs_get_id(fs);
	m->parent_id = mnt_fs_get_parent_id(fs);
	m->major = major(dev);
	m->minor = minor(dev);
	m->root = copy_field(root);
	m->mount_point = copy_field(target);
	m->options = copy_field(mnt_fs_get_vfs_options(fs));
	m->optional = copy_field(mnt_fs_get_optional_fields(fs));
	m->fstype = copy_field(mnt_fs_get_fstype(fs));
	m->source = copy_field(mnt_fs_get_source(fs));
	m->super_options = copy_field(mnt_fs_get_fs_options(fs));
	if (!m->root || !m->mount_point || !m->options || !m->optional || !m->fstype ||
	    !m->source || !m->super_options)
		return NULL;
	m->read_only = has_option(m->options, "ro") || has_option(m->super_options, "ro");
	return "";
}

/* The line number of the n-th (from 0) line holding a mount: libmount
 * passes over blank lines and '#' comments. */
static size_t line_of_entry(const char *text, size_t len, size_t n)
{
	size_t line = 0;

	for (size_t pos = 0; pos < len;) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len, c = pos;

		line++;
		while (c < end && (text[c] == ' ' || text[c] == '\t'))
			c++;
		if (c < end && text[c] != '#' && n-- == 0)
			return line;
		pos = end + 1;
	}
	return line;
}

/* libmount's parser calls this on a line it cannot read: remember the
 * first, and stop (a table with a line left out would mislead). */
static int on_bad_line(struct libmnt_table *tb, const char *filename, int line)
{
	int *bad = mnt_table_get_userdata(tb);

	(void)filename;
	if (bad && !*bad)
		*bad = line > 0 ? line : 1;
	return -EINVAL;
}

/* The entries of the parsed table into *t; 0, JP_ENOMEM or JP_EFORMAT. */
static int take_table(struct jp_mount_table *t, struct libmnt_table *tb, const char *text,
		      size_t len, const char *origin, struct jp_error *err)
{
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	int n = mnt_table_get_nents(tb);
	struct libmnt_fs *fs;
	int rc = 0;

	if (!it || (n > 0 && !(t->v = calloc((size_t)n, sizeof(*t->v))))) {
		rc = jp_error_oom(err);
		goto out;
	}
	while (t->n < (size_t)n && mnt_table_next_fs(tb, it, &fs) == 0) {
		const char *why = take_fs(&t->v[t->n], fs);

		if (!why) {
			mount_dispose(&t->v[t->n]);
			rc = jp_error_oom(err);
			goto out;
		}
		if (*why) {
			mount_dispose(&t->v[t->n]);
			rc = jp_error_set(err, JP_EFORMAT, _("%s: line %zu: %s"), origin,
					  line_of_entry(text, len, t->n), _(why));
			goto out;
		}
		t->n++;
	}
out:
	mnt_free_iter(it);
	return rc;
}

int jp_mount_table_parse(struct jp_mount_table *out, const char *text, size_t len,
			 const char *origin, struct jp_error *err)
{
	struct jp_mount_table t = JP_MOUNT_TABLE_INIT;
	struct libmnt_table *tb = NULL;
	FILE *f = NULL;
	int bad = 0, rc = 0;

	out->v = NULL;
	out->n = 0;
	if (len == 0)
		return 0; /* fmemopen takes no empty buffer */
	if (!(tb = mnt_new_table()) || !(f = fmemopen((void *)text, len, "r"))) {
		rc = jp_error_oom(err);
		goto out;
	}
	mnt_table_set_userdata(tb, &bad);
	mnt_table_set_parser_errcb(tb, on_bad_line);
	if (mnt_table_parse_stream(tb, f, origin) != 0 || bad) {
		if (bad)
			rc = jp_error_set(err, JP_EFORMAT, _("%s: line %zu: %s"), origin, (size_t)bad,
					  _("not a line of the mountinfo format"));
		else
			rc = jp_error_oom(err);
		goto out;
	}
	if ((rc = take_table(&t, tb, text, len, origin, err)) != 0)
		goto out;
	*out = t;
	t.v = NULL;
	t.n = 0;
out:
	jp_mount_table_dispose(&t);
	if (f)
		fclose(f);
	mnt_unref_table(tb);
	return rc;
}

int jp_mount_table_load(struct jp_mount_table *out, const char *path, struct jp_error *err)
{
	const char *p = path ? path : "/proc/self/mountinfo";
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int fd = -1;
	int rc = 0;

	out->v = NULL;
	out->n = 0;
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = jp_error_set(err, errno == ENOENT ? JP_ENOENT : JP_EIO, _("%s: cannot open: %s"),
				  p, strerror(errno));
		goto out;
	}
	/* procfs files report size 0: read until end of file. */
	for (;;) {
		if (cap - len < 4096) {
			if (cap >= MOUNTINFO_MAX_BYTES) {
				rc = jp_error_set(err, JP_EFORMAT, _("%s: larger than %u MiB"), p,
						  MOUNTINFO_MAX_BYTES >> 20);
				goto out;
			}
			size_t ncap = cap ? cap * 2 : 16384;
			char *grown = realloc(buf, ncap);
			if (!grown) {
				rc = jp_error_oom(err);
				goto out;
			}
			buf = grown;
			cap = ncap;
		}
		ssize_t r = read(fd, buf + len, cap - len);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			rc = jp_error_set(err, JP_EIO, _("%s: cannot read: %s"), p, strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	rc = jp_mount_table_parse(out, buf ? buf : "", len, p, err);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return rc;
}

static size_t mp_len(const struct jp_mount *m)
{
	size_t l = strlen(m->mount_point);
	while (l > 1 && m->mount_point[l - 1] == '/')
		l--;
	return l;
}

static bool has_id(const struct jp_mount_table *t, int id)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].id == id)
			return true;
	return false;
}

/* Among the mounts `pick` accepts that cover `path`, the one with the
 * shortest mount point; on a tie the later line (mounted later) wins. A
 * deeper sibling under the same parent was mounted first and is hidden. */
static const struct jp_mount *shortest_cover(const struct jp_mount_table *t, const char *path,
					     const struct jp_mount *parent)
{
	const struct jp_mount *best = NULL;
	for (size_t i = 0; i < t->n; i++) {
		const struct jp_mount *m = &t->v[i];
		if (parent) {
			if (m->parent_id != parent->id || m == parent)
				continue;
		} else if (m->parent_id != m->id && has_id(t, m->parent_id)) {
			continue;
		}
		if (!jp_path_is_under(path, m->mount_point))
			continue;
		if (!best || mp_len(m) <= mp_len(best))
			best = m;
	}
	return best;
}

const struct jp_mount *jp_mount_table_find(const struct jp_mount_table *table, const char *path)
{
	if (!path || path[0] != '/')
		return NULL;
	const struct jp_mount *cur = shortest_cover(table, path, NULL);
	if (!cur) {
		/* No tree to walk (a hand-made or partial table): the longest
		 * mount point covering the path, the later line on a tie. */
		for (size_t i = 0; i < table->n; i++) {
			const struct jp_mount *m = &table->v[i];
			if (jp_path_is_under(path, m->mount_point) &&
			    (!cur || mp_len(m) >= mp_len(cur)))
				cur = m;
		}
		return cur;
	}
	for (size_t steps = 0; steps <= table->n; steps++) {
		const struct jp_mount *child = shortest_cover(table, path, cur);
		if (!child)
			break;
		cur = child;
	}
	return cur;
}

struct kind_name {
	const char *name;
	enum jp_fs_kind kind;
};

static const struct kind_name fs_types[] = {
	/* network and cluster filesystems */
	{ "nfs", JP_FS_NETWORK },
	{ "nfs4", JP_FS_NETWORK },
	{ "lustre", JP_FS_NETWORK },
	{ "gpfs", JP_FS_NETWORK },
	{ "ceph", JP_FS_NETWORK },
	{ "beegfs", JP_FS_NETWORK },
	{ "cifs", JP_FS_NETWORK },
	{ "smb3", JP_FS_NETWORK },
	{ "smbfs", JP_FS_NETWORK },
	{ "9p", JP_FS_NETWORK },
	{ "glusterfs", JP_FS_NETWORK },
	{ "afs", JP_FS_NETWORK },
	{ "gfs2", JP_FS_NETWORK },
	{ "ocfs2", JP_FS_NETWORK },
	{ "orangefs", JP_FS_NETWORK },
	{ "pvfs2", JP_FS_NETWORK },
	{ "panfs", JP_FS_NETWORK },
	{ "wekafs", JP_FS_NETWORK },
	{ "quobyte", JP_FS_NETWORK },
	{ "coda", JP_FS_NETWORK },
	{ "ncpfs", JP_FS_NETWORK },
	{ "cvmfs", JP_FS_NETWORK },
	/* memory and container layers */
	{ "tmpfs", JP_FS_EPHEMERAL },
	{ "ramfs", JP_FS_EPHEMERAL },
	{ "overlay", JP_FS_EPHEMERAL },
	{ "overlayfs", JP_FS_EPHEMERAL },
	{ "aufs", JP_FS_EPHEMERAL },
	{ "fuse.fuse-overlayfs", JP_FS_EPHEMERAL },
	/* FUSE filesystems that stay on this machine */
	{ "fuse", JP_FS_LOCAL },
	{ "fuseblk", JP_FS_LOCAL },
	{ "fuse.lxcfs", JP_FS_PSEUDO },
	{ "fuse.portal", JP_FS_PSEUDO },
	{ "fuse.gvfsd-fuse", JP_FS_PSEUDO },
	{ "fuse.squashfuse", JP_FS_LOCAL },
	{ "fuse.squashfuse_ll", JP_FS_LOCAL },
	{ "fuse.snapfuse", JP_FS_LOCAL },
	{ "fuse.ntfs-3g", JP_FS_LOCAL },
	{ "fuse.exfat", JP_FS_LOCAL },
	{ "fuse.bindfs", JP_FS_LOCAL },
	{ "fuse.mergerfs", JP_FS_LOCAL },
	{ "fuse.vmhgfs-fuse", JP_FS_LOCAL },
	{ "fuse.archivemount", JP_FS_LOCAL },
	{ "fuse.fuse-zip", JP_FS_LOCAL },
	/* kernel interfaces */
	{ "proc", JP_FS_PSEUDO },
	{ "sysfs", JP_FS_PSEUDO },
	{ "devtmpfs", JP_FS_PSEUDO },
	{ "devpts", JP_FS_PSEUDO },
	{ "cgroup", JP_FS_PSEUDO },
	{ "cgroup2", JP_FS_PSEUDO },
	{ "mqueue", JP_FS_PSEUDO },
	{ "debugfs", JP_FS_PSEUDO },
	{ "tracefs", JP_FS_PSEUDO },
	{ "securityfs", JP_FS_PSEUDO },
	{ "pstore", JP_FS_PSEUDO },
	{ "bpf", JP_FS_PSEUDO },
	{ "hugetlbfs", JP_FS_PSEUDO },
	{ "autofs", JP_FS_PSEUDO },
	{ "binfmt_misc", JP_FS_PSEUDO },
	{ "configfs", JP_FS_PSEUDO },
	{ "fusectl", JP_FS_PSEUDO },
	{ "efivarfs", JP_FS_PSEUDO },
	{ "nsfs", JP_FS_PSEUDO },
	{ "rpc_pipefs", JP_FS_PSEUDO },
	{ "selinuxfs", JP_FS_PSEUDO },
	{ "nfsd", JP_FS_PSEUDO },
};

enum jp_fs_kind jp_fs_kind_of(const char *fstype)
{
	if (!fstype)
		return JP_FS_LOCAL;
	for (size_t i = 0; i < sizeof(fs_types) / sizeof(fs_types[0]); i++)
		if (strcmp(fstype, fs_types[i].name) == 0)
			return fs_types[i].kind;
	/* Any other FUSE filesystem (sshfs, juicefs, gcsfuse, s3fs, rclone,
	 * ceph-fuse, glusterfs...) reaches storage over the network. */
	if (strncmp(fstype, "fuse.", 5) == 0 && fstype[5])
		return JP_FS_NETWORK;
	return JP_FS_LOCAL;
}

struct kind_magic {
	uint32_t magic;
	enum jp_fs_kind kind;
	const char *name;
};

static const struct kind_magic fs_magics[] = {
	{ 0x6969, JP_FS_NETWORK, "nfs" },
	{ 0xFF534D42, JP_FS_NETWORK, "cifs" },
	{ 0xFE534D42, JP_FS_NETWORK, "smb3" },
	{ 0x517B, JP_FS_NETWORK, "smbfs" },
	{ 0x00C36400, JP_FS_NETWORK, "ceph" },
	{ 0x0BD00BD0, JP_FS_NETWORK, "lustre" },
	{ 0x47504653, JP_FS_NETWORK, "gpfs" },
	{ 0x19830326, JP_FS_NETWORK, "beegfs" },
	{ 0x01021997, JP_FS_NETWORK, "9p" },
	{ 0x5346414F, JP_FS_NETWORK, "afs" },
	{ 0x6B414653, JP_FS_NETWORK, "afs" },
	{ 0x01161970, JP_FS_NETWORK, "gfs2" },
	{ 0x7461636F, JP_FS_NETWORK, "ocfs2" },
	{ 0x20030528, JP_FS_NETWORK, "orangefs" },
	{ 0x73757245, JP_FS_NETWORK, "coda" },
	{ 0x564C, JP_FS_NETWORK, "ncpfs" },
	{ 0x01021994, JP_FS_EPHEMERAL, "tmpfs" },
	{ 0x858458F6, JP_FS_EPHEMERAL, "ramfs" },
	{ 0x794C7630, JP_FS_EPHEMERAL, "overlay" },
	{ 0x61756673, JP_FS_EPHEMERAL, "aufs" },
	{ 0xEF53, JP_FS_LOCAL, "ext4" },
	{ 0x58465342, JP_FS_LOCAL, "xfs" },
	{ 0x9123683E, JP_FS_LOCAL, "btrfs" },
	{ 0xF2F52010, JP_FS_LOCAL, "f2fs" },
	{ 0x2FC12FC1, JP_FS_LOCAL, "zfs" },
	{ 0x4D44, JP_FS_LOCAL, "vfat" },
	{ 0x2011BAB0, JP_FS_LOCAL, "exfat" },
	{ 0x5346544E, JP_FS_LOCAL, "ntfs" },
	{ 0x73717368, JP_FS_LOCAL, "squashfs" },
	{ 0x9660, JP_FS_LOCAL, "iso9660" },
	{ 0x9FA0, JP_FS_PSEUDO, "proc" },
	{ 0x62656572, JP_FS_PSEUDO, "sysfs" },
	{ 0x1CD1, JP_FS_PSEUDO, "devpts" },
	{ 0x27E0EB, JP_FS_PSEUDO, "cgroup" },
	{ 0x63677270, JP_FS_PSEUDO, "cgroup2" },
};

enum jp_fs_kind jp_fs_kind_of_magic(int64_t magic, bool *known, const char **name)
{
	uint32_t m = (uint32_t)((uint64_t)magic & 0xFFFFFFFFu);
	for (size_t i = 0; i < sizeof(fs_magics) / sizeof(fs_magics[0]); i++) {
		if (fs_magics[i].magic == m) {
			if (known)
				*known = true;
			if (name)
				*name = fs_magics[i].name;
			return fs_magics[i].kind;
		}
	}
	/* FUSE (0x65735546) says nothing about where its data lives. */
	if (known)
		*known = false;
	if (name)
		*name = m == 0x65735546 ? "fuse" : NULL;
	return JP_FS_LOCAL;
}

const char *jp_fs_kind_name(enum jp_fs_kind kind)
{
	switch (kind) {
	case JP_FS_LOCAL:
		return _("local disk");
	case JP_FS_NETWORK:
		return _("network storage");
	case JP_FS_EPHEMERAL:
		return _("memory or container layer");
	case JP_FS_PSEUDO:
		return _("kernel pseudo-filesystem");
	}
	return _("unknown");
}

bool jp_mount_path_is_own(const char *path)
{
	struct jp_mount_table t = JP_MOUNT_TABLE_INIT;
	const struct jp_mount *m;
	bool own;

	if (!path || path[0] != '/' || jp_mount_table_load(&t, NULL, NULL) != 0)
		return false;
	m = jp_mount_table_find(&t, path);
	own = m && jp_fs_kind_of(m->fstype) != JP_FS_NETWORK;
	jp_mount_table_dispose(&t);
	return own;
}
