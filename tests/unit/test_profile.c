/* The platform profile: the built-in default, JSON files that replace it,
 * and every malformed profile refused with a message naming the field. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "jobprep/profile.h"
#include "profile_internal.h"
#include "scratch.h"

static char *write_file(const struct scratch *s, const char *name, const char *text)
{
	char *path = NULL;

	assert_true(asprintf(&path, "%s/%s", s->dir, name) > 0);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void default_is_the_source_documents_platform(void **state)
{
	struct jp_profile *p = NULL;
	struct jp_error err = JP_ERROR_INIT;

	(void)state;
	assert_int_equal(jp_profile_new_default(&p, &err), 0);
	assert_int_equal(p->shared_roots.n, 1);
	assert_string_equal(p->shared_roots.v[0], "/mnt/public");
	assert_string_equal(p->public_roots.v[0], "/infini-data");
	assert_int_equal(p->ephemeral_roots.n, 5);
	assert_string_equal(p->ephemeral_roots.v[3], "/root");
	assert_true(p->system_disk_bytes == 50ULL * 1024 * 1024 * 1024);
	assert_string_equal(p->output_dir, "{shared}/outputs/{job}/run-NNN");
	assert_string_equal(p->checkpoint_dir, "{output}/checkpoints");
	assert_int_equal(p->gpus_per_worker, 8);
	jp_profile_free(p);
}

static void file_replaces_only_the_fields_it_names(void **state)
{
	struct jp_profile *p = NULL;
	struct jp_error err = JP_ERROR_INIT;
	char *path = write_file(*state, "p.json",
				"{\"shared_roots\": [\"/lustre/team\", \"/nfs/home\"],"
				" \"system_disk_bytes\": 9007199254740992,"
				" \"defaults\": {\"log_dir\": \"{shared}/logs/{job}\"}}");

	assert_int_equal(jp_profile_load(&p, path, &err), 0);
	assert_int_equal(p->shared_roots.n, 2);
	assert_string_equal(p->shared_roots.v[1], "/nfs/home");
	assert_string_equal(p->public_roots.v[0], "/infini-data");
	assert_true(p->system_disk_bytes == 9007199254740992ULL);
	assert_string_equal(p->log_dir, "{shared}/logs/{job}");
	assert_string_equal(p->project_dir, "{shared}/projects/{job}");
	assert_int_equal(p->gpus_per_worker, 8); /* not said: the default */
	assert_false(p->has_stage_reserve);     /* not said: 1%, at most 1 GiB */
	jp_profile_free(p);
	free(path);
}

/* defaults.gpus_per_worker: what the GPUs field starts at, 0 for a CPU platform. */
static void gpus_per_worker_is_read_and_written_back(void **state)
{
	struct jp_profile *p = NULL, *q = NULL;
	struct jp_error err = JP_ERROR_INIT;
	char *path = write_file(*state, "g.json", "{\"defaults\": {\"gpus_per_worker\": 2}}");

	assert_int_equal(jp_profile_load(&p, path, &err), 0);
	assert_int_equal(p->gpus_per_worker, 2);
	assert_int_equal(jp_profile_copy(&q, p), 0);
	assert_int_equal(q->gpus_per_worker, 2);
	jp_profile_free(q);
	q = NULL;
	cJSON *json = jp_profile_to_json(p);
	char *text = cJSON_PrintUnformatted(json);
	assert_non_null(strstr(text, "\"gpus_per_worker\":2"));
	cJSON *back = cJSON_Parse(text);
	assert_int_equal(jp_profile_from_json(&q, back, "t", &err), 0);
	assert_int_equal(q->gpus_per_worker, 2);
	jp_profile_free(q);
	jp_profile_free(p);
	cJSON_Delete(back);
	cJSON_free(text);
	cJSON_Delete(json);
	free(path);
	path = write_file(*state, "g.json", "{\"defaults\": {\"gpus_per_worker\": 0}}");
	assert_int_equal(jp_profile_load(&p, path, &err), 0);
	assert_int_equal(p->gpus_per_worker, 0);
	jp_profile_free(p);
	jp_error_dispose(&err);
	free(path);
}

static void json_round_trip_keeps_every_field(void **state)
{
	struct jp_profile *p = NULL, *q = NULL;
	struct jp_error err = JP_ERROR_INIT;

	(void)state;
	assert_int_equal(jp_profile_new_default(&p, &err), 0);
	p->system_disk_bytes = (1ULL << 40) + 1;
	p->stage_reserve_bytes = 0; /* set to nothing: kept as set */
	p->has_stage_reserve = true;
	cJSON *json = jp_profile_to_json(p);
	assert_non_null(json);
	char *text = cJSON_PrintUnformatted(json);
	cJSON *back = cJSON_Parse(text);
	assert_int_equal(jp_profile_from_json(&q, back, "t", &err), 0);
	assert_true(q->system_disk_bytes == (1ULL << 40) + 1);
	assert_true(q->has_stage_reserve);
	assert_true(q->stage_reserve_bytes == 0);
	assert_int_equal(q->ephemeral_roots.n, p->ephemeral_roots.n);
	for (size_t i = 0; i < p->ephemeral_roots.n; i++)
		assert_string_equal(q->ephemeral_roots.v[i], p->ephemeral_roots.v[i]);
	assert_string_equal(q->output_dir, p->output_dir);
	cJSON_free(text);
	cJSON_Delete(json);
	cJSON_Delete(back);
	jp_profile_free(p);
	jp_profile_free(q);
}

/* Slurm's scheduling options: read, kept through JSON, absent when unset. */
static void slurm_options_are_read_and_written_back(void **state)
{
	struct jp_profile *p = NULL, *q = NULL;
	struct jp_error err = JP_ERROR_INIT;
	char *path = write_file(*state, "s.json",
				"{\"slurm\": {\"partition\": \"gpu-a100\", \"time\": \"2-00:00:00\", "
				"\"account\": \"nlp\", \"qos\": \"high\"}}");

	assert_int_equal(jp_profile_load(&p, path, &err), 0);
	assert_string_equal(p->slurm_partition, "gpu-a100");
	assert_string_equal(p->slurm_time, "2-00:00:00");
	assert_string_equal(p->slurm_account, "nlp");
	assert_string_equal(p->slurm_qos, "high");
	assert_int_equal(jp_profile_copy(&q, p), 0);
	assert_string_equal(q->slurm_qos, "high");
	jp_profile_free(q);
	cJSON *json = jp_profile_to_json(p);
	char *text = cJSON_PrintUnformatted(json);
	assert_non_null(strstr(text, "\"slurm\":{\"partition\":\"gpu-a100\",\"time\":\"2-00:00:00\","
				     "\"account\":\"nlp\",\"qos\":\"high\"}"));
	cJSON_free(text);
	cJSON_Delete(json);
	jp_profile_free(p);
	/* the default has none, and writes none */
	assert_int_equal(jp_profile_new_default(&p, &err), 0);
	assert_null(p->slurm_partition);
	json = jp_profile_to_json(p);
	assert_null(cJSON_GetObjectItemCaseSensitive(json, "slurm"));
	cJSON_Delete(json);
	jp_profile_free(p);
	jp_error_dispose(&err);
	free(path);
}

static void malformed_profiles_are_refused_naming_the_field(void **state)
{
	static const struct {
		const char *text, *expect;
	} cases[] = {
		{ "[1]", "profile: expected an object, got an array" },
		{ "{\"shared_roots\": \"/mnt/public\"}",
		  "profile.shared_roots: expected an array of absolute paths, got a string" },
		{ "{\"public_roots\": [\"data\"]}",
		  "profile.public_roots[0]: expected an absolute, normalised path, got data" },
		{ "{\"shared_roots\": []}", "profile.shared_roots: expected at least one" },
		{ "{\"gpus\": 8}", "profile.gpus: expected one of the profile's fields" },
		{ "{\"system_disk_bytes\": -1}", "profile.system_disk_bytes: expected an integer" },
		{ "{\"system_disk_bytes\": \"50G\"}", "profile.system_disk_bytes: expected an integer" },
		{ "{\"stage_reserve_bytes\": -1}", "profile.stage_reserve_bytes: expected an integer" },
		{ "{\"stage_reserve_bytes\": 1.5}",
		  "profile.stage_reserve_bytes: expected an integer byte count >= 0, got a non-integer" },
		{ "{\"stage_reserve_bytes\": \"1G\"}",
		  "profile.stage_reserve_bytes: expected an integer byte count >= 0, got a string" },
		{ "{\"defaults\": {\"output_dir\": \"out\"}}",
		  "profile.defaults.output_dir: expected an absolute path template" },
		{ "{\"shared_roots\": [\"/a\"], \"shared_roots\": [\"/b\"]}", "expected each field once" },
		{ "{\"shared_roots\": [\"/a\"]} trailing", "p.json:1:" },
		{ "not json", "p.json:1:1:" },
		{ "{\"defaults\": {\"gpus_per_worker\": -1}}",
		  "profile.defaults.gpus_per_worker: expected an integer from 0 to 1024" },
		{ "{\"defaults\": {\"gpus_per_worker\": 1025}}",
		  "profile.defaults.gpus_per_worker: expected an integer from 0 to 1024" },
		{ "{\"defaults\": {\"gpus_per_worker\": 1.5}}",
		  "profile.defaults.gpus_per_worker: expected an integer from 0 to 1024" },
		{ "{\"defaults\": {\"gpus_per_worker\": \"x\"}}",
		  "profile.defaults.gpus_per_worker: expected an integer from 0 to 1024, got a string" },
		{ "{\"slurm\": \"gpu\"}", "profile.slurm: expected an object, got a string" },
		{ "{\"slurm\": {\"nodes\": \"2\"}}",
		  "profile.slurm.nodes: expected one of partition, time, account, qos" },
		{ "{\"slurm\": {\"partition\": \"gpu a100\"}}",
		  "profile.slurm.partition: expected one word for sbatch" },
		{ "{\"slurm\": {\"time\": 60}}", "profile.slurm.time: expected one word for sbatch" },
		{ "{\"slurm\": {\"qos\": \"\"}}", "profile.slurm.qos: expected one word for sbatch" },
		{ "{\"sandbox\": 1}", "profile.sandbox: expected true or false, got a number" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct jp_profile *p = NULL;
		struct jp_error err = JP_ERROR_INIT;
		char *path = write_file(*state, "p.json", cases[i].text);
		int found = 0;

		assert_int_equal(jp_profile_load(&p, path, &err), JP_EFORMAT);
		assert_null(p);
		for (size_t j = 0; j < err.n; j++)
			found |= strstr(err.msgs[j], cases[i].expect) != NULL;
		if (!found)
			fail_msg("case %zu: no message with '%s' (first: %s)", i, cases[i].expect,
				 jp_error_message(&err));
		jp_error_dispose(&err);
		free(path);
	}
}

static void missing_file_is_an_invalid_file_error(void **state)
{
	struct jp_profile *p = NULL;
	struct jp_error err = JP_ERROR_INIT;

	(void)state;
	assert_int_equal(jp_profile_load(&p, "/nonexistent/profile.json", &err), JP_EFORMAT);
	assert_non_null(strstr(jp_error_message(&err), "/nonexistent/profile.json"));
	jp_error_dispose(&err);
}

static void environment_variable_names_the_profile_when_no_flag_does(void **state)
{
	struct jp_profile *p = NULL;
	struct jp_error err = JP_ERROR_INIT;
	char *path = write_file(*state, "env.json", "{\"shared_roots\": [\"/from/env\"]}");

	setenv("JOBPREP_PROFILE", path, 1);
	assert_int_equal(jp_profile_resolve(&p, NULL, &err), 0);
	assert_string_equal(p->shared_roots.v[0], "/from/env");
	jp_profile_free(p);
	unsetenv("JOBPREP_PROFILE");
	assert_int_equal(jp_profile_resolve(&p, NULL, &err), 0);
	assert_string_equal(p->shared_roots.v[0], "/mnt/public");
	jp_profile_free(p);
	free(path);
}

/* "sandbox": true (the demo's): read, copied, written back; a real
 * platform's profile (the default) does not say it at all. */
static void sandbox_is_read_and_written_back_only_when_set(void **state)
{
	struct jp_profile *p = NULL, *q = NULL;
	struct jp_error err = JP_ERROR_INIT;
	char *path = write_file(*state, "s.json", "{\"sandbox\": true}");
	cJSON *json;
	char *text;

	assert_int_equal(jp_profile_load(&p, path, &err), 0);
	assert_true(p->sandbox);
	assert_int_equal(jp_profile_copy(&q, p), 0);
	assert_true(q->sandbox);
	json = jp_profile_to_json(q);
	text = cJSON_PrintUnformatted(json);
	assert_non_null(strstr(text, "\"sandbox\":true"));
	cJSON_free(text);
	cJSON_Delete(json);
	jp_profile_free(q);
	jp_profile_free(p);
	assert_int_equal(jp_profile_new_default(&p, &err), 0);
	assert_false(p->sandbox);
	json = jp_profile_to_json(p);
	text = cJSON_PrintUnformatted(json);
	assert_null(strstr(text, "sandbox"));
	cJSON_free(text);
	cJSON_Delete(json);
	jp_profile_free(p);
	jp_error_dispose(&err);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(default_is_the_source_documents_platform),
		cmocka_unit_test_setup_teardown(file_replaces_only_the_fields_it_names,
						scratch_setup, scratch_teardown),
		cmocka_unit_test(json_round_trip_keeps_every_field),
		cmocka_unit_test_setup_teardown(malformed_profiles_are_refused_naming_the_field,
						scratch_setup, scratch_teardown),
		cmocka_unit_test(missing_file_is_an_invalid_file_error),
		cmocka_unit_test_setup_teardown(gpus_per_worker_is_read_and_written_back,
						scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(slurm_options_are_read_and_written_back, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(sandbox_is_read_and_written_back_only_when_set,
						scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(
			environment_variable_names_the_profile_when_no_flag_does, scratch_setup,
			scratch_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
