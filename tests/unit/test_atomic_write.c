/* Atomic writes: the new file appears whole with its mode, or the old one
 * stays, whatever happens: a process killed between write and rename, a
 * full disk, a symlink in the way. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "jobprep/manifest.h"
#include "manifest_internal.h"
#include "str.h"
#include "scratch.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = '\0';
	fclose(f);
	return buf;
}

static void in_dir(char *out, size_t size, const struct scratch *s, const char *name)
{
	snprintf(out, size, "%s/%s", s->dir, name);
}

static void new_file_gets_its_content_and_exact_mode(void **state)
{
	struct jp_error err = JP_ERROR_INIT;
	char path[PATH_MAX], *back;
	struct stat st;
	mode_t old = umask(0077);

	in_dir(path, sizeof(path), *state, "a.json");
	assert_int_equal(jp_file_write_atomic(path, "{}\n", 3, 0640, &err), 0);
	umask(0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	back = slurp(path);
	assert_string_equal(back, "{}\n");
	free(back);
	/* With no umask at all the mode is still exactly what was asked. */
	assert_int_equal(jp_file_write_atomic(path, "[]\n", 3, 0600, &err), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	umask(old);
	jp_error_dispose(&err);
}

static void existing_file_is_replaced_and_no_temporary_is_left(void **state)
{
	struct jp_error err = JP_ERROR_INIT;
	struct scratch *s = *state;
	char path[PATH_MAX], *back;

	in_dir(path, sizeof(path), s, "job.json");
	assert_int_equal(scratch_write(s->dir, "job.json", "old"), 0);
	assert_int_equal(jp_file_write_atomic(path, "new\n", 4, 0644, &err), 0);
	back = slurp(path);
	assert_string_equal(back, "new\n");
	free(back);
	assert_int_equal(scratch_count_entries(s->dir), 1);
	jp_error_dispose(&err);
}

static void relative_path_writes_into_the_current_directory(void **state)
{
	struct jp_error err = JP_ERROR_INIT;
	struct scratch *s = *state;
	char cwd[PATH_MAX], *back;

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(s->dir), 0);
	assert_int_equal(jp_file_write_atomic("rel.json", "x", 1, 0644, &err), 0);
	back = slurp("rel.json");
	assert_int_equal(chdir(cwd), 0);
	assert_string_equal(back, "x");
	free(back);
	jp_error_dispose(&err);
}

static void symlink_in_the_way_is_refused_and_left_alone(void **state)
{
	struct jp_error err = JP_ERROR_INIT;
	struct scratch *s = *state;
	char link[PATH_MAX], target[PATH_MAX], *back;
	struct stat st;

	in_dir(target, sizeof(target), s, "real.json");
	in_dir(link, sizeof(link), s, "link.json");
	assert_int_equal(scratch_write(s->dir, "real.json", "old"), 0);
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(jp_file_write_atomic(link, "new", 3, 0644, &err), JP_EREFUSED);
	assert_non_null(strstr(jp_error_message(&err), "symbolic link"));
	back = slurp(target);
	assert_string_equal(back, "old");
	free(back);
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(scratch_count_entries(s->dir), 2);

	/* A dangling link is refused too: nothing is created at its target. */
	assert_int_equal(unlink(target), 0);
	assert_int_equal(jp_file_write_atomic(link, "new", 3, 0644, &err), JP_EREFUSED);
	assert_int_equal(access(target, F_OK), -1);
	jp_error_dispose(&err);
}

static void directory_in_the_way_is_refused(void **state)
{
	struct jp_error err = JP_ERROR_INIT;
	struct scratch *s = *state;
	char path[PATH_MAX];

	in_dir(path, sizeof(path), s, "dir.json");
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(jp_file_write_atomic(path, "x", 1, 0644, &err), JP_EREFUSED);
	assert_int_equal(scratch_count_entries(s->dir), 1);
	jp_error_dispose(&err);
}

static void missing_directory_or_no_file_name_is_an_error(void **state)
{
	struct jp_error err = JP_ERROR_INIT;
	struct scratch *s = *state;
	char path[PATH_MAX];

	in_dir(path, sizeof(path), s, "no/such/dir/job.json");
	assert_int_equal(jp_file_write_atomic(path, "x", 1, 0644, &err), JP_EIO);
	assert_non_null(strstr(jp_error_message(&err), "No such file or directory"));
	in_dir(path, sizeof(path), s, "");
	assert_int_equal(jp_file_write_atomic(path, "x", 1, 0644, &err), JP_EUSAGE);
	assert_int_equal(jp_file_write_atomic("..", "x", 1, 0644, &err), JP_EUSAGE);
	assert_int_equal(scratch_count_entries(s->dir), 0);
	jp_error_dispose(&err);
}

/* --- killed between write and rename ------------------------------------- */

static void die_before_rename(const char *tmp_path)
{
	(void)tmp_path;
	raise(SIGKILL);
}

static struct jp_manifest *manifest_named(const char *name)
{
	struct jp_manifest *m = NULL;

	assert_int_equal(jp_manifest_new(&m), 0);
	assert_int_equal(jp_set_str(&m->job.name, name), 0);
	assert_int_equal(jp_set_str(&m->job.launch_command, "bash train.sh"), 0);
	m->code.source = JP_CODE_IMAGE;
	assert_int_equal(jp_set_str(&m->code.image, "train:1"), 0);
	assert_int_equal(jp_set_str(&m->outputs.output_dir, "/out"), 0);
	assert_int_equal(jp_set_str(&m->outputs.checkpoint_dir, "/out/ckpt"), 0);
	assert_int_equal(jp_set_str(&m->outputs.log_dir, "/out/logs"), 0);
	return m;
}

static void killed_between_write_and_rename_leaves_old_manifest_intact(void **state)
{
	struct jp_error err = JP_ERROR_INIT;
	struct scratch *s = *state;
	struct jp_manifest *old = manifest_named("old-job"), *new = manifest_named("new-job");
	struct jp_manifest *back = NULL;
	char path[PATH_MAX], *old_text, *new_text = NULL, *now, *tmp_text = NULL;
	int status;
	pid_t pid;

	in_dir(path, sizeof(path), s, "job.json");
	assert_int_equal(jp_manifest_write(old, path, 0644, &err), 0);
	old_text = slurp(path);
	assert_non_null(old_text);

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		jp_file_write_atomic_hook = die_before_rename;
		jp_manifest_write(new, path, 0644, NULL);
		_exit(0); /* not reached when the hook works */
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);

	/* The old manifest: byte for byte, and loadable. */
	now = slurp(path);
	assert_string_equal(now, old_text);
	assert_int_equal(jp_manifest_load(&back, path, JP_READ_MANIFEST, &err), 0);
	assert_string_equal(back->job.name, "old-job");

	/* The child did die after the whole new text was written: the
	 * temporary beside it holds all of it. */
	assert_int_equal(scratch_count_entries(s->dir), 2);
	DIR *d = opendir(s->dir);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, ".job.json.", 10) == 0) {
			char tmp[PATH_MAX];

			in_dir(tmp, sizeof(tmp), s, e->d_name);
			tmp_text = slurp(tmp);
		}
	}
	closedir(d);
	assert_int_equal(jp_manifest_to_text(&new_text, new, &err), 0);
	assert_non_null(tmp_text);
	assert_string_equal(tmp_text, new_text);

	/* And the next write goes through. */
	jp_manifest_free(back);
	assert_int_equal(jp_manifest_write(new, path, 0644, &err), 0);
	assert_int_equal(jp_manifest_load(&back, path, JP_READ_MANIFEST, &err), 0);
	assert_string_equal(back->job.name, "new-job");

	free(old_text);
	free(new_text);
	free(tmp_text);
	free(now);
	jp_manifest_free(old);
	jp_manifest_free(new);
	jp_manifest_free(back);
	jp_error_dispose(&err);
}

/* --- a full disk ------------------------------------------------------------ */

/* In a private mount namespace: a 64 KiB tmpfs, an old file on it, and a
 * write too big to fit. Returns an exit code for the parent to judge. */
static int full_disk_child(const char *dir)
{
	struct jp_error err = JP_ERROR_INIT;
	char path[PATH_MAX], *back;
	size_t big = 1024 * 1024;
	char *data;
	int rc;

	if (unshare(CLONE_NEWNS) < 0)
		return 77;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", dir, "tmpfs", 0, "size=64k") < 0)
		return 77;
	snprintf(path, sizeof(path), "%s/job.json", dir);
	if (jp_file_write_atomic(path, "old\n", 4, 0644, &err) < 0)
		return 10;
	data = malloc(big);
	if (!data)
		return 11;
	memset(data, 'x', big);
	rc = jp_file_write_atomic(path, data, big, 0644, &err);
	free(data);
	if (rc != JP_ENOSPC)
		return 12;
	back = slurp(path);
	if (!back || strcmp(back, "old\n") != 0)
		return 13;
	free(back);
	if (scratch_count_entries(dir) != 1)
		return 14; /* the temporary was not cleaned up */
	jp_error_dispose(&err);
	return 0;
}

static void full_disk_leaves_old_file_and_no_temporary(void **state)
{
	struct scratch *s = *state;
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(full_disk_child(s->dir));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		skip(); /* needs root for a private mount namespace */
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
#define SCRATCH_TEST(f) cmocka_unit_test_setup_teardown(f, scratch_setup, scratch_teardown)
	const struct CMUnitTest tests[] = {
		SCRATCH_TEST(new_file_gets_its_content_and_exact_mode),
		SCRATCH_TEST(existing_file_is_replaced_and_no_temporary_is_left),
		SCRATCH_TEST(relative_path_writes_into_the_current_directory),
		SCRATCH_TEST(symlink_in_the_way_is_refused_and_left_alone),
		SCRATCH_TEST(directory_in_the_way_is_refused),
		SCRATCH_TEST(missing_directory_or_no_file_name_is_an_error),
		SCRATCH_TEST(killed_between_write_and_rename_leaves_old_manifest_intact),
		SCRATCH_TEST(full_disk_leaves_old_file_and_no_temporary),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
