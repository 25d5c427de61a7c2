/* Writing manifests: a round trip keeps every field and every 64-bit count,
 * an invalid manifest is never written, and a written file has its mode. */
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
#include <unistd.h>

#include <cmocka.h>

#include "jobprep/manifest.h"
#include "manifest_internal.h"
#include "jobprep/profile.h"
#include "profile_internal.h"
#include "str.h"
#include "scratch.h"

#define TWO_53 9007199254740992ULL

/* A manifest with every field set, odd characters included. */
static struct jp_manifest *full_manifest(void)
{
	struct jp_manifest *m = NULL;

	assert_int_equal(jp_manifest_new(&m), 0);
	assert_int_equal(jp_set_str(&m->created_at, "2024-05-01T12:00:00.5Z"), 0);
	assert_int_equal(jp_set_str(&m->job.name, "llama-sft-2"), 0);
	m->job.workers = 64;
	m->job.gpus_per_worker = 8;
	assert_int_equal(jp_set_str(&m->job.launch_command,
				    "cd \"$PROJECT_DIR\" && torchrun --nproc_per_node=8 train.py "
				    "--out \"$CHECKPOINT_DIR\" # 'quoted' \\ back\nline 2"),
			 0);
	assert_int_equal(jp_manifest_add_env(m, "NCCL_DEBUG", "INFO"), 0);
	assert_int_equal(jp_manifest_add_env(m, "GREETING", "héllo \"你好\"\t\x01"), 0);
	assert_int_equal(jp_manifest_add_env(m, "EMPTY", ""), 0);
	m->code.source = JP_CODE_SHARED_STORAGE;
	assert_int_equal(jp_set_str(&m->code.path, "/mnt/public/projects/llama sft/代码"), 0);
	assert_int_equal(jp_set_str(&m->code.repo_url, "ssh://git@example.com:2222/team/x.git"), 0);
	assert_int_equal(jp_set_str(&m->code.repo_ref, "release/v1"), 0);
	assert_int_equal(jp_set_str(&m->code.repo_commit, "89abcdef0123456789abcdef0123456789abcdef"),
			 0);
	assert_int_equal(jp_set_str(&m->code.image, "registry.example.com/team/train:1.0"), 0);
	assert_int_equal(jp_manifest_add_data(m, "corpus", "/mnt/public/data/corpus", JP_DATA_TEAM,
					      false),
			 0);
	m->data[0].has_stats = true;
	m->data[0].stats.files = 2147483653ULL;	  /* 2^31 + 5 */
	m->data[0].stats.bytes = TWO_53;	  /* 2^53 */
	m->data[0].stats.archives = 1099511627777ULL; /* 2^40 + 1 */
	assert_int_equal(jp_manifest_add_data(m, "weights", "/infini-data/llama-3", JP_DATA_PUBLIC,
					      true),
			 0);
	m->data[1].has_stats = true;
	m->data[1].stats.files = TWO_53 - 1;
	m->data[1].stats.bytes = 4294967296ULL; /* 2^32 */
	m->data[1].stats.archives = 0;
	/* where the first was staged from: a download, its digest checked */
	assert_int_equal(jp_set_str(&m->data[0].origin.from,
				    "https://data.example.com/sets/corpus%20v2.tar.zst?x=1"), 0);
	m->data[0].origin.kind = JP_ORIGIN_URL;
	assert_int_equal(jp_set_str(&m->data[0].origin.digest_algorithm, "sha256"), 0);
	assert_int_equal(jp_set_str(&m->data[0].origin.digest,
				    "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"),
			 0);
	assert_int_equal(jp_set_str(&m->data[0].origin.staged_at, "2026-12-01T12:00:00Z"), 0);
	assert_int_equal(jp_set_str(&m->data[1].origin.from, "/home/me/llama 3"), 0);
	m->data[1].origin.kind = JP_ORIGIN_DIR;
	assert_int_equal(jp_set_str(&m->data[1].origin.staged_at, "2026-12-01T12:00:01.25Z"), 0);
	assert_int_equal(jp_manifest_add_data(m, "no-stats", "/", JP_DATA_TEAM, true), 0);
	assert_int_equal(jp_set_str(&m->outputs.output_dir, "/mnt/public/outputs/x/run-001"), 0);
	assert_int_equal(jp_set_str(&m->outputs.checkpoint_dir,
				    "/mnt/public/outputs/x/run-001/checkpoints"),
			 0);
	assert_int_equal(jp_set_str(&m->outputs.log_dir, "/mnt/public/outputs/x/run-001/logs"), 0);
	assert_int_equal(jp_manifest_add_check(m, "outputs.log_dir.writable", JP_CHECK_PASS,
					       "/mnt/public/outputs/x/run-001/logs", "%s is writable.",
					       "/mnt/public/outputs/x/run-001/logs"),
			 0);
	assert_int_equal(jp_manifest_add_check(m, "data[1].path.shared", JP_CHECK_WARN, NULL,
					       "%d%% sure", 50),
			 0);
	assert_int_equal(jp_manifest_add_check(m, "x", JP_CHECK_FAIL, "/", "bad"), 0);
	assert_int_equal(jp_profile_new_default(&m->profile, NULL), 0);
	m->profile->system_disk_bytes = TWO_53;
	jp_strv_dispose(&m->profile->public_roots);
	assert_int_equal(jp_strv_push(&m->profile->public_roots, "/public data"), 0);
	return m;
}

static void assert_str_eq_or_null(const char *a, const char *b)
{
	if (!a || !b)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

static void assert_same_manifest(const struct jp_manifest *a, const struct jp_manifest *b)
{
	assert_int_equal(a->schema_version, b->schema_version);
	assert_str_eq_or_null(a->generator_name, b->generator_name);
	assert_str_eq_or_null(a->generator_version, b->generator_version);
	assert_str_eq_or_null(a->created_at, b->created_at);
	assert_str_eq_or_null(a->job.name, b->job.name);
	assert_int_equal(a->job.workers, b->job.workers);
	assert_int_equal(a->job.gpus_per_worker, b->job.gpus_per_worker);
	assert_str_eq_or_null(a->job.launch_command, b->job.launch_command);
	assert_int_equal(a->job.n_env, b->job.n_env);
	for (size_t i = 0; i < a->job.n_env; i++) {
		assert_string_equal(a->job.env[i].name, b->job.env[i].name);
		assert_string_equal(a->job.env[i].value, b->job.env[i].value);
	}
	assert_int_equal(a->code.source, b->code.source);
	assert_str_eq_or_null(a->code.path, b->code.path);
	assert_str_eq_or_null(a->code.repo_url, b->code.repo_url);
	assert_str_eq_or_null(a->code.repo_ref, b->code.repo_ref);
	assert_str_eq_or_null(a->code.repo_commit, b->code.repo_commit);
	assert_str_eq_or_null(a->code.image, b->code.image);
	assert_int_equal(a->n_data, b->n_data);
	for (size_t i = 0; i < a->n_data; i++) {
		assert_string_equal(a->data[i].name, b->data[i].name);
		assert_string_equal(a->data[i].path, b->data[i].path);
		assert_int_equal(a->data[i].kind, b->data[i].kind);
		assert_int_equal(a->data[i].read_only, b->data[i].read_only);
		assert_int_equal(a->data[i].has_stats, b->data[i].has_stats);
		/* uint64 compared exactly, not through cmocka's casts */
		assert_true(a->data[i].stats.files == b->data[i].stats.files);
		assert_true(a->data[i].stats.bytes == b->data[i].stats.bytes);
		assert_true(a->data[i].stats.archives == b->data[i].stats.archives);
		assert_str_eq_or_null(a->data[i].origin.from, b->data[i].origin.from);
		assert_int_equal(a->data[i].origin.kind, b->data[i].origin.kind);
		assert_str_eq_or_null(a->data[i].origin.digest_algorithm,
				      b->data[i].origin.digest_algorithm);
		assert_str_eq_or_null(a->data[i].origin.digest, b->data[i].origin.digest);
		assert_str_eq_or_null(a->data[i].origin.staged_at, b->data[i].origin.staged_at);
	}
	assert_str_eq_or_null(a->outputs.output_dir, b->outputs.output_dir);
	assert_str_eq_or_null(a->outputs.checkpoint_dir, b->outputs.checkpoint_dir);
	assert_str_eq_or_null(a->outputs.log_dir, b->outputs.log_dir);
	assert_int_equal(a->n_checks, b->n_checks);
	for (size_t i = 0; i < a->n_checks; i++) {
		assert_string_equal(a->checks[i].id, b->checks[i].id);
		assert_int_equal(a->checks[i].status, b->checks[i].status);
		assert_string_equal(a->checks[i].message, b->checks[i].message);
		assert_str_eq_or_null(a->checks[i].path, b->checks[i].path);
	}
	assert_int_equal(a->profile != NULL, b->profile != NULL);
	if (a->profile) {
		assert_true(a->profile->system_disk_bytes == b->profile->system_disk_bytes);
		assert_int_equal(a->profile->public_roots.n, b->profile->public_roots.n);
		assert_string_equal(a->profile->public_roots.v[0], b->profile->public_roots.v[0]);
		assert_int_equal(a->profile->ephemeral_roots.n, b->profile->ephemeral_roots.n);
		assert_string_equal(a->profile->output_dir, b->profile->output_dir);
	}
}

static void round_trip_keeps_every_field_and_64_bit_count(void **state)
{
	struct jp_error err = JP_ERROR_INIT;
	struct jp_manifest *m = full_manifest(), *back = NULL;
	char *text = NULL, *again = NULL;

	(void)state;
	assert_int_equal(jp_manifest_to_text(&text, m, &err), 0);
	/* Written exactly, not as 9.00719925474099e+15. */
	assert_non_null(strstr(text, "\"bytes\":\t9007199254740992"));
	assert_non_null(strstr(text, "\"files\":\t2147483653"));
	assert_non_null(strstr(text, "\"archives\":\t1099511627777"));
	assert_non_null(strstr(text, "\"files\":\t9007199254740991"));
	assert_non_null(strstr(text, "\"system_disk_bytes\":\t9007199254740992"));
	assert_int_equal(text[strlen(text) - 1], '\n');

	assert_int_equal(jp_manifest_parse(&back, text, strlen(text), "mem", JP_READ_MANIFEST, &err),
			 0);
	assert_same_manifest(m, back);
	/* And the text is stable: writing what was read gives the same bytes. */
	assert_int_equal(jp_manifest_to_text(&again, back, &err), 0);
	assert_string_equal(text, again);
	assert_int_equal(err.n, 0);
	free(text);
	free(again);
	jp_manifest_free(m);
	jp_manifest_free(back);
	jp_error_dispose(&err);
}

static void file_round_trip_keeps_every_field(void **state)
{
	struct jp_error err = JP_ERROR_INIT;
	struct jp_manifest *m = full_manifest(), *back = NULL;
	struct scratch *s = *state;
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/job.json", s->dir);
	umask(0077);
	assert_int_equal(jp_manifest_write(m, path, 0644, &err), 0);
	umask(0022);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(jp_manifest_load(&back, path, JP_READ_MANIFEST, &err), 0);
	assert_same_manifest(m, back);
	assert_int_equal(scratch_count_entries(s->dir), 1);
	jp_manifest_free(m);
	jp_manifest_free(back);
	jp_error_dispose(&err);
}

static void new_manifest_is_not_yet_valid_and_says_what_is_missing(void **state)
{
	struct jp_error err = JP_ERROR_INIT;
	struct jp_manifest *m = NULL;

	(void)state;
	assert_int_equal(jp_manifest_new(&m), 0);
	assert_true(jp_valid_timestamp(m->created_at));
	assert_int_equal(jp_manifest_validate(m, "draft", &err), JP_EFORMAT);
	assert_string_equal(err.msgs[0], "draft: job.name: expected a DNS-1123 label (1 to 63 "
					 "lower-case letters, digits or '-', starting and ending "
					 "with a letter or digit), got nothing (the field is missing)");
	jp_manifest_free(m);
	jp_error_dispose(&err);
}

static void invalid_manifest_is_never_written(void **state)
{
	struct jp_error err = JP_ERROR_INIT;
	struct jp_manifest *m = full_manifest();
	struct scratch *s = *state;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/job.json", s->dir);
	m->job.workers = 0;
	assert_int_equal(jp_set_str(&m->code.repo_url, "https://bob:hunter2@example.com/x.git"), 0);
	m->data[1].stats.bytes = TWO_53 + 1;
	assert_int_equal(jp_manifest_write(m, path, 0644, &err), JP_EFORMAT);
	assert_int_equal(err.n, 3);
	assert_non_null(strstr(err.msgs[0], "job.workers: expected an integer >= 1, got 0"));
	assert_non_null(strstr(err.msgs[1], "code.repo.url: expected a repository URL without "
					    "credentials"));
	assert_null(strstr(err.msgs[1], "hunter2"));
	assert_non_null(strstr(err.msgs[2], "data[1].stats.bytes: expected an integer <= "
					    "9007199254740992, got 9007199254740993"));
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(scratch_count_entries(s->dir), 0);
	jp_manifest_free(m);
	jp_error_dispose(&err);
}

static void duplicate_env_names_in_memory_are_refused(void **state)
{
	struct jp_error err = JP_ERROR_INIT;
	struct jp_manifest *m = full_manifest();

	(void)state;
	assert_int_equal(jp_manifest_add_env(m, "NCCL_DEBUG", "WARN"), 0);
	assert_int_equal(jp_manifest_validate(m, "draft", &err), JP_EFORMAT);
	assert_non_null(strstr(err.msgs[0], "job.env.NCCL_DEBUG: expected each field once"));
	jp_manifest_free(m);
	jp_error_dispose(&err);
}

/* A from still to be staged records nothing: the origin is written only
 * once a staging finished (staged_at). */
static void origin_is_written_once_staged(void **state)
{
	struct jp_error err = JP_ERROR_INIT;
	struct jp_manifest *m = full_manifest();
	char *text = NULL;

	(void)state;
	free(m->data[0].origin.staged_at);
	m->data[0].origin.staged_at = NULL;
	assert_int_equal(jp_manifest_to_text(&text, m, &err), 0);
	assert_null(strstr(text, "corpus%20v2"));
	assert_non_null(strstr(text, "/home/me/llama 3"));
	assert_int_equal(jp_manifest_validate(m, "draft", &err), 0);
	free(text);
	jp_manifest_free(m);
	jp_error_dispose(&err);
}

static void enum_names_round_trip(void **state)
{
	enum jp_code_source src;
	enum jp_data_kind kind;
	enum jp_check_status st;

	(void)state;
	for (int i = JP_CODE_SHARED_STORAGE; i <= JP_CODE_LAUNCH_CLONE; i++) {
		assert_int_equal(jp_code_source_from_name(&src, jp_code_source_name(i)), 0);
		assert_int_equal(src, i);
	}
	assert_null(jp_code_source_name(JP_CODE_UNSET));
	assert_int_equal(jp_code_source_from_name(&src, "nfs"), JP_EFORMAT);
	assert_int_equal(jp_data_kind_from_name(&kind, "public"), 0);
	assert_int_equal(kind, JP_DATA_PUBLIC);
	assert_int_equal(jp_check_status_from_name(&st, "fail"), 0);
	assert_int_equal(st, JP_CHECK_FAIL);
	assert_string_equal(jp_check_status_name(JP_CHECK_WARN), "warn");
	for (int i = JP_ORIGIN_DIR; i <= JP_ORIGIN_URL; i++) {
		enum jp_origin_kind ok;

		assert_int_equal(jp_origin_kind_from_name(&ok, jp_origin_kind_name(i)), 0);
		assert_int_equal(ok, i);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip_keeps_every_field_and_64_bit_count),
		cmocka_unit_test_setup_teardown(file_round_trip_keeps_every_field, scratch_setup,
						scratch_teardown),
		cmocka_unit_test(new_manifest_is_not_yet_valid_and_says_what_is_missing),
		cmocka_unit_test_setup_teardown(invalid_manifest_is_never_written, scratch_setup,
						scratch_teardown),
		cmocka_unit_test(duplicate_env_names_in_memory_are_refused),
		cmocka_unit_test(enum_names_round_trip),
		cmocka_unit_test(origin_is_written_once_staged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
