/* Path checks on real directories: ids, verdicts, the advice in messages,
 * and the probe files leaving nothing behind. Permission failures run as
 * an unprivileged user (root reads and writes everything). */
#include "config.h"

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "jobprep/check.h"
#include "jobprep/manifest.h"
#include "manifest_internal.h"
#include "str.h"
#include "scratch.h"

static char *join(const struct scratch *s, const char *rel)
{
	char *p = NULL;

	assert_true(asprintf(&p, "%s/%s", s->dir, rel) > 0);
	return p;
}

static void make_dir(const struct scratch *s, const char *rel)
{
	char *p = join(s, rel);

	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
}

/* A project, two data sets (a directory and a file) and the outputs. */
static struct jp_manifest *layout(const struct scratch *s)
{
	struct jp_manifest *m = NULL;
	char *p;

	assert_int_equal(chmod(s->dir, 0755), 0);
	make_dir(s, "code");
	make_dir(s, "data");
	assert_int_equal(scratch_write(s->dir, "data.bin", "1234"), 0);
	make_dir(s, "out");
	make_dir(s, "out/ckpt");
	make_dir(s, "out/logs");
	assert_int_equal(jp_manifest_new(&m), 0);
	m->code.source = JP_CODE_SHARED_STORAGE;
	m->code.path = join(s, "code");
	p = join(s, "data");
	assert_int_equal(jp_manifest_add_data(m, "dir", p, JP_DATA_TEAM, false), 0);
	free(p);
	p = join(s, "data.bin");
	assert_int_equal(jp_manifest_add_data(m, "file", p, JP_DATA_TEAM, true), 0);
	free(p);
	m->outputs.output_dir = join(s, "out");
	m->outputs.checkpoint_dir = join(s, "out/ckpt");
	m->outputs.log_dir = join(s, "out/logs");
	return m;
}

static const struct jp_check *find(const struct jp_manifest *m, const char *id)
{
	for (size_t i = 0; i < m->n_checks; i++)
		if (strcmp(m->checks[i].id, id) == 0)
			return &m->checks[i];
	return NULL;
}

static void present_paths_pass_under_their_ids(void **state)
{
	static const char *const ids[] = {
		"code.path.exists",
		"code.path.readable",
		"data[0].path.staging",
		"data[0].path.exists",
		"data[0].path.readable",
		"data[1].path.staging",
		"data[1].path.exists",
		"data[1].path.readable",
		"outputs.output_dir.exists",
		"outputs.output_dir.writable",
		"outputs.checkpoint_dir.exists",
		"outputs.checkpoint_dir.writable",
		"outputs.log_dir.exists",
		"outputs.log_dir.writable",
	};
	struct jp_error err = JP_ERROR_INIT;
	struct scratch *s = *state;
	struct jp_manifest *m = layout(s);

	const size_t n_ids = sizeof(ids) / sizeof(ids[0]);

	assert_int_equal(jp_check_manifest(m, NULL, 0, &err), 0);
	/* the path checks, then the checkout's: this code folder is no git
	 * checkout (the same check `jobprep check` and the review list) */
	assert_int_equal(m->n_checks, n_ids + 1);
	for (size_t i = 0; i < n_ids; i++) {
		assert_string_equal(m->checks[i].id, ids[i]);
		assert_int_equal(m->checks[i].status, JP_CHECK_PASS);
		assert_non_null(m->checks[i].path);
	}
	assert_string_equal(m->checks[n_ids].id, "code.repo.recorded");
	assert_int_equal(m->checks[n_ids].status, JP_CHECK_WARN);
	assert_int_equal(jp_manifest_worst(m), JP_CHECK_WARN);
	/* The probes are gone again. */
	assert_int_equal(scratch_count_entries(m->outputs.output_dir), 2);
	assert_int_equal(scratch_count_entries(m->outputs.log_dir), 0);
	/* Checks replace earlier results rather than pile up. */
	assert_int_equal(jp_check_manifest(m, NULL, 0, &err), 0);
	assert_int_equal(m->n_checks, n_ids + 1);
	jp_manifest_free(m);
	jp_error_dispose(&err);
}

static void missing_output_dir_fails_and_says_how_to_create_it(void **state)
{
	struct jp_error err = JP_ERROR_INIT;
	struct scratch *s = *state;
	struct jp_manifest *m = layout(s);
	const struct jp_check *c;
	char want[PATH_MAX * 2];

	assert_int_equal(rmdir(m->outputs.log_dir), 0);
	assert_int_equal(jp_check_manifest(m, NULL, 0, &err), 0);
	c = find(m, "outputs.log_dir.exists");
	assert_non_null(c);
	assert_int_equal(c->status, JP_CHECK_FAIL);
	snprintf(want, sizeof(want), "mkdir -p '%s'", m->outputs.log_dir);
	assert_non_null(strstr(c->message, want));
	assert_null(find(m, "outputs.log_dir.writable"));
	assert_int_equal(jp_manifest_worst(m), JP_CHECK_FAIL);
	jp_manifest_free(m);
	jp_error_dispose(&err);
}

static void missing_data_fails_and_is_not_read(void **state)
{
	struct jp_error err = JP_ERROR_INIT;
	struct scratch *s = *state;
	struct jp_manifest *m = layout(s);
	const struct jp_check *c;

	assert_int_equal(unlink(m->data[1].path), 0);
	assert_int_equal(jp_check_manifest(m, NULL, 0, &err), 0);
	c = find(m, "data[1].path.exists");
	assert_int_equal(c->status, JP_CHECK_FAIL);
	assert_non_null(strstr(c->message, "does not exist"));
	assert_null(find(m, "data[1].path.readable"));
	assert_int_equal(find(m, "data[0].path.readable")->status, JP_CHECK_PASS);
	jp_manifest_free(m);
	jp_error_dispose(&err);
}

static void output_path_that_is_a_file_fails(void **state)
{
	struct jp_error err = JP_ERROR_INIT;
	struct scratch *s = *state;
	struct jp_manifest *m = layout(s);
	const struct jp_check *c;

	assert_int_equal(jp_set_str(&m->outputs.checkpoint_dir, m->data[1].path), 0);
	assert_int_equal(jp_check_manifest(m, NULL, 0, &err), 0);
	c = find(m, "outputs.checkpoint_dir.exists");
	assert_int_equal(c->status, JP_CHECK_FAIL);
	assert_non_null(strstr(c->message, "is not a directory"));
	jp_manifest_free(m);
	jp_error_dispose(&err);
}

static void code_inside_an_image_is_not_looked_for_here(void **state)
{
	struct jp_error err = JP_ERROR_INIT;
	struct scratch *s = *state;
	struct jp_manifest *m = layout(s);

	m->code.source = JP_CODE_IMAGE;
	assert_int_equal(jp_set_str(&m->code.path, "/workspace/code"), 0);
	assert_int_equal(jp_check_manifest(m, NULL, 0, &err), 0);
	assert_null(find(m, "code.path.exists"));
	assert_int_equal(jp_manifest_worst(m), JP_CHECK_PASS);
	jp_manifest_free(m);
	jp_error_dispose(&err);
}

/* Run the checks as an unprivileged user in a child; returns its exit code:
 * 0 when `id` got `status` and a message holding `words`. */
static int check_as_nobody(struct jp_manifest *m, const char *id, enum jp_check_status status,
			   const char *words)
{
	int wstatus;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		const struct jp_check *c;

		if (geteuid() == 0 && (setgid(65534) < 0 || setuid(65534) < 0))
			_exit(20);
		if (jp_check_manifest(m, NULL, 0, NULL) < 0)
			_exit(21);
		c = find(m, id);
		if (!c)
			_exit(22);
		if (c->status != status || !strstr(c->message, words)) {
			fprintf(stderr, "%s: %s\n", c->id, c->message);
			_exit(23);
		}
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &wstatus, 0), pid);
	assert_true(WIFEXITED(wstatus));
	return WEXITSTATUS(wstatus);
}

static void unwritable_output_fails_with_the_reason(void **state)
{
	struct scratch *s = *state;

	if (geteuid() == 0 && !s->nobody_reaches)
		skip(); /* no folder here that user 65534 can reach */
	struct jp_manifest *m = layout(s);

	/* Owned by root and 0755 (or 0555 when not root): not writable. */
	if (geteuid() != 0)
		assert_int_equal(chmod(m->outputs.checkpoint_dir, 0555), 0);
	assert_int_equal(check_as_nobody(m, "outputs.checkpoint_dir.writable", JP_CHECK_FAIL,
					 "Permission denied"),
			 0);
	assert_int_equal(scratch_count_entries(m->outputs.checkpoint_dir), 0);
	jp_manifest_free(m);
}

static void unreadable_data_fails_with_the_reason(void **state)
{
	struct scratch *s = *state;

	if (geteuid() == 0 && !s->nobody_reaches)
		skip(); /* no folder here that user 65534 can reach */
	struct jp_manifest *m = layout(s);

	assert_int_equal(chmod(m->data[0].path, 0700), 0);
	if (geteuid() != 0)
		assert_int_equal(chmod(m->data[0].path, 0), 0);
	assert_int_equal(check_as_nobody(m, "data[0].path.readable", JP_CHECK_FAIL,
					 "Permission denied"),
			 0);
	jp_manifest_free(m);
}

static void launch_command_findings_are_part_of_the_checks(void **state)
{
	struct jp_error err = JP_ERROR_INIT;
	struct jp_manifest *m = layout(*state);
	const struct jp_check *c;

	assert_int_equal(jp_set_str(&m->job.launch_command,
				    "pip install -r requirements.txt && echo \"wget is a tool\""),
			 0);
	assert_int_equal(jp_check_manifest(m, NULL, 0, &err), 0);
	c = find(m, "launch.install");
	assert_non_null(c);
	assert_int_equal(c->status, JP_CHECK_WARN);
	assert_non_null(strstr(c->message, "'pip install'"));
	assert_null(find(m, "launch.download"));
	/* Checks run twice give the findings once. */
	size_t n = m->n_checks;
	assert_int_equal(jp_check_manifest(m, NULL, 0, &err), 0);
	assert_int_equal(m->n_checks, n);
	jp_manifest_free(m);
	jp_error_dispose(&err);
}

int main(void)
{
#define SCRATCH_TEST(f) cmocka_unit_test_setup_teardown(f, scratch_setup, scratch_teardown)
	/* their child runs as nobody: a scratch folder that user can reach */
#define NOBODY_TEST(f) cmocka_unit_test_setup_teardown(f, scratch_setup_for_nobody, scratch_teardown)
	const struct CMUnitTest tests[] = {
		SCRATCH_TEST(present_paths_pass_under_their_ids),
		SCRATCH_TEST(missing_output_dir_fails_and_says_how_to_create_it),
		SCRATCH_TEST(missing_data_fails_and_is_not_read),
		SCRATCH_TEST(output_path_that_is_a_file_fails),
		SCRATCH_TEST(code_inside_an_image_is_not_looked_for_here),
		NOBODY_TEST(unwritable_output_fails_with_the_reason),
		NOBODY_TEST(unreadable_data_fails_with_the_reason),
		SCRATCH_TEST(launch_command_findings_are_part_of_the_checks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
