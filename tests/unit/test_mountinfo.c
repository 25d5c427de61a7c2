/* The mount table and path classes: recorded mountinfo texts with every
 * pitfall (octal escapes, optional fields, empty sources, bind roots,
 * stacked and hidden mounts, whole-component matching, a table listed out
 * of mount order), the filesystem kinds, and classification under the
 * default profile with a recorded table. Path resolution runs on real
 * symlinks in a scratch folder of the build directory. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "mountinfo.h"
#include "jobprep/pathclass.h"
#include "pathclass_internal.h"
#include "jobprep/profile.h"
#include "profile_internal.h"
#include "path_internal.h"

static char datadir[PATH_MAX];

static void load(struct jp_mount_table *t, const char *name)
{
	char path[PATH_MAX + 64];
	struct jp_error err = JP_ERROR_INIT;

	snprintf(path, sizeof(path), "%s/%s", datadir, name);
	int rc = jp_mount_table_load(t, path, &err);
	if (rc != 0)
		fail_msg("%s: %s", name, jp_error_message(&err));
	jp_error_dispose(&err);
}

static const struct jp_mount *find(const struct jp_mount_table *t, const char *path)
{
	const struct jp_mount *m = jp_mount_table_find(t, path);
	assert_non_null(m);
	return m;
}

static const struct jp_mount *by_id(const struct jp_mount_table *t, int id)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].id == id)
			return &t->v[i];
	fail_msg("no mount %d", id);
	return NULL;
}

static void octal_escapes_are_decoded_in_mount_points_and_sources(void **state)
{
	struct jp_mount_table t = JP_MOUNT_TABLE_INIT;
	(void)state;
	load(&t, "escapes.txt");
	assert_int_equal(t.n, 9);
	assert_string_equal(by_id(&t, 21)->mount_point, "/mnt/my data");
	assert_string_equal(by_id(&t, 21)->source, "nas:/my export");
	assert_string_equal(by_id(&t, 22)->mount_point, "/mnt/tab\tdir");
	assert_string_equal(by_id(&t, 22)->source, "tmp\tfs");
	assert_string_equal(by_id(&t, 23)->mount_point, "/mnt/new\nline");
	assert_string_equal(by_id(&t, 24)->mount_point, "/mnt/back\\slash");
	assert_string_equal(by_id(&t, 25)->root, "/srv/src dir");
	assert_string_equal(by_id(&t, 25)->mount_point, "/mnt/bind of src");
	assert_string_equal(by_id(&t, 28)->mount_point, "/mnt/unicode-数据");
	jp_mount_table_dispose(&t);
}

static void a_backslash_without_three_octal_digits_is_kept(void **state)
{
	struct jp_mount_table t = JP_MOUNT_TABLE_INIT;
	(void)state;
	load(&t, "escapes.txt");
	assert_string_equal(by_id(&t, 26)->mount_point, "/mnt/odd\\9x\\12");
	jp_mount_table_dispose(&t);
}

static void an_empty_source_leaves_the_fields_in_place(void **state)
{
	struct jp_mount_table t = JP_MOUNT_TABLE_INIT;
	(void)state;
	load(&t, "escapes.txt");
	const struct jp_mount *m = by_id(&t, 27);
	assert_string_equal(m->fstype, "tmpfs");
	assert_string_equal(m->source, "");
	assert_string_equal(m->super_options, "rw,size=4k");
	jp_mount_table_dispose(&t);
}

static void optional_fields_come_before_the_separator(void **state)
{
	struct jp_mount_table t = JP_MOUNT_TABLE_INIT;
	(void)state;
	load(&t, "container.txt");
	assert_int_equal(t.n, 27);
	const struct jp_mount *m = by_id(&t, 1530);
	assert_int_equal(m->parent_id, 1520);
	assert_int_equal(m->major, 0);
	assert_int_equal(m->minor, 61);
	assert_string_equal(m->optional, "shared:201 master:88");
	assert_string_equal(m->options, "rw,relatime");
	assert_string_equal(m->fstype, "nfs4");
	assert_string_equal(m->source, "10.0.8.15:/volumes/team-a");
	assert_non_null(strstr(m->super_options, "vers=4.1"));
	assert_string_equal(by_id(&t, 1521)->optional, "");
	assert_string_equal(by_id(&t, 1520)->optional, "master:412");
	jp_mount_table_dispose(&t);
}

static void bind_mounts_keep_the_root_they_show(void **state)
{
	struct jp_mount_table t = JP_MOUNT_TABLE_INIT;
	(void)state;
	load(&t, "container.txt");
	assert_string_equal(by_id(&t, 1528)->root, "/var/lib/kubelet/pods/5f1c/etc-hosts");
	assert_string_equal(by_id(&t, 1528)->mount_point, "/etc/hosts");
	assert_string_equal(by_id(&t, 1530)->root, "/volumes/team-a");
	assert_string_equal(find(&t, "/etc/hosts")->fstype, "ext4");
	assert_string_equal(find(&t, "/etc/passwd")->fstype, "overlay");
	jp_mount_table_dispose(&t);
}

static void expect_parse_error(const char *name, const char *line_no)
{
	char path[PATH_MAX + 64];
	struct jp_mount_table t = JP_MOUNT_TABLE_INIT;
	struct jp_error err = JP_ERROR_INIT;

	snprintf(path, sizeof(path), "%s/%s", datadir, name);
	assert_int_equal(jp_mount_table_load(&t, path, &err), JP_EFORMAT);
	assert_int_equal(t.n, 0);
	assert_null(t.v);
	assert_non_null(strstr(jp_error_message(&err), line_no));
	assert_non_null(strstr(jp_error_message(&err), name));
	jp_error_dispose(&err);
}

static void malformed_lines_are_refused_with_their_line_number(void **state)
{
	(void)state;
	expect_parse_error("bad-no-separator.txt", "line 2");
	expect_parse_error("bad-id.txt", "line 1");
	expect_parse_error("bad-relative.txt", "line 2");
	expect_parse_error("bad-short.txt", "line 2");
}

static void text_without_trailing_newline_parses(void **state)
{
	static const char text[] = "1 0 8:1 / / rw - ext4 /dev/sda1 rw\n\n"
				   "2 1 0:3 / /x ro - tmpfs tmpfs rw";
	struct jp_mount_table t = JP_MOUNT_TABLE_INIT;
	(void)state;
	assert_int_equal(jp_mount_table_parse(&t, text, sizeof(text) - 1, "inline", NULL), 0);
	assert_int_equal(t.n, 2);
	assert_true(t.v[1].read_only);
	assert_string_equal(t.v[1].super_options, "rw");
	jp_mount_table_dispose(&t);
}

static void the_last_of_stacked_mounts_wins(void **state)
{
	struct jp_mount_table t = JP_MOUNT_TABLE_INIT;
	(void)state;
	load(&t, "stacked.txt");
	assert_int_equal(find(&t, "/opt/x")->id, 52);
	assert_int_equal(find(&t, "/opt")->id, 52);
	assert_int_equal(find(&t, "/data/x")->id, 33);
	jp_mount_table_dispose(&t);
}

static void a_later_mount_on_an_ancestor_hides_a_deeper_one(void **state)
{
	struct jp_mount_table t = JP_MOUNT_TABLE_INIT;
	(void)state;
	load(&t, "stacked.txt");
	/* /data/scratch (32) sits on the first /data mount, now covered by 33. */
	assert_int_equal(find(&t, "/data/scratch/y")->id, 33);
	/* /srv/a/b/c (40) was mounted before /srv/a (41) covered it. */
	assert_int_equal(find(&t, "/srv/a/b/c/d")->id, 41);
	jp_mount_table_dispose(&t);
}

static void prefixes_match_whole_components_only(void **state)
{
	struct jp_mount_table t = JP_MOUNT_TABLE_INIT;
	(void)state;
	load(&t, "stacked.txt");
	assert_int_equal(find(&t, "/data2/z")->id, 31);
	assert_int_equal(find(&t, "/data2")->id, 31);
	assert_int_equal(find(&t, "/datafile")->id, 20);
	assert_int_equal(find(&t, "/")->id, 20);
	assert_true(jp_path_is_under("/data/x", "/data"));
	assert_true(jp_path_is_under("/data", "/data/"));
	assert_true(jp_path_is_under("/data/", "/data"));
	assert_false(jp_path_is_under("/data2", "/data"));
	assert_false(jp_path_is_under("/dat", "/data"));
	assert_true(jp_path_is_under("/anything", "/"));
	assert_false(jp_path_is_under("/mnt/publicity", "/mnt/public"));
	jp_mount_table_dispose(&t);
}

static void the_tree_decides_not_the_order_of_lines(void **state)
{
	struct jp_mount_table t = JP_MOUNT_TABLE_INIT;
	(void)state;
	load(&t, "pivot-order.txt");
	assert_int_equal(find(&t, "/mnt/public/x")->id, 100);
	assert_int_equal(find(&t, "/mnt/other")->id, 99);
	assert_int_equal(find(&t, "/etc")->id, 101);
	jp_mount_table_dispose(&t);
}

static void escaped_mount_points_are_found_by_their_real_names(void **state)
{
	struct jp_mount_table t = JP_MOUNT_TABLE_INIT;
	(void)state;
	load(&t, "escapes.txt");
	assert_int_equal(find(&t, "/mnt/my data/set")->id, 21);
	assert_int_equal(find(&t, "/mnt/my")->id, 20);
	assert_int_equal(find(&t, "/mnt/new\nline/x")->id, 23);
	assert_int_equal(find(&t, "/mnt/back\\slash")->id, 24);
	jp_mount_table_dispose(&t);
}

static void read_only_comes_from_mount_or_superblock_options(void **state)
{
	struct jp_mount_table t = JP_MOUNT_TABLE_INIT;
	(void)state;
	load(&t, "stacked.txt");
	assert_true(find(&t, "/ro-bind/x")->read_only);
	assert_true(find(&t, "/ro-super/x")->read_only);
	assert_false(find(&t, "/data/x")->read_only);
	jp_mount_table_dispose(&t);
	load(&t, "container.txt");
	assert_true(find(&t, "/infini-data/imagenet")->read_only);
	assert_true(find(&t, "/mnt/nfs3/x")->read_only);
	jp_mount_table_dispose(&t);
}

static void filesystem_types_have_the_expected_kinds(void **state)
{
	static const char *const network[] = { "nfs", "nfs4", "lustre", "gpfs", "ceph", "beegfs",
					       "cifs", "smb3", "9p", "fuse.sshfs",
					       "fuse.juicefs", "fuse.gcsfuse", "fuse.s3fs",
					       "fuse.rclone", "fuse.ceph-fuse", "glusterfs" };
	static const char *const ephemeral[] = { "tmpfs", "ramfs", "overlay",
						 "fuse.fuse-overlayfs" };
	static const char *const local[] = { "ext4", "xfs", "btrfs", "zfs", "fuse", "fuseblk",
					     "fuse.squashfuse", "squashfs", "vfat", "fuse." };
	static const char *const pseudo[] = { "proc", "sysfs", "cgroup2", "devpts",
					      "fuse.lxcfs", "autofs", "devtmpfs" };
	(void)state;
	for (size_t i = 0; i < sizeof(network) / sizeof(*network); i++)
		assert_int_equal(jp_fs_kind_of(network[i]), JP_FS_NETWORK);
	for (size_t i = 0; i < sizeof(ephemeral) / sizeof(*ephemeral); i++)
		assert_int_equal(jp_fs_kind_of(ephemeral[i]), JP_FS_EPHEMERAL);
	for (size_t i = 0; i < sizeof(local) / sizeof(*local); i++)
		assert_int_equal(jp_fs_kind_of(local[i]), JP_FS_LOCAL);
	for (size_t i = 0; i < sizeof(pseudo) / sizeof(*pseudo); i++)
		assert_int_equal(jp_fs_kind_of(pseudo[i]), JP_FS_PSEUDO);
}

static void statfs_magics_have_the_expected_kinds(void **state)
{
	bool known;
	const char *name;
	(void)state;
	assert_int_equal(jp_fs_kind_of_magic(0x6969, &known, &name), JP_FS_NETWORK);
	assert_true(known);
	assert_string_equal(name, "nfs");
	assert_int_equal(jp_fs_kind_of_magic(0x01021994, &known, &name), JP_FS_EPHEMERAL);
	assert_string_equal(name, "tmpfs");
	assert_int_equal(jp_fs_kind_of_magic(0x794c7630, &known, NULL), JP_FS_EPHEMERAL);
	assert_int_equal(jp_fs_kind_of_magic(0xEF53, &known, NULL), JP_FS_LOCAL);
	assert_true(known);
	/* f_type sign-extended from 32 bits still reads as CIFS. */
	assert_int_equal(jp_fs_kind_of_magic((int64_t)(int32_t)0xFF534D42u, &known, &name),
			 JP_FS_NETWORK);
	assert_string_equal(name, "cifs");
	/* FUSE says nothing about where its data lives. */
	jp_fs_kind_of_magic(0x65735546, &known, &name);
	assert_false(known);
	assert_string_equal(name, "fuse");
}

struct expect_class {
	const char *path;
	enum jp_storage_class cls;
	bool declared;
	const char *fstype;
};

static void classify_with(const char *table_name, const struct jp_profile *p,
			  const struct expect_class *e, size_t n)
{
	struct jp_mount_table t = JP_MOUNT_TABLE_INIT;
	load(&t, table_name);
	for (size_t i = 0; i < n; i++) {
		struct jp_path_info info = JP_PATH_INFO_INIT;
		struct jp_error err = JP_ERROR_INIT;
		int rc = jp_path_classify_in(&info, p, &t, e[i].path, &err);
		if (rc != 0)
			fail_msg("%s: %s", e[i].path, jp_error_message(&err));
		if (info.cls != e[i].cls || info.declared != e[i].declared ||
		    strcmp(info.fstype ? info.fstype : "", e[i].fstype) != 0)
			fail_msg("%s: got %s%s on %s, expected %s%s on %s (%s)", e[i].path,
				 jp_storage_class_name(info.cls), info.declared ? " (declared)" : "",
				 info.fstype ? info.fstype : "?", jp_storage_class_name(e[i].cls),
				 e[i].declared ? " (declared)" : "", e[i].fstype, info.reason);
		assert_non_null(info.reason);
		assert_non_null(strstr(info.reason, e[i].path));
		jp_path_info_dispose(&info);
		jp_error_dispose(&err);
	}
	jp_mount_table_dispose(&t);
}

static void a_container_layout_is_classified_like_the_platform(void **state)
{
	static const struct expect_class e[] = {
		{ "/mnt/public/projects/llama-sft", JP_STORAGE_SHARED, true, "nfs4" },
		{ "/infini-data/imagenet", JP_STORAGE_PUBLIC, true, "lustre" },
		{ "/workspace/out", JP_STORAGE_EPHEMERAL, true, "tmpfs" },
		{ "/tmp/ckpt", JP_STORAGE_EPHEMERAL, true, "tmpfs" },
		{ "/dev/shm/x", JP_STORAGE_EPHEMERAL, true, "tmpfs" },
		{ "/root/out", JP_STORAGE_EPHEMERAL, true, "overlay" },
		{ "/mnt/juice/ds", JP_STORAGE_SHARED, false, "fuse.juicefs" },
		{ "/mnt/gcs/shards", JP_STORAGE_SHARED, false, "fuse.gcsfuse" },
		{ "/mnt/ceph/x", JP_STORAGE_SHARED, false, "ceph" },
		{ "/mnt/beegfs/x", JP_STORAGE_SHARED, false, "beegfs" },
		{ "/mnt/gpfs/x", JP_STORAGE_SHARED, false, "gpfs" },
		{ "/mnt/smb/x", JP_STORAGE_SHARED, false, "cifs" },
		{ "/mnt/smb3/x", JP_STORAGE_SHARED, false, "smb3" },
		{ "/mnt/host/x", JP_STORAGE_SHARED, false, "9p" },
		{ "/mnt/sshfs/x", JP_STORAGE_SHARED, false, "fuse.sshfs" },
		{ "/mnt/nfs3/x", JP_STORAGE_SHARED, false, "nfs" },
		{ "/mnt/ram/x", JP_STORAGE_EPHEMERAL, false, "ramfs" },
		{ "/home/alice/x", JP_STORAGE_LOCAL, false, "ext4" },
		{ "/opt/venv", JP_STORAGE_EPHEMERAL, false, "overlay" },
		{ "/mnt/lxc/proc", JP_STORAGE_LOCAL, false, "fuse.lxcfs" },
		{ "/mnt/publicity", JP_STORAGE_EPHEMERAL, false, "overlay" },
	};
	struct jp_profile *p = NULL;
	(void)state;
	assert_int_equal(jp_profile_new_default(&p, NULL), 0);
	classify_with("container.txt", p, e, sizeof(e) / sizeof(*e));
	jp_profile_free(p);
}

static void public_data_reports_its_read_only_mount(void **state)
{
	struct jp_mount_table t = JP_MOUNT_TABLE_INIT;
	struct jp_path_info info = JP_PATH_INFO_INIT;
	struct jp_profile *p = NULL;
	(void)state;
	assert_int_equal(jp_profile_new_default(&p, NULL), 0);
	load(&t, "container.txt");
	assert_int_equal(jp_path_classify_in(&info, p, &t, "/infini-data/coco", NULL), 0);
	assert_int_equal(info.cls, JP_STORAGE_PUBLIC);
	assert_true(info.read_only);
	assert_string_equal(info.mount_point, "/infini-data");
	assert_string_equal(info.source, "10.0.9.1@o2ib:/infini");
	assert_string_equal(info.declared_root, "/infini-data");
	assert_null(info.warning);
	jp_path_info_dispose(&info);
	assert_int_equal(jp_path_classify_in(&info, p, &t, "/mnt/public/x", NULL), 0);
	assert_false(info.read_only);
	jp_path_info_dispose(&info);
	jp_mount_table_dispose(&t);
	jp_profile_free(p);
}

static void a_declared_shared_root_that_is_not_mounted_is_warned_about(void **state)
{
	struct jp_mount_table t = JP_MOUNT_TABLE_INIT;
	struct jp_path_info info = JP_PATH_INFO_INIT;
	struct jp_profile *p = NULL;
	(void)state;
	assert_int_equal(jp_profile_new_default(&p, NULL), 0);
	load(&t, "stacked.txt");
	assert_int_equal(jp_path_classify_in(&info, p, &t, "/mnt/public/outputs/run-001", NULL),
			 0);
	assert_int_equal(info.cls, JP_STORAGE_SHARED);
	assert_true(info.declared);
	assert_non_null(info.warning);
	assert_non_null(strstr(info.warning, "/mnt/public"));
	assert_non_null(strstr(info.warning, "not a mount point"));
	jp_path_info_dispose(&info);
	jp_mount_table_dispose(&t);
	jp_profile_free(p);
}

static void a_tmpfs_mounted_inside_shared_storage_is_warned_about(void **state)
{
	struct jp_mount_table t = JP_MOUNT_TABLE_INIT;
	struct jp_path_info info = JP_PATH_INFO_INIT;
	struct jp_profile *p = NULL;
	(void)state;
	assert_int_equal(jp_profile_new_default(&p, NULL), 0);
	load(&t, "shared-tmpfs.txt");
	assert_int_equal(jp_path_classify_in(&info, p, &t, "/mnt/public/scratch/ckpt", NULL), 0);
	assert_int_equal(info.cls, JP_STORAGE_SHARED);
	assert_string_equal(info.fstype, "tmpfs");
	assert_non_null(info.warning);
	assert_non_null(strstr(info.warning, "/mnt/public/scratch"));
	assert_non_null(strstr(info.warning, "memory"));
	jp_path_info_dispose(&info);
	assert_int_equal(jp_path_classify_in(&info, p, &t, "/mnt/public/outputs", NULL), 0);
	assert_string_equal(info.fstype, "nfs4");
	assert_null(info.warning);
	jp_path_info_dispose(&info);
	jp_mount_table_dispose(&t);
	jp_profile_free(p);
}

static void the_most_specific_profile_root_wins(void **state)
{
	struct jp_mount_table t = JP_MOUNT_TABLE_INIT;
	struct jp_path_info info = JP_PATH_INFO_INIT;
	struct jp_profile *p = NULL;
	(void)state;
	assert_int_equal(jp_profile_new_default(&p, NULL), 0);
	assert_int_equal(jp_strv_push(&p->ephemeral_roots, "/mnt/public/scratch"), 0);
	load(&t, "container.txt");
	assert_int_equal(jp_path_classify_in(&info, p, &t, "/mnt/public/scratch/x", NULL), 0);
	assert_int_equal(info.cls, JP_STORAGE_EPHEMERAL);
	assert_string_equal(info.declared_root, "/mnt/public/scratch");
	jp_path_info_dispose(&info);
	assert_int_equal(jp_path_classify_in(&info, p, &t, "/mnt/public/scratchpad", NULL), 0);
	assert_int_equal(info.cls, JP_STORAGE_SHARED);
	jp_path_info_dispose(&info);
	jp_mount_table_dispose(&t);
	jp_profile_free(p);
}

static void without_a_profile_the_mount_table_decides(void **state)
{
	struct jp_mount_table t = JP_MOUNT_TABLE_INIT;
	struct jp_path_info info = JP_PATH_INFO_INIT;
	(void)state;
	load(&t, "container.txt");
	assert_int_equal(jp_path_classify_in(&info, NULL, &t, "/workspace/x", NULL), 0);
	assert_int_equal(info.cls, JP_STORAGE_EPHEMERAL);
	assert_false(info.declared);
	jp_path_info_dispose(&info);
	assert_int_equal(jp_path_classify_in(&info, NULL, &t, "/mnt/public/x", NULL), 0);
	assert_int_equal(info.cls, JP_STORAGE_SHARED);
	assert_string_equal(info.fstype, "nfs4");
	jp_path_info_dispose(&info);
	jp_mount_table_dispose(&t);
}

/* --- resolution on real symlinks ------------------------------------------ */

static char scratch[PATH_MAX - 128];

static int rm_rf(const char *path)
{
	char *cmd = NULL;
	if (asprintf(&cmd, "rm -rf '%s'", path) < 0)
		return -1;
	int rc = system(cmd);
	free(cmd);
	return rc;
}

static int setup_scratch(void **state)
{
	(void)state;
	char cwd[PATH_MAX - 200];
	if (!getcwd(cwd, sizeof(cwd)))
		return -1;
	snprintf(scratch, sizeof(scratch), "%s/test_mountinfo.tmp.XXXXXX", cwd);
	if (!mkdtemp(scratch))
		return -1;
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/real", scratch);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/link", scratch);
	if (symlink("real", p) < 0)
		return -1;
	snprintf(p, sizeof(p), "%s/to-tmp", scratch);
	if (symlink("/tmp", p) < 0)
		return -1;
	snprintf(p, sizeof(p), "%s/dangling", scratch);
	if (symlink("real/not-yet/deeper", p) < 0)
		return -1;
	snprintf(p, sizeof(p), "%s/loop", scratch);
	if (symlink("loop", p) < 0)
		return -1;
	return 0;
}

static int teardown_scratch(void **state)
{
	(void)state;
	return rm_rf(scratch) == 0 ? 0 : -1;
}

static char *sub(const char *rel)
{
	char *s = NULL;
	if (asprintf(&s, "%s/%s", scratch, rel) < 0)
		fail();
	return s;
}

static void expect_resolve(const char *rel, const char *want_rel, bool want_exists,
			   bool want_link)
{
	char *in = sub(rel), *want = want_rel[0] == '/' ? strdup(want_rel) : sub(want_rel);
	char *out = NULL;
	bool exists = !want_exists, link = !want_link;
	struct jp_error err = JP_ERROR_INIT;
	if (jp_path_resolve(&out, &exists, &link, in, &err) != 0)
		fail_msg("%s: %s", in, jp_error_message(&err));
	if (strcmp(out, want) != 0)
		fail_msg("%s resolved to %s, expected %s", in, out, want);
	assert_int_equal(exists, want_exists);
	assert_int_equal(link, want_link);
	free(in);
	free(want);
	free(out);
	jp_error_dispose(&err);
}

static void resolving_follows_symlinks_and_keeps_missing_components(void **state)
{
	(void)state;
	expect_resolve("real", "real", true, false);
	expect_resolve("link", "real", true, true);
	expect_resolve("link/new/dir", "real/new/dir", false, true);
	expect_resolve("real/missing/../x", "real/x", false, false);
	expect_resolve("real/./a//b/", "real/a/b", false, false);
	/* A dangling link: what would be created is its target. */
	expect_resolve("dangling", "real/not-yet/deeper", false, true);
	expect_resolve("dangling/file", "real/not-yet/deeper/file", false, true);
}

static void a_symlink_loop_is_an_error(void **state)
{
	char *in = sub("loop/x"), *out = NULL;
	bool exists;
	struct jp_error err = JP_ERROR_INIT;
	(void)state;
	assert_int_equal(jp_path_resolve(&out, &exists, NULL, in, &err), JP_EIO);
	assert_null(out);
	assert_non_null(strstr(jp_error_message(&err), "symbolic links"));
	free(in);
	jp_error_dispose(&err);
}

static void a_symlink_from_shared_storage_into_tmp_is_ephemeral(void **state)
{
	struct jp_mount_table t = JP_MOUNT_TABLE_INIT;
	struct jp_path_info info = JP_PATH_INFO_INIT;
	struct jp_profile *p = NULL;
	char *in = sub("to-tmp/ckpt");
	(void)state;
	assert_int_equal(jp_profile_new_default(&p, NULL), 0);
	/* The scratch folder itself is declared shared storage. */
	assert_int_equal(jp_strv_push(&p->shared_roots, scratch), 0);
	load(&t, "container.txt");
	assert_int_equal(jp_path_classify_in(&info, p, &t, in, NULL), 0);
	char *real_tmp = realpath("/tmp", NULL);
	char want[PATH_MAX + 8];
	snprintf(want, sizeof(want), "%s/ckpt", real_tmp);
	assert_string_equal(info.resolved, want);
	assert_true(info.via_symlink);
	assert_int_equal(info.cls, JP_STORAGE_EPHEMERAL);
	assert_non_null(strstr(info.reason, "resolves to"));
	jp_path_info_dispose(&info);
	char *direct = sub("real/ckpt");
	assert_int_equal(jp_path_classify_in(&info, p, &t, direct, NULL), 0);
	assert_int_equal(info.cls, JP_STORAGE_SHARED);
	assert_false(info.via_symlink);
	jp_path_info_dispose(&info);
	free(direct);
	free(real_tmp);
	free(in);
	jp_mount_table_dispose(&t);
	jp_profile_free(p);
}

static void this_machines_own_table_parses_and_covers_the_root(void **state)
{
	struct jp_mount_table t = JP_MOUNT_TABLE_INIT;
	struct jp_error err = JP_ERROR_INIT;
	(void)state;
	if (access("/proc/self/mountinfo", R_OK) != 0)
		skip();
	if (jp_mount_table_load(&t, NULL, &err) != 0)
		fail_msg("%s", jp_error_message(&err));
	assert_true(t.n > 0);
	assert_non_null(jp_mount_table_find(&t, "/"));
	jp_mount_table_dispose(&t);
	jp_error_dispose(&err);
}

/* Escapes on a live table: a mount point with a space, a tab and a
 * backslash, mounted for real in a mount namespace of a child's own, is read
 * back from its /proc/self/mountinfo by its real name. Needs root. */
static void a_live_mount_point_with_escaped_characters_is_found_by_name(void **state)
{
	char dir[PATH_MAX];
	const char *tmp = getenv("TMPDIR");
	int status;
	pid_t pid;

	(void)state;
	if (geteuid() != 0)
		skip(); /* mounting needs root: unshare(CLONE_NEWNS) and mount(2) */
	snprintf(dir, sizeof(dir), "%s/jobprep-mnt-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
	char point[PATH_MAX + 32];
	snprintf(point, sizeof(point), "%s/my data\tset\\x", dir);
	assert_int_equal(mkdir(point, 0755), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct jp_mount_table t = JP_MOUNT_TABLE_INIT;
		const struct jp_mount *m;

		if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
			_exit(77);
		if (mount("src with space", point, "tmpfs", MS_RDONLY, "size=64k") != 0)
			_exit(78);
		if (jp_mount_table_load(&t, NULL, NULL) != 0)
			_exit(2);
		m = jp_mount_table_find(&t, point);
		if (!m || strcmp(m->mount_point, point) != 0 || strcmp(m->fstype, "tmpfs") != 0 ||
		    strcmp(m->source, "src with space") != 0 || !m->read_only)
			_exit(3);
		jp_mount_table_dispose(&t);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	rmdir(point);
	rmdir(dir);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77 || WEXITSTATUS(status) == 78)
		skip(); /* no mount namespace here (a container without the right) */
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* Blank lines and comments are passed over; the line named in an error is
 * the text's own line number. */
static void the_error_names_the_line_of_the_text(void **state)
{
	static const char relative[] = "1 0 8:1 / / rw - ext4 /dev/sda1 rw\n\n# a note\n"
				       "2 1 0:3 / x ro - tmpfs tmpfs rw\n";
	static const char garbled[] = "1 0 8:1 / / rw - ext4 /dev/sda1 rw\n   \n"
				      "2 1 0:3 / /x ro tmpfs tmpfs rw\n";
	static const char escaped[] = "1 0 8:1 / / rw - ext4 /dev/sda1 rw\n"
				      "2 1 0:3 /a\\040b /x\\134y\\011z ro - tmpfs t\\012s rw\n";
	struct jp_mount_table t = JP_MOUNT_TABLE_INIT;
	struct jp_error err = JP_ERROR_INIT;
	(void)state;
	assert_int_equal(jp_mount_table_parse(&t, relative, sizeof(relative) - 1, "r", &err),
			 JP_EFORMAT);
	assert_non_null(strstr(jp_error_message(&err), "r: line 4: the mount point"));
	jp_error_clear(&err);
	assert_int_equal(jp_mount_table_parse(&t, garbled, sizeof(garbled) - 1, "g", &err),
			 JP_EFORMAT);
	assert_non_null(strstr(jp_error_message(&err), "g: line 3: "));
	assert_null(t.v);
	assert_int_equal(jp_mount_table_parse(&t, escaped, sizeof(escaped) - 1, "e", NULL), 0);
	assert_int_equal(t.n, 2);
	assert_string_equal(t.v[1].root, "/a b");
	assert_string_equal(t.v[1].mount_point, "/x\\y\tz");
	assert_string_equal(t.v[1].source, "t\ns");
	assert_ptr_equal(jp_mount_table_find(&t, "/x\\y\tz/file"), &t.v[1]);
	jp_mount_table_dispose(&t);
	jp_error_dispose(&err);
}

int main(void)
{
	const char *top = getenv("TOP_SRCDIR");
	snprintf(datadir, sizeof(datadir), "%s/tests/data/mountinfo", top ? top : ".");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(octal_escapes_are_decoded_in_mount_points_and_sources),
		cmocka_unit_test(a_backslash_without_three_octal_digits_is_kept),
		cmocka_unit_test(an_empty_source_leaves_the_fields_in_place),
		cmocka_unit_test(optional_fields_come_before_the_separator),
		cmocka_unit_test(bind_mounts_keep_the_root_they_show),
		cmocka_unit_test(malformed_lines_are_refused_with_their_line_number),
		cmocka_unit_test(text_without_trailing_newline_parses),
		cmocka_unit_test(the_last_of_stacked_mounts_wins),
		cmocka_unit_test(a_later_mount_on_an_ancestor_hides_a_deeper_one),
		cmocka_unit_test(prefixes_match_whole_components_only),
		cmocka_unit_test(the_tree_decides_not_the_order_of_lines),
		cmocka_unit_test(escaped_mount_points_are_found_by_their_real_names),
		cmocka_unit_test(read_only_comes_from_mount_or_superblock_options),
		cmocka_unit_test(filesystem_types_have_the_expected_kinds),
		cmocka_unit_test(statfs_magics_have_the_expected_kinds),
		cmocka_unit_test(a_container_layout_is_classified_like_the_platform),
		cmocka_unit_test(public_data_reports_its_read_only_mount),
		cmocka_unit_test(a_declared_shared_root_that_is_not_mounted_is_warned_about),
		cmocka_unit_test(a_tmpfs_mounted_inside_shared_storage_is_warned_about),
		cmocka_unit_test(the_most_specific_profile_root_wins),
		cmocka_unit_test(without_a_profile_the_mount_table_decides),
		cmocka_unit_test(resolving_follows_symlinks_and_keeps_missing_components),
		cmocka_unit_test(a_symlink_loop_is_an_error),
		cmocka_unit_test(a_symlink_from_shared_storage_into_tmp_is_ephemeral),
		cmocka_unit_test(this_machines_own_table_parses_and_covers_the_root),
		cmocka_unit_test(a_live_mount_point_with_escaped_characters_is_found_by_name),
		cmocka_unit_test(the_error_names_the_line_of_the_text),
	};
	return cmocka_run_group_tests(tests, setup_scratch, teardown_scratch);
}
