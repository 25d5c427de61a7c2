/* `jobprep export`: the exact Slurm script and PyTorchJob YAML for small
 * manifests, quoting of hostile values in #SBATCH lines, sh and YAML, what
 * Slurm cannot take, and volumes for paths outside the profile's roots.
 * (tests/integration/export_slurm.sh submits scripts to a real Slurm;
 * export_pytorchjob.sh reads the YAML back with PyYAML.) */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "jobprep/export.h"
#include "export_internal.h"
#include "jobprep/manifest.h"
#include "manifest_internal.h"
#include "jobprep/profile.h"
#include "profile_internal.h"
#include "str.h"

#define HEAD_SLURM(name)                                                                           \
	"#!/bin/bash\n"                                                                            \
	"# Slurm batch script for the job \"" name "\", made by jobprep " PACKAGE_VERSION          \
	" from its\n"                                                                              \
	"# manifest (created 2024-05-01T12:00:00Z). Submit it with: sbatch FILE\n"                 \
	"# The log directory must exist when the job starts: Slurm opens the\n"                    \
	"# output files there before this script runs (jobprep init made it).\n"                   \
	"# Yours, kept when jobprep export -o replaces this file: the values of\n"                \
	"# the #SBATCH lines --partition, --time, --account and --qos (or give\n"                 \
	"# them with those options). Every other line is jobprep's, made from\n"                  \
	"# the manifest: change the manifest, not the script.\n"

#define RENDEZVOUS                                                                                 \
	"\n"                                                                                       \
	"# Where the Workers meet, named as Kubeflow's PyTorchJob names it, so one\n"              \
	"# launch command runs on both (job.env below may override these).\n"                      \
	"export MASTER_ADDR=\"$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)\"\n"  \
	"export MASTER_PORT=29500\n"                                                               \
	"export WORLD_SIZE=\"$SLURM_JOB_NUM_NODES\"\n"                                             \
	"\n"                                                                                       \
	"# The job's paths and environment, as `jobprep env` prints them.\n"

/* The run's preflight.sh, run before the launch command (export.c). */
#define PREFLIGHT_LINES                                                                            \
	"[ -f \"$OUTPUT_DIR/preflight.sh\" ] || { echo \"jobprep: $OUTPUT_DIR/preflight.sh is "         \
	"missing: make it with: jobprep preflight MANIFEST > $OUTPUT_DIR/preflight.sh\" >&2; exit 1; }\n" \
	"sh \"$OUTPUT_DIR/preflight.sh\" || exit 1\n"

#define ENV_LINES                                                                                  \
	"export PROJECT_DIR='/p/proj'\n"                                                           \
	"export OUTPUT_DIR='/p/out/run-001'\n"                                                     \
	"export CHECKPOINT_DIR='/p/out/run-001/ckpt'\n"                                            \
	"export LOG_DIR='/p/out/run-001/logs'\n"                                                   \
	"export DATA_DIR='/p/data'\n"                                                              \
	"export DATA_DIR_D='/p/data'\n"                                                            \
	"export NCCL_DEBUG='WARN'\n"                                                               \
	"mkdir -p \"$CHECKPOINT_DIR\" \"$LOG_DIR\" || exit 1\n"

/* A small valid manifest: one Worker, no GPU, code on shared storage, no
 * profile recorded (so the built-in one: /mnt/public, /infini-data). */
static struct jp_manifest *tiny(void)
{
	struct jp_manifest *m = NULL;

	assert_int_equal(jp_manifest_new(&m), 0);
	assert_int_equal(jp_set_str(&m->created_at, "2024-05-01T12:00:00Z"), 0);
	assert_int_equal(jp_set_str(&m->job.name, "tiny"), 0);
	assert_int_equal(jp_set_str(&m->job.launch_command, "bash train.sh"), 0);
	m->code.source = JP_CODE_SHARED_STORAGE;
	assert_int_equal(jp_set_str(&m->code.path, "/p/proj"), 0);
	assert_int_equal(jp_manifest_add_data(m, "d", "/p/data", JP_DATA_TEAM, false), 0);
	assert_int_equal(jp_set_str(&m->outputs.output_dir, "/p/out/run-001"), 0);
	assert_int_equal(jp_set_str(&m->outputs.checkpoint_dir, "/p/out/run-001/ckpt"), 0);
	assert_int_equal(jp_set_str(&m->outputs.log_dir, "/p/out/run-001/logs"), 0);
	assert_int_equal(jp_manifest_add_env(m, "NCCL_DEBUG", "WARN"), 0);
	return m;
}

static char *render(const struct jp_manifest *m, enum jp_export_target target, unsigned *notes)
{
	struct jp_error err = JP_ERROR_INIT;
	char *text = NULL;
	int rc = jp_export_render(&text, notes, m, target, NULL, "job.json", &err);

	if (rc != 0)
		fail_msg("export failed (%d): %s", rc, jp_error_message(&err));
	jp_error_dispose(&err);
	return text;
}

/* The line of text starting with `prefix` (a copy), or NULL. */
static char *line_with(const char *text, const char *prefix)
{
	for (const char *p = text; p && *p;) {
		const char *end = strchr(p, '\n');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (strncmp(p, prefix, strlen(prefix)) == 0)
			return strndup(p, n);
		p = end ? end + 1 : NULL;
	}
	return NULL;
}

static void assert_line(const char *text, const char *prefix, const char *expected)
{
	char *line = line_with(text, prefix);

	if (!line)
		fail_msg("no line starting with %s in:\n%s", prefix, text);
	assert_string_equal(line, expected);
	free(line);
}

static void slurm_script_for_one_worker_runs_the_launch_command_with_bash(void **state)
{
	struct jp_manifest *m = tiny();
	char *text = render(m, JP_EXPORT_SLURM, NULL);

	(void)state;
	assert_string_equal(text, HEAD_SLURM("tiny")
		"#SBATCH --job-name=tiny\n"
		"#SBATCH --nodes=1\n"
		"#SBATCH --ntasks-per-node=1\n"
		"#SBATCH --output=\"/p/out/run-001/logs/%x-%j.out\"\n"
		"#SBATCH --error=\"/p/out/run-001/logs/%x-%j.err\"\n"
		"#SBATCH --chdir=\"/p/proj\"\n"
		RENDEZVOUS
		ENV_LINES
		"\n"
		"# One Worker: the run's preflight.sh checks the paths as this node sees\n"
		"# them; then the launch command runs right here in the batch step, with\n"
		"# bash; one node needs no srun step.\n"
		"export RANK=0\n"
		PREFLIGHT_LINES
		"exec bash -c 'bash train.sh'\n");
	free(text);
	jp_manifest_free(m);
}

static void slurm_script_for_several_workers_asks_gpus_and_runs_srun_per_node(void **state)
{
	struct jp_manifest *m = tiny();
	char *text;

	(void)state;
	m->job.workers = 4;
	m->job.gpus_per_worker = 8;
	text = render(m, JP_EXPORT_SLURM, NULL);
	assert_string_equal(text, HEAD_SLURM("tiny")
		"#SBATCH --job-name=tiny\n"
		"#SBATCH --nodes=4\n"
		"#SBATCH --ntasks-per-node=1\n"
		"#SBATCH --gpus-per-node=8\n"
		"#SBATCH --output=\"/p/out/run-001/logs/%x-%j.out\"\n"
		"#SBATCH --error=\"/p/out/run-001/logs/%x-%j.err\"\n"
		"#SBATCH --chdir=\"/p/proj\"\n"
		RENDEZVOUS
		ENV_LINES
		"\n"
		"# 4 Workers: srun runs, once on every node of the allocation, the\n"
		"# run's preflight.sh (each node checks the paths as it sees them, and\n"
		"# all meet in the output directory), then the launch command, with\n"
		"# bash, RANK set to the node's index; one Worker that fails stops the\n"
		"# others.\n"
		"exec srun --ntasks-per-node=1 --kill-on-bad-exit=1 \\\n"
		"\tbash -c 'export RANK=\"$SLURM_NODEID\"; sh \"$OUTPUT_DIR/preflight.sh\" || exit 1; "
		"exec bash -c \"$1\"' jobprep-launch "
		"'bash train.sh'\n");
	free(text);
	jp_manifest_free(m);
}

static void slurm_script_asks_for_the_profiles_partition_time_account_and_qos(void **state)
{
	struct jp_manifest *m = tiny();
	struct jp_error err = JP_ERROR_INIT;
	char *text;

	(void)state;
	assert_int_equal(jp_profile_new_default(&m->profile, &err), 0);
	assert_int_equal(jp_set_str(&m->profile->slurm_partition, "gpu"), 0);
	assert_int_equal(jp_set_str(&m->profile->slurm_time, "1-12:00:00"), 0);
	assert_int_equal(jp_set_str(&m->profile->slurm_qos, "high"), 0);
	text = render(m, JP_EXPORT_SLURM, NULL);
	assert_non_null(strstr(text, "#SBATCH --ntasks-per-node=1\n"
				     "#SBATCH --partition=gpu\n"
				     "#SBATCH --time=1-12:00:00\n"
				     "#SBATCH --qos=high\n"
				     "#SBATCH --output="));
	assert_null(strstr(text, "#SBATCH --account"));
	free(text);
	jp_manifest_free(m);
	jp_error_dispose(&err);
}

static void slurm_directives_quote_for_sbatch_and_double_percent_in_output_names(void **state)
{
	struct jp_manifest *m = tiny();
	char *text;

	(void)state;
	assert_int_equal(jp_set_str(&m->code.path, "/p/项目 it's \"q\" $(x) `y` #1 %j \\ end"), 0);
	assert_int_equal(jp_set_str(&m->outputs.log_dir, "/p/out/run-001/logs \"x\" 100% #2"), 0);
	text = render(m, JP_EXPORT_SLURM, NULL);
	assert_line(text, "#SBATCH --chdir=",
		    "#SBATCH --chdir=\"/p/项目 it's \\\"q\\\" $(x) `y` #1 %j \\\\ end\"");
	assert_line(text, "#SBATCH --output=",
		    "#SBATCH --output=\"/p/out/run-001/logs \\\"x\\\" 100%% #2/%x-%j.out\"");
	assert_line(text, "#SBATCH --error=",
		    "#SBATCH --error=\"/p/out/run-001/logs \\\"x\\\" 100%% #2/%x-%j.err\"");
	assert_line(text, "export PROJECT_DIR=",
		    "export PROJECT_DIR='/p/项目 it'\\''s \"q\" $(x) `y` #1 %j \\ end'");
	free(text);
	jp_manifest_free(m);
}

static void slurm_launch_command_with_quotes_and_newlines_stays_one_argument(void **state)
{
	struct jp_manifest *m = tiny();
	char *text;

	(void)state;
	assert_int_equal(jp_set_str(&m->job.launch_command,
				    "echo 'it'\"'\"'s' $(date) \"$HOME\"\nprintf '%s\\n' 你好\n"),
			 0);
	text = render(m, JP_EXPORT_SLURM, NULL);
	assert_non_null(strstr(text, "exec bash -c 'echo '\\''it'\\''\"'\\''\"'\\''s'\\'' $(date) "
				     "\"$HOME\"\nprintf '\\''%s\\n'\\'' 你好\n'\n"));
	free(text);
	jp_manifest_free(m);
}

static void slurm_for_launch_clone_starts_in_the_output_dir(void **state)
{
	struct jp_manifest *m = tiny();
	char *text;

	(void)state;
	m->code.source = JP_CODE_LAUNCH_CLONE;
	assert_int_equal(jp_set_str(&m->code.path, "/workspace/tiny"), 0);
	assert_int_equal(jp_set_str(&m->code.repo_url, "https://example.com/t.git"), 0);
	assert_int_equal(jp_set_str(&m->code.repo_commit,
				    "0123456789abcdef0123456789abcdef01234567"), 0);
	text = render(m, JP_EXPORT_SLURM, NULL);
	assert_line(text, "#SBATCH --chdir=", "#SBATCH --chdir=\"/p/out/run-001\"");
	assert_line(text, "export PROJECT_DIR=", "export PROJECT_DIR='/workspace/tiny'");
	free(text);
	jp_manifest_free(m);
}

static void slurm_refuses_what_it_cannot_run_or_write(void **state)
{
	static const struct {
		const char *field, *value, *message;
	} cases[] = {
		{ "image", "registry.example.com/t:1",
		  "job.json: code.source: expected code a Slurm node can reach (\"shared_storage\" "
		  "or \"launch_clone\"), got \"image\": export it with --to pytorchjob" },
		{ "code.path", "/p/new\nline",
		  "job.json: code.path: expected a directory without line breaks for #SBATCH "
		  "--chdir (an #SBATCH line cannot hold one)" },
		{ "log_dir", "/p/logs\nx",
		  "job.json: outputs.log_dir: expected a directory without line breaks or "
		  "backslashes for #SBATCH --output (Slurm expands no %j in a name with a "
		  "backslash)" },
		{ "log_dir", "/p/logs\\x",
		  "job.json: outputs.log_dir: expected a directory without line breaks or "
		  "backslashes for #SBATCH --output (Slurm expands no %j in a name with a "
		  "backslash)" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct jp_error err = JP_ERROR_INIT;
		struct jp_manifest *m = tiny();
		char *text = NULL;

		if (strcmp(cases[i].field, "image") == 0) {
			m->code.source = JP_CODE_IMAGE;
			assert_int_equal(jp_set_str(&m->code.image, cases[i].value), 0);
		} else if (strcmp(cases[i].field, "code.path") == 0) {
			assert_int_equal(jp_set_str(&m->code.path, cases[i].value), 0);
		} else {
			assert_int_equal(jp_set_str(&m->outputs.log_dir, cases[i].value), 0);
		}
		assert_int_equal(jp_export_render(&text, NULL, m, JP_EXPORT_SLURM, NULL, "job.json", &err),
				 JP_EREFUSED);
		assert_null(text);
		assert_string_equal(jp_error_message(&err), cases[i].message);
		jp_error_dispose(&err);
		jp_manifest_free(m);
	}
}

static void invalid_manifest_is_not_exported(void **state)
{
	struct jp_error err = JP_ERROR_INIT;
	struct jp_manifest *m = tiny();
	char *text = NULL;

	(void)state;
	m->job.workers = 0;
	assert_int_equal(jp_set_str(&m->job.name, "Not_A_Label"), 0);
	assert_int_equal(jp_export_render(&text, NULL, m, JP_EXPORT_PYTORCHJOB, NULL, "job.json", &err),
			 JP_EFORMAT);
	assert_null(text);
	assert_true(err.n >= 2); /* every problem, not just the first */
	for (size_t i = 0; i < err.n; i++)
		assert_int_equal(strncmp(err.msgs[i], "job.json: job.", 14), 0);
	jp_error_dispose(&err);
	jp_manifest_free(m);
}

#define HEAD_YAML(name, created)                                                                   \
	"# Kubeflow PyTorchJob for the job \"" name "\", made by jobprep " PACKAGE_VERSION         \
	" from its\n"                                                                              \
	"# manifest (created " created "). Submit it with: kubectl create -f FILE\n"               \
	"# (the Kubeflow training operator runs it; RANK, WORLD_SIZE, MASTER_ADDR\n"               \
	"# and MASTER_PORT are set in every Pod).\n"                                               \
	"# Volumes: hostPath mounts each node's own directory at the same path,\n"                 \
	"# so the manifest's paths hold in the Pods. Where the cluster reaches\n"                  \
	"# shared storage through a PVC or a CSI driver, put that volume here\n"                   \
	"# with the same mountPath. Type Directory fails a Pod on a node without\n"                \
	"# the mount, rather than let it write into a local folder that is lost.\n"
#define YOURS_YAML                                                                                 \
	"# Yours, kept when jobprep export -o replaces this file: the values of\n"                \
	"# image, namespace, priorityClassName and kueue.x-k8s.io/queue-name\n"                   \
	"# (--image, --namespace, --priority-class, --queue). Every other line is\n"              \
	"# jobprep's, made from the manifest: change the manifest, not the file.\n"
#define YOURS_YAML_IMAGE                                                                           \
	"# Yours, kept when jobprep export -o replaces this file: the values of\n"                \
	"# namespace, priorityClassName and kueue.x-k8s.io/queue-name\n"                          \
	"# (--namespace, --priority-class, --queue); the image is the manifest's\n"               \
	"# code.image (or --image). Every other line is jobprep's, made from the\n"               \
	"# manifest: change the manifest, not the file.\n"

#define YAML_COMMAND                                                                               \
	"              command:\n"                                                                 \
	"                - \"/bin/sh\"\n"                                                          \
	"                - \"-c\"\n"                                                               \
	"                - \"export PROJECT_DIR='/p/proj'\\nexport OUTPUT_DIR='/p/out/run-001'\\n"  \
	"export CHECKPOINT_DIR='/p/out/run-001/ckpt'\\nexport LOG_DIR='/p/out/run-001/logs'\\n"     \
	"export DATA_DIR='/p/data'\\nexport DATA_DIR_D='/p/data'\\nexport NCCL_DEBUG='WARN'\\n"       \
	"mkdir -p \\\"$CHECKPOINT_DIR\\\" \\\"$LOG_DIR\\\" || exit 1\\n"                            \
	"[ -f \\\"$OUTPUT_DIR/preflight.sh\\\" ] || { echo \\\"jobprep: $OUTPUT_DIR/preflight.sh is "    \
	"missing: make it with: jobprep preflight MANIFEST > $OUTPUT_DIR/preflight.sh\\\" >&2; "      \
	"exit 1; }\\nsh \\\"$OUTPUT_DIR/preflight.sh\\\" || exit 1\\nbash train.sh\"\n"

static void pytorchjob_for_an_image_has_master_workers_gpus_and_volumes(void **state)
{
	struct jp_manifest *m = tiny();
	struct jp_profile *profile = NULL;
	struct jp_error err = JP_ERROR_INIT;
	unsigned notes = 99;
	char *text;
	/* Master then Worker: the same Pod */
#define POD(role, n)                                                                               \
	"    " role ":\n"                                                                          \
	"      replicas: " n "\n"                                                                  \
	"      restartPolicy: OnFailure\n"                                                         \
	"      template:\n"                                                                        \
	"        spec:\n"                                                                          \
	"          containers:\n"                                                                  \
	"            - name: pytorch\n"                                                            \
	"              image: \"registry.example.com/team/train:v1\"\n"                            \
	"              workingDir: \"/p/proj\"\n" YAML_COMMAND                                     \
	"              resources:\n"                                                               \
	"                limits:\n"                                                                \
	"                  nvidia.com/gpu: 8\n"                                                    \
	"              volumeMounts:\n"                                                            \
	"                - name: shared-0\n"                                                       \
	"                  mountPath: \"/p\"\n"                                                    \
	"                - name: public-0\n"                                                       \
	"                  mountPath: \"/infini-data\"\n"                                          \
	"                  readOnly: true\n"                                                       \
	"                - name: public-1\n"                                                       \
	"                  mountPath: \"/public two\"\n"                                           \
	"                  readOnly: true\n"                                                       \
	"          volumes:\n"                                                                     \
	"            - name: shared-0\n"                                                           \
	"              hostPath:\n"                                                                \
	"                path: \"/p\"\n"                                                           \
	"                type: Directory\n"                                                        \
	"            - name: public-0\n"                                                           \
	"              hostPath:\n"                                                                \
	"                path: \"/infini-data\"\n"                                                 \
	"                type: Directory\n"                                                        \
	"            - name: public-1\n"                                                           \
	"              hostPath:\n"                                                                \
	"                path: \"/public two\"\n"                                                  \
	"                type: Directory\n"

	(void)state;
	m->code.source = JP_CODE_IMAGE;
	assert_int_equal(jp_set_str(&m->code.image, "registry.example.com/team/train:v1"), 0);
	m->job.workers = 3;
	m->job.gpus_per_worker = 8;
	assert_int_equal(jp_profile_new_default(&profile, &err), 0);
	jp_strv_dispose(&profile->shared_roots);
	assert_int_equal(jp_strv_push(&profile->shared_roots, "/p"), 0);
	assert_int_equal(jp_strv_push(&profile->public_roots, "/public two"), 0);
	m->profile = profile;
	text = render(m, JP_EXPORT_PYTORCHJOB, &notes);
	assert_int_equal(notes, 0);
	assert_string_equal(text, HEAD_YAML("tiny", "2024-05-01T12:00:00Z") YOURS_YAML_IMAGE
		"apiVersion: kubeflow.org/v1\n"
		"kind: PyTorchJob\n"
		"metadata:\n"
		"  name: \"tiny\"\n"
		"spec:\n"
		"  pytorchReplicaSpecs:\n"
		POD("Master", "1")
		POD("Worker", "2"));
#undef POD
	free(text);
	jp_manifest_free(m);
	jp_error_dispose(&err);
}

static void pytorchjob_without_an_image_carries_a_placeholder_and_says_so(void **state)
{
	struct jp_manifest *m = tiny();
	unsigned notes = 0;
	char *text;

	(void)state;
	text = render(m, JP_EXPORT_PYTORCHJOB, &notes);
	assert_int_equal(notes, JP_EXPORT_NOTE_IMAGE_PLACEHOLDER);
	assert_string_equal(text, HEAD_YAML("tiny", "2024-05-01T12:00:00Z") YOURS_YAML
		"# FILL IN the image: the manifest names none (its code is on shared storage).\n"
		"# FILL IN: \"FILL-IN-IMAGE\" is not a valid image, so a job submitted with it fails "
		"(or export with --image).\n"
		"apiVersion: kubeflow.org/v1\n"
		"kind: PyTorchJob\n"
		"metadata:\n"
		"  name: \"tiny\"\n"
		"spec:\n"
		"  pytorchReplicaSpecs:\n"
		"    Master:\n"
		"      replicas: 1\n"
		"      restartPolicy: OnFailure\n"
		"      template:\n"
		"        spec:\n"
		"          containers:\n"
		"            - name: pytorch\n"
		"              image: \"FILL-IN-IMAGE\"  # FILL IN: the image the job runs in\n"
		"              workingDir: \"/p/proj\"\n"
		YAML_COMMAND
		/* built-in roots, then the manifest's paths outside them; the
		 * checkpoint and log dirs are inside the output dir */
		"              volumeMounts:\n"
		"                - name: shared-0\n"
		"                  mountPath: \"/mnt/public\"\n"
		"                - name: public-0\n"
		"                  mountPath: \"/infini-data\"\n"
		"                  readOnly: true\n"
		"                - name: path-0\n"
		"                  mountPath: \"/p/proj\"\n"
		"                - name: path-1\n"
		"                  mountPath: \"/p/data\"\n"
		"                - name: path-2\n"
		"                  mountPath: \"/p/out/run-001\"\n"
		"          volumes:\n"
		"            - name: shared-0\n"
		"              hostPath:\n"
		"                path: \"/mnt/public\"\n"
		"                type: Directory\n"
		"            - name: public-0\n"
		"              hostPath:\n"
		"                path: \"/infini-data\"\n"
		"                type: Directory\n"
		"            - name: path-0\n"
		"              hostPath:\n"
		"                path: \"/p/proj\"\n"
		"                type: Directory\n"
		"            - name: path-1\n"
		"              hostPath:\n"
		"                path: \"/p/data\"\n"
		"                type: Directory\n"
		"            - name: path-2\n"
		"              hostPath:\n"
		"                path: \"/p/out/run-001\"\n"
		"                type: Directory\n");
	free(text);
	jp_manifest_free(m);
}

static void yaml_scalars_escape_quotes_backslashes_controls_and_yaml_line_breaks(void **state)
{
	struct jp_manifest *m = tiny();
	char *text;

	(void)state;
	/* DATA_DIR's read-only flag makes its volume read-only too */
	m->data[0].read_only = true;
	assert_int_equal(jp_set_str(&m->job.launch_command,
				    "echo \"a\\b\" 'c' $(d) `e`\n\tx\r\x01\x7f"
				    "\xc2\x85\xe2\x80\xa8\xe2\x80\xa9\xef\xbb\xbf 你好 🚀 é"),
			 0);
	text = render(m, JP_EXPORT_PYTORCHJOB, NULL);
	assert_non_null(strstr(text, "|| exit 1\\necho \\\"a\\\\b\\\" 'c' $(d) `e`\\n\\tx\\r\\x01\\x7F"
				     "\\x85\\u2028\\u2029\\uFEFF 你好 🚀 é\"\n"));
	assert_non_null(strstr(text, "                - name: path-1\n"
				     "                  mountPath: \"/p/data\"\n"
				     "                  readOnly: true\n"));
	free(text);
	jp_manifest_free(m);
}

static void pytorchjob_name_and_paths_are_always_quoted(void **state)
{
	struct jp_manifest *m = tiny();
	char *text;

	(void)state;
	/* A label YAML would read as a number if it were not quoted */
	assert_int_equal(jp_set_str(&m->job.name, "123"), 0);
	assert_int_equal(jp_set_str(&m->code.path, "/p/proj: #x \"y\""), 0);
	text = render(m, JP_EXPORT_PYTORCHJOB, NULL);
	assert_line(text, "  name: ", "  name: \"123\"");
	assert_line(text, "              workingDir: ",
		    "              workingDir: \"/p/proj: #x \\\"y\\\"\"");
	free(text);
	jp_manifest_free(m);
}

static void targets_are_named_and_get_their_file_modes(void **state)
{
	enum jp_export_target t = JP_EXPORT_PYTORCHJOB;

	(void)state;
	assert_int_equal(jp_export_target_from_name(&t, "slurm"), 0);
	assert_int_equal(t, JP_EXPORT_SLURM);
	assert_string_equal(jp_export_target_name(t), "slurm");
	assert_int_equal(jp_export_file_mode(t), 0755);
	assert_int_equal(jp_export_target_from_name(&t, "pytorchjob"), 0);
	assert_int_equal(t, JP_EXPORT_PYTORCHJOB);
	assert_string_equal(jp_export_target_name(t), "pytorchjob");
	assert_int_equal(jp_export_file_mode(t), 0644);
	assert_int_equal(jp_export_target_from_name(&t, "Slurm"), JP_EUSAGE);
	assert_int_equal(jp_export_target_from_name(&t, "k8s"), JP_EUSAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(slurm_script_for_one_worker_runs_the_launch_command_with_bash),
		cmocka_unit_test(slurm_script_for_several_workers_asks_gpus_and_runs_srun_per_node),
		cmocka_unit_test(slurm_directives_quote_for_sbatch_and_double_percent_in_output_names),
		cmocka_unit_test(slurm_script_asks_for_the_profiles_partition_time_account_and_qos),
		cmocka_unit_test(slurm_launch_command_with_quotes_and_newlines_stays_one_argument),
		cmocka_unit_test(slurm_for_launch_clone_starts_in_the_output_dir),
		cmocka_unit_test(slurm_refuses_what_it_cannot_run_or_write),
		cmocka_unit_test(invalid_manifest_is_not_exported),
		cmocka_unit_test(pytorchjob_for_an_image_has_master_workers_gpus_and_volumes),
		cmocka_unit_test(pytorchjob_without_an_image_carries_a_placeholder_and_says_so),
		cmocka_unit_test(yaml_scalars_escape_quotes_backslashes_controls_and_yaml_line_breaks),
		cmocka_unit_test(pytorchjob_name_and_paths_are_always_quoted),
		cmocka_unit_test(targets_are_named_and_get_their_file_modes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
