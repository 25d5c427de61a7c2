/* `jobprep env` rendering: single quotes with ' as '\'', the fixed names in
 * their order, then job.env; bad names refused. (tests/integration/env.sh
 * sources the output in four shells.) */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "jobprep/envsh.h"
#include "envsh_internal.h"
#include "jobprep/manifest.h"
#include "manifest_internal.h"
#include "jobprep/shellwords.h"
#include "str.h"

static void quoting_writes_each_quote_as_close_escape_reopen(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "", "''" },
		{ "plain", "'plain'" },
		{ "it's", "'it'\\''s'" },
		{ "''", "''\\'''\\'''" },
		{ "$(rm -rf /) `x` \"y\" \\ !*\n", "'$(rm -rf /) `x` \"y\" \\ !*\n'" },
		{ "你好", "'你好'" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *q = NULL;

		assert_int_equal(jp_sh_quote(&q, cases[i].in), 0);
		assert_string_equal(q, cases[i].out);
		free(q);
	}
}

static struct jp_manifest *manifest(void)
{
	struct jp_manifest *m = NULL;

	assert_int_equal(jp_manifest_new(&m), 0);
	assert_int_equal(jp_set_str(&m->code.path, "/p/proj"), 0);
	assert_int_equal(jp_set_str(&m->outputs.output_dir, "/p/out/run-001"), 0);
	assert_int_equal(jp_set_str(&m->outputs.checkpoint_dir, "/p/out/run-001/ckpt"), 0);
	assert_int_equal(jp_set_str(&m->outputs.log_dir, "/p/out/run-001/it's logs"), 0);
	assert_int_equal(jp_manifest_add_data(m, "a", "/data/a", JP_DATA_TEAM, false), 0);
	assert_int_equal(jp_manifest_add_data(m, "b", "/data/b", JP_DATA_PUBLIC, true), 0);
	assert_int_equal(jp_manifest_add_env(m, "NCCL_DEBUG", "INFO"), 0);
	assert_int_equal(jp_manifest_add_env(m, "_EMPTY", ""), 0);
	return m;
}

static void fixed_names_come_first_then_job_env_in_order(void **state)
{
	struct jp_error err = JP_ERROR_INIT;
	struct jp_manifest *m = manifest();
	char *text = NULL;

	(void)state;
	assert_int_equal(jp_envsh_render(&text, m, &err), 0);
	assert_string_equal(text, "export PROJECT_DIR='/p/proj'\n"
				  "export OUTPUT_DIR='/p/out/run-001'\n"
				  "export CHECKPOINT_DIR='/p/out/run-001/ckpt'\n"
				  "export LOG_DIR='/p/out/run-001/it'\\''s logs'\n"
				  "export DATA_DIR='/data/a'\n"
				  "export DATA_DIR_A='/data/a'\n"
				  "export DATA_DIR_B='/data/b'\n"
				  "export NCCL_DEBUG='INFO'\n"
				  "export _EMPTY=''\n");
	free(text);
	jp_manifest_free(m);
	jp_error_dispose(&err);
}

static void absent_values_are_left_out(void **state)
{
	struct jp_error err = JP_ERROR_INIT;
	struct jp_manifest *m = NULL;
	char *text = NULL;

	(void)state;
	assert_int_equal(jp_manifest_new(&m), 0);
	assert_int_equal(jp_set_str(&m->outputs.output_dir, "/o"), 0);
	assert_int_equal(jp_envsh_render(&text, m, &err), 0);
	assert_string_equal(text, "export OUTPUT_DIR='/o'\n");
	free(text);
	jp_manifest_free(m);
	jp_error_dispose(&err);
}

static void invalid_variable_name_is_refused(void **state)
{
	struct jp_error err = JP_ERROR_INIT;
	struct jp_manifest *m = manifest();
	char *text = NULL;

	(void)state;
	assert_int_equal(jp_manifest_add_env(m, "BAD;rm -rf /", "x"), 0);
	assert_int_equal(jp_envsh_render(&text, m, &err), JP_EFORMAT);
	assert_null(text);
	assert_string_equal(jp_error_message(&err),
			    "job.env[2]: expected a variable name of letters, digits and '_', "
			    "not starting with a digit, got \"BAD;rm -rf /\"");
	jp_manifest_free(m);
	jp_error_dispose(&err);
}

/* What the platform sets for each Worker is never exported, even from a
 * manifest that sets it (check fails job.env.identity): a comment says so. */
static void platform_identity_is_never_exported(void **state)
{
	struct jp_error err = JP_ERROR_INIT;
	struct jp_manifest *m = NULL;
	char *text = NULL;

	(void)state;
	assert_int_equal(jp_manifest_new(&m), 0);
	assert_int_equal(jp_manifest_add_env(m, "RANK", "0"), 0);
	assert_int_equal(jp_manifest_add_env(m, "NCCL_DEBUG", "INFO"), 0);
	assert_int_equal(jp_manifest_add_env(m, "PET_NNODES", "1"), 0);
	assert_int_equal(jp_envsh_render(&text, m, &err), 0);
	assert_string_equal(text, "# RANK: the platform sets it for each Worker; job.env's value is not used\n"
				  "export NCCL_DEBUG='INFO'\n"
				  "# PET_NNODES: the platform sets it for each Worker; job.env's value is not used\n");
	free(text);
	jp_manifest_free(m);
	jp_error_dispose(&err);
}

/* Every data source gets a variable: its name in upper case, other
 * characters as '_'; the index when the name gives none or an earlier
 * source's name gives the same. */
static void every_data_source_gets_a_variable(void **state)
{
	static const char *const names[][2] = {
		{ "sft-data", "DATA_DIR_SFT_DATA" }, { "Llama.3 8b", "DATA_DIR_LLAMA_3_8B" },
		{ "数据", "DATA_DIR_2" },            { "sft_data", "DATA_DIR_3" },
		{ "", "DATA_DIR_4" },
	};
	struct jp_error err = JP_ERROR_INIT;
	struct jp_manifest *m = NULL;
	char *text = NULL, var[JP_ENVSH_NAME_MAX], line[256];

	(void)state;
	assert_int_equal(jp_manifest_new(&m), 0);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(line, sizeof(line), "/data/%zu", i);
		assert_int_equal(jp_manifest_add_data(m, names[i][0], line, JP_DATA_TEAM, false), 0);
	}
	assert_int_equal(jp_envsh_render(&text, m, &err), 0);
	assert_non_null(strstr(text, "export DATA_DIR='/data/0'\n"));
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		jp_envsh_data_var(var, m, i);
		assert_string_equal(var, names[i][1]);
		snprintf(line, sizeof(line), "export %s='/data/%zu'\n", names[i][1], i);
		assert_non_null(strstr(text, line));
	}
	free(text);
	jp_manifest_free(m);
	jp_error_dispose(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(quoting_writes_each_quote_as_close_escape_reopen),
		cmocka_unit_test(fixed_names_come_first_then_job_env_in_order),
		cmocka_unit_test(absent_values_are_left_out),
		cmocka_unit_test(platform_identity_is_never_exported),
		cmocka_unit_test(invalid_variable_name_is_refused),
		cmocka_unit_test(every_data_source_gets_a_variable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
