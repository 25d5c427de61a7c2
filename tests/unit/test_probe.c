/* Probes on real paths in a scratch folder of the build directory: an
 * existing directory is listed, written to (and the probe file removed), and
 * measured; a path that does not exist yet is judged by its nearest existing
 * ancestor; a file is read; the timeout comes from the environment. A hung
 * mount is tested for real in tests/integration/storage_platform.sh. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "jobprep/probe.h"
#include "probe_internal.h"

static char scratch[PATH_MAX - 256];

static int setup(void **state)
{
	char cwd[PATH_MAX - 300];
	(void)state;
	if (!getcwd(cwd, sizeof(cwd)))
		return -1;
	snprintf(scratch, sizeof(scratch), "%s/test_probe.tmp.XXXXXX", cwd);
	return mkdtemp(scratch) ? 0 : -1;
}

static int teardown(void **state)
{
	char *cmd = NULL;
	(void)state;
	if (asprintf(&cmd, "rm -rf '%s'", scratch) < 0)
		return -1;
	int rc = system(cmd);
	free(cmd);
	return rc == 0 ? 0 : -1;
}

static size_t count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;
	assert_non_null(d);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void an_existing_directory_is_listed_written_and_measured(void **state)
{
	struct jp_probe_result r = JP_PROBE_RESULT_INIT;
	struct jp_probe_opts o = JP_PROBE_OPTS_INIT;
	struct jp_error err = JP_ERROR_INIT;
	(void)state;
	o.flags = JP_PROBE_WRITE;
	if (jp_probe_path(&r, NULL, scratch, &o, &err) != 0)
		fail_msg("%s", jp_error_message(&err));
	assert_true(r.exists);
	assert_true(r.is_dir);
	assert_true(r.readable);
	assert_true(r.write_tested);
	assert_true(r.writable);
	assert_int_equal(r.write_errno, 0);
	assert_string_equal(r.write_dir, scratch);
	assert_true(r.has_space);
	assert_true(r.total_bytes > 0);
	assert_true(r.free_bytes <= r.total_bytes);
	assert_true(r.free_inodes <= r.total_inodes);
	/* The probe file is gone. */
	assert_int_equal(count_entries(scratch), 0);
	jp_probe_result_dispose(&r);
	jp_error_dispose(&err);
}

static void without_the_write_flag_nothing_is_written(void **state)
{
	struct jp_probe_result r = JP_PROBE_RESULT_INIT;
	(void)state;
	assert_int_equal(jp_probe_path(&r, NULL, scratch, NULL, NULL), 0);
	assert_true(r.exists);
	assert_false(r.write_tested);
	assert_false(r.writable);
	assert_null(r.write_dir);
	assert_true(r.has_space);
	jp_probe_result_dispose(&r);
}

static void a_missing_path_is_judged_by_its_nearest_existing_ancestor(void **state)
{
	struct jp_probe_result r = JP_PROBE_RESULT_INIT;
	struct jp_probe_opts o = JP_PROBE_OPTS_INIT;
	char path[PATH_MAX];
	(void)state;
	o.flags = JP_PROBE_WRITE | JP_PROBE_CLASSIFY;
	snprintf(path, sizeof(path), "%s/outputs/run-001/checkpoints", scratch);
	assert_int_equal(jp_probe_path(&r, NULL, path, &o, NULL), 0);
	assert_false(r.exists);
	assert_int_equal(r.exists_errno, ENOENT);
	assert_false(r.readable);
	assert_true(r.writable);
	assert_string_equal(r.write_dir, scratch);
	assert_true(r.has_space);
	assert_false(r.info.exists);
	assert_non_null(r.info.resolved);
	assert_non_null(strstr(r.info.resolved, "/outputs/run-001/checkpoints"));
	assert_non_null(r.info.reason);
	assert_int_equal(count_entries(scratch), 0);
	jp_probe_result_dispose(&r);
}

static void a_file_is_read(void **state)
{
	struct jp_probe_result r = JP_PROBE_RESULT_INIT;
	char path[PATH_MAX];
	(void)state;
	snprintf(path, sizeof(path), "%s/one.bin", scratch);
	int fd = open(path, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x", 1), 1);
	close(fd);
	assert_int_equal(jp_probe_path(&r, NULL, path, NULL, NULL), 0);
	assert_true(r.exists);
	assert_false(r.is_dir);
	assert_true(r.readable);
	jp_probe_result_dispose(&r);
	unlink(path);
}

static void the_default_timeout_comes_from_the_environment(void **state)
{
	(void)state;
	unsetenv("JOBPREP_PROBE_TIMEOUT_MS");
	assert_int_equal(jp_probe_default_timeout_ms(), JP_PROBE_DEFAULT_TIMEOUT_MS);
	setenv("JOBPREP_PROBE_TIMEOUT_MS", "1234", 1);
	assert_int_equal(jp_probe_default_timeout_ms(), 1234);
	setenv("JOBPREP_PROBE_TIMEOUT_MS", "soon", 1);
	assert_int_equal(jp_probe_default_timeout_ms(), JP_PROBE_DEFAULT_TIMEOUT_MS);
	setenv("JOBPREP_PROBE_TIMEOUT_MS", "0", 1);
	assert_int_equal(jp_probe_default_timeout_ms(), JP_PROBE_DEFAULT_TIMEOUT_MS);
	unsetenv("JOBPREP_PROBE_TIMEOUT_MS");
}

/* The wizard's own looks: 1.5 s, unless the variable says otherwise, longer
 * too (under valgrind each look is a fork of a slow process, and the flow's
 * checks failed on a loaded machine at 1.5 s). */
static void the_interactive_timeout_follows_the_environment_both_ways(void **state)
{
	(void)state;
	unsetenv("JOBPREP_PROBE_TIMEOUT_MS");
	assert_int_equal(jp_probe_interactive_timeout_ms(), JP_PROBE_INTERACTIVE_MS);
	setenv("JOBPREP_PROBE_TIMEOUT_MS", "700", 1);
	assert_int_equal(jp_probe_interactive_timeout_ms(), 700);
	setenv("JOBPREP_PROBE_TIMEOUT_MS", "120000", 1);
	assert_int_equal(jp_probe_interactive_timeout_ms(), 120000);
	setenv("JOBPREP_PROBE_TIMEOUT_MS", "soon", 1);
	assert_int_equal(jp_probe_interactive_timeout_ms(), JP_PROBE_INTERACTIVE_MS);
	unsetenv("JOBPREP_PROBE_TIMEOUT_MS");
}

static void an_empty_path_is_a_usage_error(void **state)
{
	struct jp_probe_result r = JP_PROBE_RESULT_INIT;
	(void)state;
	assert_int_equal(jp_probe_path(&r, NULL, "", NULL, NULL), JP_EUSAGE);
}

/* A call that blocks until the test lets it go: reads a byte from a pipe. */
struct blocking {
	int in;       /* read end: the call waits here */
	int released; /* write end: release() says it ran */
	int ran;
};

static void blocking_run(void *arg)
{
	struct blocking *b = arg;
	char c;

	if (read(b->in, &c, 1) == 1)
		b->ran = 1;
}

static void blocking_release(void *arg)
{
	struct blocking *b = arg;

	/* On the call's thread: no cmocka asserts here, the test reads it. */
	if (write(b->released, b->ran ? "r" : "x", 1) != 1)
		abort();
}

static void a_job_that_does_not_answer_is_left_and_released_later(void **state)
{
	int go[2], done[2];
	struct blocking b;
	struct jp_probe_job *job = NULL;
	struct jp_error err = JP_ERROR_INIT;
	char c;

	(void)state;
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(done), 0);
	b.in = go[0];
	b.released = done[1];
	b.ran = 0;
	assert_int_equal(jp_probe_start(&job, blocking_run, &b, blocking_release, &err), 0);
	assert_false(jp_probe_wait(job, 50));
	/* Left: the thread hands b to release once it returns, not to us. */
	assert_null(jp_probe_end(job));
	assert_int_equal(write(go[1], "g", 1), 1);
	assert_int_equal(read(done[0], &c, 1), 1);
	assert_int_equal(c, 'r');

	/* One that answers in time: arg is ours again, not released. */
	b.ran = 0;
	assert_int_equal(write(go[1], "g", 1), 1);
	assert_int_equal(jp_probe_start(&job, blocking_run, &b, blocking_release, &err), 0);
	assert_true(jp_probe_wait(job, 10000));
	assert_ptr_equal(jp_probe_end(job), &b);
	assert_int_equal(b.ran, 1);
	close(go[0]);
	close(go[1]);
	close(done[0]);
	close(done[1]);
}

/* The listing the wizard's browser and Tab completion read, from a helper. */
static void a_listing_names_what_was_asked_for(void **state)
{
	struct jp_probe_listing l = JP_PROBE_LISTING_INIT;
	char dir[] = "/tmp/jp-test-list.XXXXXX", path[PATH_MAX];
	const char *files[] = { "alpha", "alps/", ".hidden/", "beta/", "alto" };
	bool seen_alps = false, seen_link = false;

	(void)state;
	assert_non_null(mkdtemp(dir));
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		if (path[strlen(path) - 1] == '/')
			assert_int_equal(mkdir(path, 0700), 0);
		else
			close(open(path, O_CREAT | O_WRONLY, 0600));
	}
	snprintf(path, sizeof(path), "%s/al-link", dir);
	assert_int_equal(symlink("beta", path), 0);

	/* "al": files and directories, a link to a directory counts as one */
	assert_int_equal(jp_probe_list(&l, dir, "al", 0, 0, NULL), 0);
	assert_int_equal(l.errnum, 0);
	assert_int_equal(l.n, 4);
	for (size_t i = 0; i < l.n; i++) {
		seen_alps |= strcmp(l.v[i].name, "alps") == 0 && l.v[i].is_dir;
		seen_link |= strcmp(l.v[i].name, "al-link") == 0 && l.v[i].is_dir;
	}
	assert_true(seen_alps && seen_link);
	jp_probe_listing_dispose(&l);

	/* directories only; the hidden one only when asked for */
	assert_int_equal(jp_probe_list(&l, dir, NULL, JP_PROBE_LIST_DIRS, 0, NULL), 0);
	assert_int_equal(l.n, 3);
	jp_probe_listing_dispose(&l);
	assert_int_equal(
		jp_probe_list(&l, dir, NULL, JP_PROBE_LIST_DIRS | JP_PROBE_LIST_HIDDEN, 0, NULL), 0);
	assert_int_equal(l.n, 4);
	jp_probe_listing_dispose(&l);

	/* a directory that is not there: answered, with its errno */
	snprintf(path, sizeof(path), "%s/nope", dir);
	assert_int_equal(jp_probe_list(&l, path, NULL, 0, 0, NULL), 0);
	assert_int_equal(l.errnum, ENOENT);
	assert_int_equal(l.n, 0);
	jp_probe_listing_dispose(&l);

	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
}

static void stat_in_bounded_time_says_why_it_failed(void **state)
{
	struct stat st;
	char path[PATH_MAX];
	int errnum = -1;

	(void)state;
	assert_int_equal(jp_probe_stat(&st, &errnum, scratch, 0, 0, NULL), 0);
	assert_int_equal(errnum, 0);
	assert_true(S_ISDIR(st.st_mode));
	snprintf(path, sizeof(path), "%s/none", scratch);
	assert_int_equal(jp_probe_stat(&st, &errnum, path, 0, 0, NULL), 0);
	assert_int_equal(errnum, ENOENT);
	snprintf(path, sizeof(path), "%s/link", scratch);
	assert_int_equal(symlink("none", path), 0);
	assert_int_equal(jp_probe_stat(&st, &errnum, path, JP_PROBE_NOFOLLOW, 0, NULL), 0);
	assert_int_equal(errnum, 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(jp_probe_stat(NULL, &errnum, path, 0, 0, NULL), 0);
	assert_int_equal(errnum, ENOENT);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(an_existing_directory_is_listed_written_and_measured),
		cmocka_unit_test(without_the_write_flag_nothing_is_written),
		cmocka_unit_test(a_missing_path_is_judged_by_its_nearest_existing_ancestor),
		cmocka_unit_test(a_file_is_read),
		cmocka_unit_test(the_default_timeout_comes_from_the_environment),
		cmocka_unit_test(the_interactive_timeout_follows_the_environment_both_ways),
		cmocka_unit_test(an_empty_path_is_a_usage_error),
		cmocka_unit_test(a_job_that_does_not_answer_is_left_and_released_later),
		cmocka_unit_test(a_listing_names_what_was_asked_for),
		cmocka_unit_test(stat_in_bounded_time_says_why_it_failed),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
