/* The run's preflight.sh as rendered: it judges exactly the paths and ids
 * `jobprep check` judges, quotes every value so sh reads it back, and needs
 * a run folder. (It is run by real shells in tests/integration/preflight.sh.) */
#include "config.h"

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
#include "check_internal.h"
#include "jobprep/manifest.h"
#include "manifest_internal.h"
#include "jobprep/preflight.h"
#include "preflight_internal.h"
#include "jobprep/profile.h"
#include "profile_internal.h"
#include "jobprep/strv.h"
#include "scratch.h"

static char *join(const struct scratch *s, const char *rel)
{
	char *p = NULL;

	assert_true(asprintf(&p, "%s/%s", s->dir, rel) > 0);
	return p;
}

/* code, a data directory, a data file, outputs; profile: the scratch
 * folder is the shared storage. */
static struct jp_manifest *layout(const struct scratch *s)
{
	static const char *const dirs[] = { "code", "data", "out", "out/ckpt", "out/logs" };
	struct jp_manifest *m = NULL;
	struct jp_error err = JP_ERROR_INIT;
	char *p;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		p = join(s, dirs[i]);
		assert_int_equal(mkdir(p, 0755), 0);
		free(p);
	}
	assert_int_equal(scratch_write(s->dir, "data.bin", "1234"), 0);
	assert_int_equal(jp_manifest_new(&m), 0);
	m->job.name = strdup("pf");
	m->job.workers = 2;
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
	assert_int_equal(jp_profile_new_default(&m->profile, &err), 0);
	jp_strv_dispose(&m->profile->shared_roots);
	assert_int_equal(jp_strv_push(&m->profile->shared_roots, s->dir), 0);
	jp_error_dispose(&err);
	return m;
}

static bool has_check(const struct jp_manifest *m, const char *id)
{
	for (size_t i = 0; i < m->n_checks; i++)
		if (strcmp(m->checks[i].id, id) == 0)
			return true;
	return false;
}

/* The field of a "jp_check 'FIELD' ROLE 'PATH'" line, and its role. */
static bool parse_check_line(const char *line, char *field, size_t len, unsigned *role)
{
	const char *q, *r;

	if (strncmp(line, "jp_check '", 10) != 0)
		return false;
	q = strchr(line + 10, '\'');
	assert_non_null(q);
	snprintf(field, len, "%.*s", (int)(q - line - 10), line + 10);
	r = q + 2;
	*role = strncmp(r, "code ", 5) == 0   ? JP_CHECK_ROLE_CODE
		: strncmp(r, "data ", 5) == 0 ? JP_CHECK_ROLE_DATA
					      : JP_CHECK_ROLE_OUTPUT;
	if (*role == JP_CHECK_ROLE_OUTPUT)
		assert_int_equal(strncmp(r, "output ", 7), 0);
	return true;
}

static void preflight_judges_the_paths_and_ids_check_judges(void **state)
{
	struct jp_error err = JP_ERROR_INIT;
	struct scratch *s = *state;
	struct jp_manifest *m = layout(s);
	struct jp_check_path *paths = NULL;
	size_t n_paths = 0, n_lines = 0;
	char *text = NULL, field[64], id[128];
	unsigned role;

	assert_int_equal(jp_check_manifest(m, m->profile, 0, &err), 0);
	assert_int_equal(jp_preflight_render(&text, m, &err), 0);
	assert_int_equal(jp_check_paths(&paths, &n_paths, m), 0);
	assert_int_equal(n_paths, 6);
	for (char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		if (!parse_check_line(line, field, sizeof(field), &role))
			continue;
		/* the same paths, in the same order, under the same names */
		assert_true(n_lines < n_paths);
		assert_string_equal(field, paths[n_lines].field);
		assert_int_equal(role, paths[n_lines].role);
		n_lines++;
		/* each of its checks is one `jobprep check` reports */
		for (const char *const *c = jp_preflight_checks(role); *c; c++) {
			snprintf(id, sizeof(id), "%s.%s", field, *c);
			if (!has_check(m, id))
				fail_msg("preflight.sh checks %s, jobprep check does not", id);
		}
	}
	assert_int_equal(n_lines, n_paths);
	/* and every path jobprep check judges is one the preflight judges */
	for (size_t i = 0; i < m->n_checks; i++) {
		bool found = false;

		for (size_t k = 0; k < n_paths; k++)
			if (strncmp(m->checks[i].id, paths[k].field, strlen(paths[k].field)) == 0)
				found = true;
		/* (the launch command's lint and the checkout's state -- is it
		 * committed, pushed -- are judged where the job is prepared, not
		 * by every Worker) */
		/* the job's runtime (preflight_runtime.sh) by the same ids */
		found = found || strstr(text, m->checks[i].id) != NULL;
		if (!found && strncmp(m->checks[i].id, "launch.", 7) != 0 &&
		    strncmp(m->checks[i].id, "code.repo.", 10) != 0)
			fail_msg("jobprep check judges %s, preflight.sh does not", m->checks[i].id);
	}
	/* the meeting comes after the paths, for this two-Worker job */
	assert_non_null(strstr(text, "jp_workers=2\n"));
	assert_non_null(strstr(text, "\njp_meet\njp_runtime\njp_finish\n"));
	free(paths);
	free(text);
	jp_manifest_free(m);
	jp_error_dispose(&err);
}

/* sh -n (syntax only) on text; its exit status. */
static int sh_syntax(const struct scratch *s, const char *text)
{
	char *p = join(s, "pf.sh"), *cmd = NULL;
	FILE *f = fopen(p, "w");
	int st;

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	assert_true(asprintf(&cmd, "sh -n '%s'", p) > 0);
	st = system(cmd);
	free(cmd);
	free(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void hostile_paths_are_quoted(void **state)
{
	struct jp_error err = JP_ERROR_INIT;
	struct scratch *s = *state;
	struct jp_manifest *m = layout(s);
	char *text = NULL;

	free(m->data[0].path);
	m->data[0].path = strdup("/mnt/public/it's $(touch pwned) `id`\nline2; \"q\"");
	assert_int_equal(jp_preflight_render(&text, m, &err), 0);
	/* no count recorded: '?', it must hold files */
	assert_non_null(strstr(text, "jp_check 'data[0].path' data '/mnt/public/it'\\''s $(touch "
				     "pwned) `id`\nline2; \"q\"' '?'\n"));
	assert_int_equal(sh_syntax(s, text), 0);
	free(text);
	jp_manifest_free(m);
	jp_error_dispose(&err);
}

static void a_manifest_without_a_run_folder_has_no_preflight(void **state)
{
	struct jp_error err = JP_ERROR_INIT;
	struct scratch *s = *state;
	struct jp_manifest *m = layout(s);
	char *text = NULL;

	free(m->outputs.output_dir);
	m->outputs.output_dir = NULL;
	assert_int_equal(jp_preflight_render(&text, m, &err), JP_EFORMAT);
	assert_null(text);
	assert_non_null(strstr(err.msgs[0], "outputs.output_dir"));
	jp_manifest_free(m);
	jp_error_dispose(&err);
}

int main(void)
{
#define SCRATCH_TEST(f) cmocka_unit_test_setup_teardown(f, scratch_setup, scratch_teardown)
	const struct CMUnitTest tests[] = {
		SCRATCH_TEST(preflight_judges_the_paths_and_ids_check_judges),
		SCRATCH_TEST(hostile_paths_are_quoted),
		SCRATCH_TEST(a_manifest_without_a_run_folder_has_no_preflight),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
