/* Reading manifests: a valid one in full, and every rejection, each a named
 * case that edits one spot of the valid manifest and expects one exact
 * message "job.json: field.path: expected X, got Y". */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <cjson/cJSON.h>

#include "jobprep/manifest.h"
#include "manifest_internal.h"
#include "path_internal.h"

static const char base[] =
	"{\n"
	"  \"schema_version\": 1,\n"
	"  \"generator\": {\"name\": \"jobprep\", \"version\": \"0.1.0\"},\n"
	"  \"created_at\": \"2024-05-01T12:00:00Z\",\n"
	"  \"job\": {\"name\": \"llama-sft\", \"workers\": 2, \"gpus_per_worker\": 8,\n"
	"          \"launch_command\": \"bash scripts/train.sh\",\n"
	"          \"env\": {\"NCCL_DEBUG\": \"INFO\", \"MSG\": \"héllo 你好\"}},\n"
	"  \"code\": {\"source\": \"shared_storage\", \"path\": \"/mnt/public/projects/llama-sft\",\n"
	"           \"repo\": {\"url\": \"https://example.com/team/train-repo.git\", \"ref\": \"main\",\n"
	"                    \"commit\": \"0123456789abcdef0123456789abcdef01234567\"}},\n"
	"  \"data\": [{\"name\": \"corpus\", \"path\": \"/mnt/public/data/corpus\", \"kind\": \"team\",\n"
	"            \"read_only\": false,\n"
	"            \"stats\": {\"files\": 10, \"bytes\": 4096, \"archives\": 0}},\n"
	"           {\"name\": \"weights\", \"path\": \"/infini-data/llama\", \"kind\": \"public\",\n"
	"            \"read_only\": true}],\n"
	"  \"outputs\": {\"output_dir\": \"/mnt/public/outputs/llama-sft/run-001\",\n"
	"              \"checkpoint_dir\": \"/mnt/public/outputs/llama-sft/run-001/checkpoints\",\n"
	"              \"log_dir\": \"/mnt/public/outputs/llama-sft/run-001/logs\"},\n"
	"  \"checks\": [{\"id\": \"code.path.exists\", \"status\": \"pass\", \"message\": \"ok\",\n"
	"              \"path\": \"/mnt/public/projects/llama-sft\"},\n"
	"             {\"id\": \"note\", \"status\": \"warn\", \"message\": \"look\"}],\n"
	"  \"profile\": {\"shared_roots\": [\"/mnt/public\"], \"public_roots\": [\"/infini-data\"],\n"
	"              \"ephemeral_roots\": [\"/tmp\"], \"system_disk_bytes\": 53687091200,\n"
	"              \"defaults\": {\"project_dir\": \"{shared}/projects/{job}\"}}\n"
	"}\n";

/* base with the first `find` replaced by `repl`; find == NULL: repl alone. */
static char *edit(const char *find, const char *repl)
{
	const char *at;
	char *out;

	if (!find)
		return strdup(repl);
	at = strstr(base, find);
	assert_non_null(at);
	out = malloc(strlen(base) + strlen(repl) + 1);
	assert_non_null(out);
	memcpy(out, base, (size_t)(at - base));
	strcpy(out + (at - base), repl);
	strcat(out, at + strlen(find));
	return out;
}

static bool has_message(const struct jp_error *err, const char *msg)
{
	for (size_t i = 0; i < err->n; i++)
		if (strstr(err->msgs[i], msg))
			return true;
	return false;
}

static void print_messages(const struct jp_error *err)
{
	for (size_t i = 0; i < err->n; i++)
		print_message("  got: %s\n", err->msgs[i]);
}

/* --- the valid manifest ---------------------------------------------------- */

static void valid_manifest_reads_every_field(void **state)
{
	struct jp_error err = JP_ERROR_INIT;
	struct jp_manifest *m = NULL;

	(void)state;
	assert_int_equal(jp_manifest_parse(&m, base, strlen(base), "job.json", JP_READ_MANIFEST, &err), 0);
	assert_int_equal(err.n, 0);
	assert_int_equal(m->schema_version, 1);
	assert_string_equal(m->generator_name, "jobprep");
	assert_string_equal(m->generator_version, "0.1.0");
	assert_string_equal(m->created_at, "2024-05-01T12:00:00Z");
	assert_string_equal(m->job.name, "llama-sft");
	assert_int_equal(m->job.workers, 2);
	assert_int_equal(m->job.gpus_per_worker, 8);
	assert_string_equal(m->job.launch_command, "bash scripts/train.sh");
	assert_int_equal(m->job.n_env, 2);
	assert_string_equal(m->job.env[0].name, "NCCL_DEBUG");
	assert_string_equal(m->job.env[1].value, "héllo 你好");
	assert_int_equal(m->code.source, JP_CODE_SHARED_STORAGE);
	assert_string_equal(m->code.path, "/mnt/public/projects/llama-sft");
	assert_string_equal(m->code.repo_url, "https://example.com/team/train-repo.git");
	assert_string_equal(m->code.repo_ref, "main");
	assert_string_equal(m->code.repo_commit, "0123456789abcdef0123456789abcdef01234567");
	assert_null(m->code.image);
	assert_int_equal(m->n_data, 2);
	assert_true(m->data[0].has_stats);
	assert_int_equal(m->data[0].stats.files, 10);
	assert_int_equal(m->data[0].stats.bytes, 4096);
	assert_int_equal(m->data[0].kind, JP_DATA_TEAM);
	assert_false(m->data[0].read_only);
	assert_false(m->data[1].has_stats);
	assert_int_equal(m->data[1].kind, JP_DATA_PUBLIC);
	assert_true(m->data[1].read_only);
	assert_string_equal(m->outputs.log_dir, "/mnt/public/outputs/llama-sft/run-001/logs");
	assert_int_equal(m->n_checks, 2);
	assert_int_equal(m->checks[1].status, JP_CHECK_WARN);
	assert_null(m->checks[1].path);
	assert_int_equal(jp_manifest_worst(m), JP_CHECK_WARN);
	assert_non_null(m->profile);
	assert_int_equal(m->profile->system_disk_bytes, 53687091200ULL);
	jp_manifest_free(m);
	jp_error_dispose(&err);
}

static void parse_ok(const char *text, enum jp_read_mode mode, struct jp_manifest **m)
{
	struct jp_error err = JP_ERROR_INIT;
	int rc = jp_manifest_parse(m, text, strlen(text), "job.json", mode, &err);

	if (rc != 0)
		print_messages(&err);
	assert_int_equal(rc, 0);
	jp_error_dispose(&err);
}

static void byte_count_of_2_to_the_53_is_exact(void **state)
{
	struct jp_manifest *m = NULL;
	char *t = edit("\"bytes\": 4096", "\"bytes\": 9007199254740992");

	(void)state;
	parse_ok(t, JP_READ_MANIFEST, &m);
	assert_true(m->data[0].stats.bytes == 9007199254740992ULL);
	jp_manifest_free(m);
	free(t);
}

static void byte_counts_above_2_to_the_31_are_not_saturated(void **state)
{
	struct jp_manifest *m = NULL;
	char *t = edit("\"files\": 10, \"bytes\": 4096",
		       "\"files\": 2147483653, \"bytes\": 1099511627777");

	(void)state;
	parse_ok(t, JP_READ_MANIFEST, &m);
	assert_true(m->data[0].stats.files == 2147483653ULL);
	assert_true(m->data[0].stats.bytes == 1099511627777ULL);
	jp_manifest_free(m);
	free(t);
}

static void integral_numbers_written_as_decimals_are_integers(void **state)
{
	struct jp_manifest *m = NULL;
	char *t = edit("\"workers\": 2", "\"workers\": 2.0e0");

	(void)state;
	parse_ok(t, JP_READ_MANIFEST, &m);
	assert_int_equal(m->job.workers, 2);
	jp_manifest_free(m);
	free(t);
}

static void ssh_and_scp_urls_with_a_user_name_are_accepted(void **state)
{
	struct jp_manifest *m = NULL;
	char *t = edit("https://example.com/team/train-repo.git", "ssh://git@example.com:22/team/x.git");
	char *u = edit("https://example.com/team/train-repo.git", "git@example.com:team/x.git");

	(void)state;
	parse_ok(t, JP_READ_MANIFEST, &m);
	jp_manifest_free(m);
	parse_ok(u, JP_READ_MANIFEST, &m);
	jp_manifest_free(m);
	free(t);
	free(u);
}

static void answers_may_hold_any_subset(void **state)
{
	struct jp_manifest *m = NULL;

	(void)state;
	parse_ok("{\"job\": {\"name\": \"demo\"}, \"data\": [{\"path\": \"/d\"}]}", JP_READ_ANSWERS,
		 &m);
	assert_string_equal(m->job.name, "demo");
	assert_int_equal(m->job.workers, 1);
	assert_null(m->created_at);
	assert_null(m->outputs.output_dir);
	assert_int_equal(m->n_data, 1);
	assert_string_equal(m->data[0].path, "/d");
	assert_null(m->data[0].name);
	jp_manifest_free(m);
	parse_ok("{}", JP_READ_ANSWERS, &m);
	jp_manifest_free(m);
}

/* Where each path lived when the job was prepared: read, found by field and
 * path (a record of another path is stale), written back the same. */
static void storage_records_are_read_and_written(void **state)
{
	struct jp_error err = JP_ERROR_INIT;
	struct jp_manifest *m = NULL, *again = NULL;
	char *text = edit("\"checks\": [",
			  "\"storage\": [{\"field\": \"code.path\", \"path\": "
			  "\"/mnt/public/projects/llama-sft\", \"fstype\": \"nfs4\", "
			  "\"mount_point\": \"/mnt/public\"}], \"checks\": [");
	char *written = NULL;
	const struct jp_storage_record *r;

	(void)state;
	parse_ok(text, JP_READ_MANIFEST, &m);
	r = jp_manifest_storage_record(m, "code.path", "/mnt/public/projects/llama-sft");
	assert_non_null(r);
	assert_string_equal(r->fstype, "nfs4");
	assert_string_equal(r->mount_point, "/mnt/public");
	assert_null(jp_manifest_storage_record(m, "code.path", "/mnt/public/projects/other"));
	assert_null(jp_manifest_storage_record(m, "outputs.log_dir", "/mnt/public/projects/llama-sft"));
	assert_int_equal(jp_manifest_to_text(&written, m, &err), 0);
	parse_ok(written, JP_READ_MANIFEST, &again);
	assert_int_equal(again->n_storage, 1);
	assert_string_equal(again->storage[0].fstype, "nfs4");
	/* an answers file may carry them too */
	jp_manifest_free(again);
	parse_ok(written, JP_READ_ANSWERS, &again);
	assert_int_equal(again->n_storage, 1);
	jp_manifest_free(again);
	jp_manifest_free(m);
	free(written);
	free(text);
	jp_error_dispose(&err);
}

static void every_problem_is_reported_not_just_the_first(void **state)
{
	struct jp_error err = JP_ERROR_INIT;
	struct jp_manifest *m = NULL;
	char *t1 = edit("\"workers\": 2", "\"workers\": \"two\"");
	char *t2, *t3;

	(void)state;
	t2 = strdup(t1);
	free(t1);
	t1 = t2;
	t2 = strstr(t1, "\"kind\": \"team\"");
	memcpy(t2, "\"kind\": \"tea_\"", 14);
	t3 = strstr(t1, "\"read_only\": true");
	memcpy(t3, "\"read_only\": 1   ", 17);
	assert_int_equal(jp_manifest_parse(&m, t1, strlen(t1), "job.json", JP_READ_MANIFEST, &err),
			 JP_EFORMAT);
	assert_null(m);
	assert_int_equal(err.n, 3);
	assert_string_equal(err.msgs[0], "job.json: job.workers: expected an integer >= 1, got \"two\"");
	assert_string_equal(err.msgs[1],
			    "job.json: data[0].kind: expected \"team\" or \"public\", got \"tea_\"");
	assert_string_equal(err.msgs[2], "job.json: data[1].read_only: expected true or false, got 1");
	jp_manifest_free(m);
	free(t1);
	jp_error_dispose(&err);
}

static void credentials_are_never_echoed_back(void **state)
{
	struct jp_error err = JP_ERROR_INIT;
	struct jp_manifest *m = NULL;
	char *t = edit("https://example.com/", "https://alice:s3cr3t-token@example.com/");

	(void)state;
	assert_int_equal(jp_manifest_parse(&m, t, strlen(t), "job.json", JP_READ_MANIFEST, &err),
			 JP_EFORMAT);
	assert_int_equal(err.n, 1);
	assert_null(strstr(err.msgs[0], "s3cr3t"));
	assert_null(strstr(err.msgs[0], "alice"));
	assert_non_null(strstr(err.msgs[0], "https://***@example.com/team/train-repo.git"));
	free(t);
	jp_error_dispose(&err);
}

static void syntax_errors_name_line_and_column(void **state)
{
	struct jp_error err = JP_ERROR_INIT;
	struct jp_manifest *m = NULL;
	char *t = edit("\"workers\": 2,", "\"workers\": 2,,");

	(void)state;
	assert_int_equal(jp_manifest_parse(&m, t, strlen(t), "job.json", JP_READ_MANIFEST, &err),
			 JP_EFORMAT);
	assert_int_equal(err.n, 1);
	assert_string_equal(err.msgs[0],
			    "job.json:5:45: job: expected a field name in double quotes, got ','");
	free(t);
	jp_error_dispose(&err);
}

static void unknown_schema_version_is_the_only_complaint(void **state)
{
	struct jp_error err = JP_ERROR_INIT;
	struct jp_manifest *m = NULL;
	const char *t = "{\"schema_version\": 2, \"jobs\": []}";

	(void)state;
	assert_int_equal(jp_manifest_parse(&m, t, strlen(t), "job.json", JP_READ_MANIFEST, &err),
			 JP_EFORMAT);
	assert_int_equal(err.n, 1);
	assert_string_equal(err.msgs[0], "job.json: schema_version: expected 1 (the only "
					 "schema_version this jobprep reads), got 2");
	jp_error_dispose(&err);
}

static void missing_file_is_reported_with_its_name(void **state)
{
	struct jp_error err = JP_ERROR_INIT;
	struct jp_manifest *m = NULL;

	(void)state;
	assert_int_equal(jp_manifest_load(&m, "/nonexistent/job.json", JP_READ_MANIFEST, &err),
			 JP_EFORMAT);
	assert_int_equal(jp_exit_code(err.code), 3);
	assert_non_null(strstr(err.msgs[0], "/nonexistent/job.json: "));
	jp_error_dispose(&err);
}

/* --- every rejection: one edit of the valid manifest, one message ---------- */

struct reject {
	const char *name;
	const char *find; /* NULL: repl is the whole text */
	const char *repl;
	const char *message; /* a substring of one reported line */
	enum jp_read_mode mode;
};

#define CASE(name, find, repl, message) { name, find, repl, message, JP_READ_MANIFEST }
#define ANSWERS_CASE(name, find, repl, message) { name, find, repl, message, JP_READ_ANSWERS }

static const struct reject rejects[] = {
	CASE("root_array_is_refused", NULL, "[]",
	  "job.json: (top level): expected a JSON object, got an array"),
	CASE("root_string_is_refused", NULL, "\"job\"",
	  "job.json: (top level): expected a JSON object, got \"job\""),
	CASE("empty_text_is_refused", NULL, "  ",
	  "job.json:1:3: (top level): expected a JSON value, got the end of the text"),
	CASE("workers_as_string_is_refused", "\"workers\": 2", "\"workers\": \"two\"",
	  "job.json: job.workers: expected an integer >= 1, got \"two\""),
	CASE("workers_zero_is_refused", "\"workers\": 2", "\"workers\": 0",
	  "job.json: job.workers: expected an integer >= 1, got 0"),
	CASE("workers_fraction_is_refused", "\"workers\": 2", "\"workers\": 1.5",
	  "job.json: job.workers: expected an integer >= 1, got 1.5"),
	CASE("workers_too_many_is_refused", "\"workers\": 2", "\"workers\": 1000001",
	  "job.json: job.workers: expected an integer <= 1000000, got 1000001"),
	CASE("gpus_negative_is_refused", "\"gpus_per_worker\": 8", "\"gpus_per_worker\": -1",
	  "job.json: job.gpus_per_worker: expected an integer >= 0, got -1"),
	CASE("workers_null_is_refused", "\"workers\": 2", "\"workers\": null",
	  "job.json: job.workers: expected an integer >= 1, got null"),
	CASE("schema_version_2_is_refused", "\"schema_version\": 1", "\"schema_version\": 2",
	  "job.json: schema_version: expected 1 (the only schema_version this jobprep reads), got 2"),
	CASE("schema_version_missing_is_refused", "\"schema_version\": 1,", "",
	  "job.json: schema_version: expected 1 (the only schema_version this jobprep reads), got "
	  "nothing (the field is missing)"),
	CASE("unknown_top_level_field_is_refused", "\"schema_version\": 1,",
	  "\"schema_version\": 1, \"extra\": true,",
	  "job.json: extra: expected one of the fields schema_version, generator, created_at, job, "
	  "code, data, outputs, checks, profile, storage, got an unknown field"),
	CASE("storage_record_without_fstype_is_refused", "\"checks\": [",
	  "\"storage\": [{\"field\": \"code.path\", \"path\": \"/mnt/public/projects/llama-sft\", "
	  "\"mount_point\": \"/mnt/public\"}], \"checks\": [",
	  "job.json: storage[0].fstype: expected a non-empty string, got nothing (the field is "
	  "missing)"),
	CASE("misspelt_job_field_is_refused", "\"gpus_per_worker\"", "\"gpus_per_wroker\"",
	  "job.json: job.gpus_per_wroker: expected one of the fields name, workers, "
	  "gpus_per_worker, launch_command, env, resume_from, got an unknown field"),
	CASE("duplicate_key_is_refused", "\"workers\": 2,", "\"workers\": 2, \"workers\": 3,",
	  "job.json:5:46: job.workers: expected each field once, got it again"),
	CASE("duplicate_key_spelt_with_escapes_is_refused", "\"workers\": 2,",
	  "\"workers\": 2, \"w\\u006frkers\": 3,",
	  "job.workers: expected each field once, got it again"),
	CASE("deep_nesting_is_refused", "\"NCCL_DEBUG\": \"INFO\"",
	  "\"NCCL_DEBUG\": [[[[[[[[[[1]]]]]]]]]]",
	  "job.env.NCCL_DEBUG[0][0][0][0][0]: expected at most 8 levels of nesting, got deeper nesting"),
	CASE("nul_in_string_is_refused", "bash scripts/train.sh", "bash\\u0000rm -rf /",
	  "job.json:6:29: job.launch_command: expected a string without NUL characters, got one "
	  "containing \\u0000"),
	CASE("nul_in_key_is_refused", "\"NCCL_DEBUG\"", "\"NCCL\\u0000X\"",
	  "job.env.NCCL: expected a string without NUL characters"),
	CASE("invalid_utf8_is_refused", "héllo", "h\xff" "llo",
	  "job.env.MSG: expected UTF-8 text, got the byte 0xFF, which is not UTF-8"),
	CASE("overlong_utf8_is_refused", "héllo", "h\xc0\xaf" "llo",
	  "job.env.MSG: expected UTF-8 text, got the byte 0xC0, which is not UTF-8"),
	CASE("utf8_encoded_surrogate_is_refused", "héllo", "h\xed\xa0\x80" "llo",
	  "job.env.MSG: expected UTF-8 text, got the byte 0xED"),
	CASE("lone_surrogate_escape_is_refused", "héllo", "h\\ud800llo",
	  "job.env.MSG: expected a low surrogate (\\uDC00-\\uDFFF) after a high one"),
	CASE("raw_control_character_is_refused", "héllo", "h\tllo",
	  "job.env.MSG: expected control characters escaped (\\n, \\t, \\u00XX), got the control "
	  "character U+0009"),
	CASE("byte_order_mark_is_refused", NULL, "\xef\xbb\xbf{}",
	  "job.json:1:1: (top level): expected a JSON value, got a byte order mark (U+FEFF)"),
	CASE("trailing_text_is_refused", NULL, "{} x",
	  "job.json:1:4: (top level): expected the end of the text after the JSON value, got 'x'"),
	CASE("trailing_comma_is_refused", "\"read_only\": true}]", "\"read_only\": true},]",
	  "data[2]: expected a JSON value, got ']'"),
	CASE("leading_zero_is_refused", "\"workers\": 2", "\"workers\": 02",
	  "job.workers: expected a number without leading zeros, got '2'"),
	CASE("plus_sign_is_refused", "\"workers\": 2", "\"workers\": +2",
	  "job.workers: expected a JSON value, got '+'"),
	CASE("nan_is_refused", "\"workers\": 2", "\"workers\": NaN",
	  "job.workers: expected a JSON value, got 'N'"),
	CASE("single_quotes_are_refused", "\"workers\": 2", "'workers': 2",
	  "job: expected a field name in double quotes, got '''"),
	CASE("count_above_2_to_the_53_is_refused", "\"bytes\": 4096", "\"bytes\": 9007199254740993",
	  "job.json: data[0].stats.bytes: expected an integer <= 9007199254740992, got "
	  "9007199254740993"),
	CASE("huge_count_is_refused", "\"bytes\": 4096", "\"bytes\": 1e400",
	  "job.json: data[0].stats.bytes: expected an integer <= 9007199254740992, got 1e400"),
	CASE("number_that_would_read_as_0_is_refused", "\"archives\": 0", "\"archives\": 1e-400",
	  "data[0].stats.archives: expected a number within a double's range, got 1e-400, which "
	  "would read as 0"),
	CASE("negative_count_is_refused", "\"files\": 10", "\"files\": -1",
	  "job.json: data[0].stats.files: expected an integer >= 0, got -1"),
	CASE("fractional_count_is_refused", "\"archives\": 0", "\"archives\": 0.5",
	  "job.json: data[0].stats.archives: expected an integer >= 0, got 0.5"),
	CASE("profile_disk_above_2_to_the_53_is_refused", "53687091200", "9007199254740993",
	  "job.json: profile.system_disk_bytes: expected an integer byte count >= 0"),
	CASE("relative_path_is_refused", "\"/mnt/public/data/corpus\"", "\"data/corpus\"",
	  "job.json: data[0].path: expected an absolute, normalised path (starting with '/', "
	  "without '.', '..', '//' or a trailing '/'), got \"data/corpus\""),
	CASE("dot_dot_in_path_is_refused", "\"/mnt/public/data/corpus\"", "\"/mnt/public/../etc\"",
	  "data[0].path: expected an absolute, normalised path"),
	CASE("dot_in_path_is_refused", "\"/mnt/public/data/corpus\"", "\"/mnt/./public\"",
	  "data[0].path: expected an absolute, normalised path"),
	CASE("double_slash_in_path_is_refused", "\"/mnt/public/data/corpus\"", "\"/mnt//public\"",
	  "data[0].path: expected an absolute, normalised path"),
	CASE("trailing_slash_in_path_is_refused", "/run-001/logs\"", "/run-001/logs/\"",
	  "outputs.log_dir: expected an absolute, normalised path"),
	CASE("relative_code_path_is_refused", "\"/mnt/public/projects/llama-sft\",",
	  "\"projects/llama-sft\",", "code.path: expected an absolute, normalised path"),
	CASE("relative_profile_root_is_refused", "[\"/mnt/public\"]", "[\"mnt/public\"]",
	  "job.json: profile.shared_roots[0]: expected an absolute, normalised path"),
	CASE("upper_case_job_name_is_refused", "\"llama-sft\", \"workers\"", "\"Llama\", \"workers\"",
	  "job.json: job.name: expected a DNS-1123 label (1 to 63 lower-case letters, digits or "
	  "'-', starting and ending with a letter or digit), got \"Llama\""),
	CASE("job_name_ending_in_dash_is_refused", "\"llama-sft\", \"workers\"",
	  "\"llama-\", \"workers\"", "job.name: expected a DNS-1123 label"),
	CASE("job_name_of_64_characters_is_refused", "\"llama-sft\", \"workers\"",
	  "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\", \"workers\"",
	  "job.name: expected a DNS-1123 label"),
	CASE("job_name_with_underscore_is_refused", "\"llama-sft\", \"workers\"",
	  "\"llama_sft\", \"workers\"", "job.name: expected a DNS-1123 label"),
	CASE("empty_job_name_is_refused", "\"llama-sft\", \"workers\"", "\"\", \"workers\"",
	  "job.name: expected a DNS-1123 label"),
	CASE("short_commit_is_refused", "0123456789abcdef0123456789abcdef01234567",
	  "0123456789abcdef0123456789abcdef0123456",
	  "job.json: code.repo.commit: expected a commit id of 40 lower-case hexadecimal digits, "
	  "got \"0123456789abcdef0123456789abcdef0123456\""),
	CASE("upper_case_commit_is_refused", "0123456789abcdef0123456789abcdef01234567",
	  "0123456789ABCDEF0123456789abcdef01234567", "code.repo.commit: expected a commit id"),
	CASE("non_hex_commit_is_refused", "0123456789abcdef0123456789abcdef01234567",
	  "0123456789abcdefg123456789abcdef01234567", "code.repo.commit: expected a commit id"),
	CASE("password_in_url_is_refused", "https://example.com/", "https://alice:pw@example.com/",
	  "job.json: code.repo.url: expected a repository URL without credentials (remove the "
	  "user:password@ part; git asks for them when it needs them), got "
	  "\"https://***@example.com/team/train-repo.git\""),
	CASE("token_as_https_user_is_refused", "https://example.com/",
	  "https://ghp_abcdef@example.com/", "code.repo.url: expected a repository URL without"),
	CASE("password_in_ssh_url_is_refused", "https://example.com/",
	  "ssh://git:pw@example.com/", "code.repo.url: expected a repository URL without"),
	CASE("missing_outputs_is_refused", "\"outputs\"", "\"outputz\"",
	  "job.json: outputs: expected an object {output_dir, checkpoint_dir, log_dir}, got "
	  "nothing (the field is missing)"),
	CASE("missing_launch_command_is_refused", "\"launch_command\"", "\"launch_commands\"",
	  "job.json: job.launch_command: expected a non-empty string, got nothing (the field is "
	  "missing)"),
	CASE("shared_storage_code_without_path_is_refused", "\"path\": \"/mnt/public/projects/llama-sft\",",
	  "", "job.json: code.path: expected an absolute, normalised path (starting with '/', "
	      "without '.', '..', '//' or a trailing '/'), got nothing (the field is missing)"),
	CASE("image_code_without_image_is_refused", "\"shared_storage\"", "\"image\"",
	  "job.json: code.image: expected a non-empty string, got nothing (the field is missing)"),
	CASE("unknown_code_source_is_refused", "\"shared_storage\"", "\"nfs\"",
	  "job.json: code.source: expected one of \"shared_storage\", \"image\", \"launch_clone\", "
	  "got \"nfs\""),
	CASE("read_only_as_string_is_refused", "\"read_only\": false", "\"read_only\": \"no\"",
	  "job.json: data[0].read_only: expected true or false, got \"no\""),
	CASE("unknown_data_kind_is_refused", "\"kind\": \"team\"", "\"kind\": \"private\"",
	  "job.json: data[0].kind: expected \"team\" or \"public\", got \"private\""),
	CASE("data_as_object_is_refused", "\"data\": [", "\"data\": {\"x\": 1}, \"dat\": [",
	  "job.json: data: expected an array of data sources {name, path, kind, read_only, stats}, "
	  "got an object"),
	CASE("partial_stats_are_refused", "\"files\": 10, ", "",
	  "job.json: data[0].stats.files: expected an integer >= 0, got nothing (the field is "
	  "missing)"),
	CASE("unknown_check_status_is_refused", "\"status\": \"pass\"", "\"status\": \"ok\"",
	  "job.json: checks[0].status: expected one of \"pass\", \"warn\", \"fail\", got \"ok\""),
	CASE("local_time_is_refused", "2024-05-01T12:00:00Z", "2024-05-01T12:00:00+02:00",
	  "job.json: created_at: expected an RFC 3339 UTC time such as 2024-05-01T12:00:00Z, got "
	  "\"2024-05-01T12:00:00+02:00\""),
	CASE("month_13_is_refused", "2024-05-01T12:00:00Z", "2024-13-01T12:00:00Z",
	  "created_at: expected an RFC 3339 UTC time"),
	CASE("bad_env_name_is_refused", "\"NCCL_DEBUG\"", "\"1NCCL\"",
	  "job.json: job.env.1NCCL: expected a variable name of letters, digits and '_', not "
	  "starting with a digit, got \"1NCCL\""),
	CASE("env_value_as_number_is_refused", "\"NCCL_DEBUG\": \"INFO\"", "\"NCCL_DEBUG\": 5",
	  "job.json: job.env.NCCL_DEBUG: expected a string, got 5"),
	CASE("long_values_are_cut_in_messages", "\"llama-sft\", \"workers\"",
	  "\"" "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" "\", \"workers\"",
	  "got \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...\""),
	/* Answers: any subset, but the same type rules. */
	ANSWERS_CASE("answers_with_wrong_type_are_refused", NULL, "{\"job\": {\"workers\": \"two\"}}",
	  "job.json: job.workers: expected an integer >= 1, got \"two\""),
	ANSWERS_CASE("answers_with_unknown_field_are_refused", NULL, "{\"jobs\": {}}",
	  "job.json: jobs: expected one of the fields"),
	ANSWERS_CASE("answers_with_relative_path_are_refused", NULL, "{\"outputs\": {\"log_dir\": \"logs\"}}",
	  "job.json: outputs.log_dir: expected an absolute, normalised path"),
	ANSWERS_CASE("answers_with_other_schema_version_are_refused", NULL, "{\"schema_version\": 3}",
	  "job.json: schema_version: expected 1"),
};

static void reject_case(void **state)
{
	const struct reject *c = *state;
	struct jp_error err = JP_ERROR_INIT;
	struct jp_manifest *m = NULL;
	char *text = edit(c->find, c->repl);
	int rc = jp_manifest_parse(&m, text, strlen(text), "job.json", c->mode, &err);

	if (!has_message(&err, c->message)) {
		print_message("expected: %s\n", c->message);
		print_messages(&err);
	}
	assert_int_equal(rc, JP_EFORMAT);
	assert_null(m);
	assert_true(has_message(&err, c->message));
	assert_int_equal(jp_exit_code(err.code), 3);
	free(text);
	jp_error_dispose(&err);
}

static void validators_agree_with_their_documentation(void **state)
{
	(void)state;
	assert_true(jp_path_is_normal("/"));
	assert_true(jp_path_is_normal("/a/b c/.d/..."));
	assert_false(jp_path_is_normal(""));
	assert_false(jp_path_is_normal("/a/"));
	assert_false(jp_path_is_normal("/a/.."));
	assert_true(jp_valid_job_name("a"));
	assert_true(jp_valid_job_name("0-a"));
	assert_false(jp_valid_job_name("-a"));
	assert_true(jp_url_has_credentials("https://tok@github.com/x"));
	assert_true(jp_url_has_credentials("ftp://u:p@host/x"));
	assert_false(jp_url_has_credentials("https://github.com/x@y"));
	assert_false(jp_url_has_credentials("ssh://git@github.com/x"));
	assert_false(jp_url_has_credentials("git@github.com:x/y.git"));
	assert_false(jp_url_has_credentials("/srv/git/repo"));
	char *r = jp_url_redact("https://u:p@host/x?a@b");
	assert_string_equal(r, "https://host/x?a@b");
	free(r);
	r = jp_url_redact("ssh://git@host/x");
	assert_string_equal(r, "ssh://git@host/x");
	free(r);
	assert_true(jp_valid_timestamp("2024-02-29T23:59:60.123Z"));
	assert_false(jp_valid_timestamp("2024-02-29T24:00:00Z"));
	assert_false(jp_valid_timestamp("2024-02-29T23:59:59.Z"));
	assert_true(jp_valid_env_name("_A1"));
	assert_false(jp_valid_env_name("A-B"));
}

static void same_repo_ignores_a_trailing_git_and_slash(void **state)
{
	(void)state;
	assert_true(jp_url_same_repo("https://h/team/x.git", "https://h/team/x"));
	assert_true(jp_url_same_repo("https://h/team/x/", "https://h/team/x.git"));
	assert_true(jp_url_same_repo("/srv/git/x.git/", "/srv/git/x"));
	assert_false(jp_url_same_repo("https://h/team/x", "https://h/team/xy"));
	assert_false(jp_url_same_repo("https://h/team/x", "http://h/team/x"));
	/* ".git" alone is a name, not a suffix to drop. */
	assert_false(jp_url_same_repo(".git", ""));
	assert_false(jp_url_same_repo(NULL, "https://h/team/x"));
	assert_false(jp_url_same_repo("https://h/team/x", NULL));
}

/* The schema's list of names the shells treat specially is the reader's. */
static void schema_lists_exactly_the_special_env_names(void **state)
{
	cJSON *schema = cJSON_Parse(jp_manifest_schema()), *e;
	size_t n = 0;

	(void)state;
	assert_non_null(schema);
	e = cJSON_GetObjectItem(schema, "properties");
	e = cJSON_GetObjectItem(cJSON_GetObjectItem(e, "job"), "properties");
	e = cJSON_GetObjectItem(cJSON_GetObjectItem(e, "env"), "propertyNames");
	e = cJSON_GetObjectItem(cJSON_GetObjectItem(e, "not"), "enum");
	assert_true(cJSON_IsArray(e));
	for (const char *name; (name = jp_env_special_name(n)); n++) {
		assert_non_null(jp_env_name_special(name));
		assert_string_equal(cJSON_GetArrayItem(e, (int)n)->valuestring, name);
	}
	assert_int_equal((size_t)cJSON_GetArraySize(e), n);
	assert_null(jp_env_name_special("PATH"));
	assert_null(jp_env_name_special("HF_HOME"));
	assert_null(jp_env_name_special("random"));
	cJSON_Delete(schema);
}

int main(void)
{
	const struct CMUnitTest fixed[] = {
		cmocka_unit_test(valid_manifest_reads_every_field),
		cmocka_unit_test(storage_records_are_read_and_written),
		cmocka_unit_test(byte_count_of_2_to_the_53_is_exact),
		cmocka_unit_test(byte_counts_above_2_to_the_31_are_not_saturated),
		cmocka_unit_test(integral_numbers_written_as_decimals_are_integers),
		cmocka_unit_test(ssh_and_scp_urls_with_a_user_name_are_accepted),
		cmocka_unit_test(answers_may_hold_any_subset),
		cmocka_unit_test(every_problem_is_reported_not_just_the_first),
		cmocka_unit_test(credentials_are_never_echoed_back),
		cmocka_unit_test(syntax_errors_name_line_and_column),
		cmocka_unit_test(unknown_schema_version_is_the_only_complaint),
		cmocka_unit_test(missing_file_is_reported_with_its_name),
		cmocka_unit_test(validators_agree_with_their_documentation),
		cmocka_unit_test(same_repo_ignores_a_trailing_git_and_slash),
		cmocka_unit_test(schema_lists_exactly_the_special_env_names),
	};
	size_t n_fixed = sizeof(fixed) / sizeof(fixed[0]);
	size_t n_rejects = sizeof(rejects) / sizeof(rejects[0]);
	struct CMUnitTest *tests = calloc(n_fixed + n_rejects, sizeof(*tests));
	int failed;

	memcpy(tests, fixed, sizeof(fixed));
	for (size_t i = 0; i < n_rejects; i++) {
		tests[n_fixed + i].name = rejects[i].name;
		tests[n_fixed + i].test_func = reject_case;
		tests[n_fixed + i].initial_state = (void *)&rejects[i];
	}
	failed = _cmocka_run_group_tests("manifest_read", tests, n_fixed + n_rejects, NULL, NULL);
	free(tests);
	return failed;
}
