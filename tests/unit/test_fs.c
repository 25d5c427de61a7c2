/* fs: mkdir -p that records what it made and can take it back, rm -rf that
 * never follows a link or leaves its filesystem, dir_is_empty. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include <cmocka.h>

#include "jobprep/fs.h"
#include "fs_internal.h"
#include "scratch.h"

static int is_dir(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void mkdir_p_records_only_what_it_made_outermost_first(void **state)
{
	struct scratch *s = *state;
	struct jp_strv made = JP_STRV_INIT;
	struct jp_error err = JP_ERROR_INIT;
	char have[PATH_MAX], deep[PATH_MAX], mid[PATH_MAX];

	snprintf(have, sizeof(have), "%s/have", s->dir);
	snprintf(mid, sizeof(mid), "%s/have/a", s->dir);
	snprintf(deep, sizeof(deep), "%s/have/a/b/", s->dir);
	assert_int_equal(mkdir(have, 0755), 0);
	assert_int_equal(jp_fs_mkdir_p(&made, deep, 0750, &err), 0);
	assert_true(is_dir(deep));
	assert_int_equal(made.n, 2);
	assert_string_equal(made.v[0], mid);
	deep[strlen(deep) - 1] = '\0';
	assert_string_equal(made.v[1], deep);
	/* again: all there, nothing more recorded */
	assert_int_equal(jp_fs_mkdir_p(&made, deep, 0750, &err), 0);
	assert_int_equal(made.n, 2);
	jp_strv_dispose(&made);
	jp_error_dispose(&err);
}

static void unmake_removes_what_was_made_and_stays_empty_only(void **state)
{
	struct scratch *s = *state;
	struct jp_strv made = JP_STRV_INIT;
	struct jp_error err = JP_ERROR_INIT;
	char top[PATH_MAX], deep[PATH_MAX];

	snprintf(top, sizeof(top), "%s/x", s->dir);
	snprintf(deep, sizeof(deep), "%s/x/y/z", s->dir);
	assert_int_equal(jp_fs_mkdir_p(&made, deep, 0755, &err), 0);
	assert_int_equal(made.n, 3);
	jp_fs_unmake(&made);
	assert_int_equal(made.n, 0);
	assert_false(is_dir(top));
	assert_int_equal(scratch_count_entries(s->dir), 0);

	/* a file someone put there meanwhile keeps its folders */
	assert_int_equal(jp_fs_mkdir_p(&made, deep, 0755, &err), 0);
	assert_int_equal(scratch_write(s->dir, "x/y/keep", "mine\n"), 0);
	jp_fs_unmake(&made);
	assert_false(is_dir(deep));
	assert_true(is_dir(top));
	jp_error_dispose(&err);
}

static void mkdir_p_refuses_a_file_in_the_way(void **state)
{
	struct scratch *s = *state;
	struct jp_strv made = JP_STRV_INIT;
	struct jp_error err = JP_ERROR_INIT;
	char path[PATH_MAX];

	assert_int_equal(scratch_write(s->dir, "file", "x\n"), 0);
	snprintf(path, sizeof(path), "%s/file/sub", s->dir);
	assert_int_equal(jp_fs_mkdir_p(&made, path, 0755, &err), JP_EEXIST);
	assert_int_equal(errno, ENOTDIR);
	assert_non_null(strstr(jp_error_message(&err), "is not a directory"));
	assert_int_equal(made.n, 0);
	assert_int_equal(jp_fs_mkdir_p(NULL, "", 0755, NULL), JP_EUSAGE);
	jp_error_dispose(&err);
}

static void mkdir_p_reports_what_cannot_be_made(void **state)
{
	struct scratch *s = *state;
	struct jp_strv made = JP_STRV_INIT;
	struct jp_error err = JP_ERROR_INIT;
	char path[PATH_MAX], made_dir[PATH_MAX], file[PATH_MAX];

	/* /proc takes no new directories, root or not */
	assert_int_equal(jp_fs_mkdir_p(&made, "/proc/jobprep-test/a", 0755, &err), JP_EIO);
	assert_non_null(strstr(jp_error_message(&err), "cannot create the directory"));
	assert_int_equal(made.n, 0);
	/* what was made before the failure stays recorded, for the undo */
	jp_error_clear(&err);
	snprintf(made_dir, sizeof(made_dir), "%s/made", s->dir);
	snprintf(file, sizeof(file), "%s/made/file", s->dir);
	snprintf(path, sizeof(path), "%s/made/file/sub", s->dir);
	assert_int_equal(jp_fs_mkdir_p(&made, made_dir, 0755, &err), 0);
	assert_int_equal(scratch_write(s->dir, "made/file", "x\n"), 0);
	assert_int_equal(jp_fs_mkdir_p(&made, path, 0755, &err), JP_EEXIST);
	assert_int_equal(made.n, 1);
	assert_int_equal(unlink(file), 0);
	jp_fs_unmake(&made);
	assert_int_equal(scratch_count_entries(s->dir), 0);
	jp_error_dispose(&err);
}

static void rm_rf_removes_a_tree_but_not_what_a_link_points_to(void **state)
{
	struct scratch *s = *state;
	char tree[PATH_MAX], outside[PATH_MAX], link[PATH_MAX], deep[PATH_MAX];

	snprintf(tree, sizeof(tree), "%s/tree", s->dir);
	snprintf(deep, sizeof(deep), "%s/tree/a/b/c", s->dir);
	snprintf(outside, sizeof(outside), "%s/outside", s->dir);
	snprintf(link, sizeof(link), "%s/tree/a/to-outside", s->dir);
	assert_int_equal(jp_fs_mkdir_p(NULL, deep, 0755, NULL), 0);
	assert_int_equal(jp_fs_mkdir_p(NULL, outside, 0755, NULL), 0);
	assert_int_equal(scratch_write(s->dir, "outside/precious", "keep\n"), 0);
	assert_int_equal(scratch_write(s->dir, "tree/a/b/c/f", "x\n"), 0);
	assert_int_equal(scratch_write(s->dir, "tree/top", "x\n"), 0);
	assert_int_equal(symlink(outside, link), 0);
	assert_int_equal(jp_fs_rm_rf(tree), 0);
	assert_int_equal(access(tree, F_OK), -1);
	assert_int_equal(scratch_count_entries(outside), 1);
	/* a link given itself goes, its target stays */
	assert_int_equal(symlink(outside, tree), 0);
	assert_int_equal(jp_fs_rm_rf(tree), 0);
	assert_int_equal(scratch_count_entries(outside), 1);
	/* nothing there: done */
	assert_int_equal(jp_fs_rm_rf(tree), 0);
}

/* In a folder it may not write to, rm -rf leaves what it cannot remove and
 * says so. Root may write anywhere: then a child as nobody does it. */
static int remove_a_locked_tree(const char *dir)
{
	char tree[PATH_MAX], locked[PATH_MAX], file[PATH_MAX];
	FILE *f;
	int rc;

	snprintf(tree, sizeof(tree), "%s/tree", dir);
	snprintf(locked, sizeof(locked), "%s/tree/locked", dir);
	snprintf(file, sizeof(file), "%s/tree/locked/f", dir);
	if (jp_fs_mkdir_p(NULL, locked, 0755, NULL) != 0 || !(f = fopen(file, "w")) || fclose(f) != 0 ||
	    chmod(locked, 0555) != 0)
		return 2;
	rc = jp_fs_rm_rf(tree) == -1 && access(file, F_OK) == 0 ? 0 : 1;
	chmod(locked, 0755);
	return rc;
}

static void rm_rf_says_when_something_stayed(void **state)
{
	struct scratch *s = *state;
	int status;
	pid_t pid;

	if (geteuid() != 0) {
		assert_int_equal(remove_a_locked_tree(s->dir), 0);
		return;
	}
	if (!s->nobody_reaches)
		skip(); /* no folder here that nobody can reach */
	assert_int_equal(chown(s->dir, 65534, 65534), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
			_exit(3);
		_exit(remove_a_locked_tree(s->dir));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void dir_is_empty_skips_the_given_prefix_and_names_the_first(void **state)
{
	struct scratch *s = *state;
	char name[256] = "", missing[PATH_MAX];
	size_t n = 99;

	assert_int_equal(jp_fs_dir_is_empty(s->dir, NULL, name, sizeof(name)), 1);
	assert_int_equal(jp_fs_dir_count(&n, s->dir), 0);
	assert_int_equal(n, 0);
	assert_int_equal(scratch_write(s->dir, ".x.jobprep-tmp-1", "x\n"), 0);
	assert_int_equal(jp_fs_dir_is_empty(s->dir, ".x.jobprep-tmp-", name, sizeof(name)), 1);
	assert_int_equal(jp_fs_dir_is_empty(s->dir, NULL, name, sizeof(name)), 0);
	assert_string_equal(name, ".x.jobprep-tmp-1");
	assert_int_equal(scratch_write(s->dir, "data", "x\n"), 0);
	assert_int_equal(jp_fs_dir_is_empty(s->dir, ".x.jobprep-tmp-", name, sizeof(name)), 0);
	assert_string_equal(name, "data");
	assert_int_equal(jp_fs_dir_count(&n, s->dir), 0);
	assert_int_equal(n, 2);
	snprintf(missing, sizeof(missing), "%s/missing", s->dir);
	assert_int_equal(jp_fs_dir_is_empty(missing, NULL, NULL, 0), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(jp_fs_dir_count(&n, missing), -1);
}

static void count_files_sees_files_not_empty_folders(void **state)
{
	struct scratch *s = *state;
	char run[PATH_MAX];

	snprintf(run, sizeof(run), "%s/run-001/checkpoints/deep", s->dir);
	assert_int_equal(jp_fs_count_files(run, 100), 0); /* not there */
	assert_int_equal(jp_fs_mkdir_p(NULL, run, 0755, NULL), 0);
	snprintf(run, sizeof(run), "%s/run-001/logs", s->dir);
	assert_int_equal(jp_fs_mkdir_p(NULL, run, 0755, NULL), 0);
	snprintf(run, sizeof(run), "%s/run-001", s->dir);
	assert_int_equal(jp_fs_count_files(run, 100), 0); /* empty folders only */
	assert_int_equal(scratch_write(s->dir, "run-001/checkpoints/deep/x", "x\n"), 0);
	assert_int_equal(jp_fs_count_files(run, 100), 1);
	assert_int_equal(scratch_write(s->dir, "run-001/logs/train.log", "x\n"), 0);
	assert_int_equal(jp_fs_count_files(run, 100), 2);
	/* a budget spent before a file was seen: there may be some */
	snprintf(run, sizeof(run), "%s/empty/a/b/c", s->dir);
	assert_int_equal(jp_fs_mkdir_p(NULL, run, 0755, NULL), 0);
	snprintf(run, sizeof(run), "%s/empty", s->dir);
	assert_int_equal(jp_fs_count_files(run, 100), 0);
	assert_int_equal(jp_fs_count_files(run, 2), 1);
}

static void a_locked_folder_is_held_until_let_go(void **state)
{
	struct scratch *s = *state;
	char missing[PATH_MAX];
	int a, b;

	a = jp_fs_lock_dir(s->dir);
	assert_true(a >= 0);
	errno = 0;
	assert_int_equal(jp_fs_lock_dir(s->dir), -1); /* another open: held */
	assert_int_equal(errno, EWOULDBLOCK);
	close(a);
	b = jp_fs_lock_dir(s->dir);
	assert_true(b >= 0); /* let go: free again */
	close(b);
	snprintf(missing, sizeof(missing), "%s/missing", s->dir);
	assert_int_equal(jp_fs_lock_dir(missing), -1);
	assert_int_equal(errno, ENOENT);
}

/* open_beneath and the walk for kernels without openat2: a name inside
 * opens; a symlink on the way (one leading inside too), "..", an absolute
 * name are refused with the errno that says which; a symlink as the last
 * component is not followed. */
static void beneath_follows_no_symlink_and_never_leaves(void **state)
{
	struct scratch *s = *state;
	int (*const open_fn[2])(int, const char *, int) = { jp_fs_open_beneath,
							    jp_fs_walk_beneath };
	char p[PATH_MAX], q[PATH_MAX];
	int top, fd;
	FILE *f;

	snprintf(p, sizeof(p), "%s/top/real/deep", s->dir);
	assert_int_equal(jp_fs_mkdir_p(NULL, p, 0755, NULL), 0);
	snprintf(p, sizeof(p), "%s/top/real/deep/f", s->dir);
	assert_non_null(f = fopen(p, "w"));
	fclose(f);
	snprintf(p, sizeof(p), "%s/outside", s->dir);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/top/out", s->dir);
	assert_int_equal(symlink("../outside", p), 0);
	snprintf(p, sizeof(p), "%s/top/in", s->dir);
	assert_int_equal(symlink("real", p), 0);
	snprintf(q, sizeof(q), "%s/top", s->dir);
	top = open(q, O_RDONLY | O_DIRECTORY);
	assert_true(top >= 0);
	for (int i = 0; i < 2; i++) {
		fd = open_fn[i](top, "real/deep/f", O_RDONLY);
		assert_true(fd >= 0);
		close(fd);
		fd = open_fn[i](top, "", O_PATH | O_DIRECTORY);
		assert_true(fd >= 0);
		close(fd);
		errno = 0;
		assert_int_equal(open_fn[i](top, "out/x", O_PATH), -1);
		assert_int_equal(errno, ELOOP);
		errno = 0;
		assert_int_equal(open_fn[i](top, "in/deep/f", O_RDONLY), -1);
		assert_int_equal(errno, ELOOP);
		errno = 0;
		assert_int_equal(open_fn[i](top, "in", O_PATH | O_DIRECTORY), -1);
		assert_int_equal(errno, ELOOP);
		errno = 0;
		assert_int_equal(open_fn[i](top, "real/../../outside", O_PATH), -1);
		assert_int_equal(errno, EXDEV);
		errno = 0;
		assert_int_equal(open_fn[i](top, q, O_PATH), -1);
		assert_int_equal(errno, EXDEV);
		errno = 0;
		assert_int_equal(open_fn[i](top, "real/none", O_RDONLY), -1);
		assert_int_equal(errno, ENOENT);
	}
	close(top);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(mkdir_p_records_only_what_it_made_outermost_first,
						scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(unmake_removes_what_was_made_and_stays_empty_only,
						scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(mkdir_p_refuses_a_file_in_the_way, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(mkdir_p_reports_what_cannot_be_made, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(rm_rf_removes_a_tree_but_not_what_a_link_points_to,
						scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(rm_rf_says_when_something_stayed,
						scratch_setup_for_nobody, scratch_teardown),
		cmocka_unit_test_setup_teardown(dir_is_empty_skips_the_given_prefix_and_names_the_first,
						scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(count_files_sees_files_not_empty_folders, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(a_locked_folder_is_held_until_let_go, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(beneath_follows_no_symlink_and_never_leaves,
						scratch_setup, scratch_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
