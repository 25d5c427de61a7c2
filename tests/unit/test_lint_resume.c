/* The launch lint's look for a resume (src/lint_resume.c): a table of
 * commands, over a project of real files, and what each report says
 * resumes (jp_lint_report.resume), or that nothing does. */
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

#include "jobprep/lint.h"
#include "lint_internal.h"
#include "jobprep/profile.h"
#include "profile_internal.h"

static char scratch[PATH_MAX - 128];
static char project[PATH_MAX], out_dir[PATH_MAX - 64], ckpt_dir[PATH_MAX];
static struct jp_profile *profile;

static void write_file(const char *rel, const char *text)
{
	char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", project, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* The scratch lives in the build directory (the default profile calls
 * /tmp ephemeral); the profile's shared root is the scratch. */
static int setup(void **state)
{
	char tmpl[] = "lint-resume-XXXXXX", path[PATH_MAX + 64];
	struct jp_error err = JP_ERROR_INIT;

	(void)state;
	if (!mkdtemp(tmpl) || !realpath(tmpl, scratch))
		return -1;
	snprintf(project, sizeof(project), "%s/project", scratch);
	snprintf(out_dir, sizeof(out_dir), "%s/outputs/job/run-002", scratch);
	snprintf(ckpt_dir, sizeof(ckpt_dir), "%s/checkpoints", out_dir);
	if (mkdir(project, 0755) != 0)
		return -1;
	snprintf(path, sizeof(path), "%s/config", project);
	if (mkdir(path, 0755) != 0)
		return -1;
	snprintf(path, sizeof(path), "%s/scripts", project);
	if (mkdir(path, 0755) != 0)
		return -1;
	write_file("train.py", "out_dir = 'out'\ninit_from = 'scratch' # or 'resume'\n"
			       "def f():\n    init_from = 'resume'\n");
	write_file("by_default.py", "init_from = \"resume\"\n");
	write_file("from_args.py", "import sys\nresume = sys.argv[1]\n");
	write_file("config/resume.py", "# go on\ninit_from = 'resume'\n");
	write_file("config/fresh.py", "init_from = 'scratch'\n");
	write_file("config/hf.yaml", "trainer:\n  max_steps: 10\n  resume: true\n");
	write_file("config/off.yaml", "resume: false\n");
	write_file("config/off.json", "{\"auto_resume\": false}\n");
	write_file("config/block.yaml", "resume:\n  enabled: 1\n");
	write_file("config/hf.json", "{\n  \"resume_from_checkpoint\": \"/elsewhere/ckpt\"\n}\n");
	write_file("config/auto.json", "{\"output_dir\": \"x\",\n \"auto_resume\": true}\n");
	write_file("scripts/run.sh", "#!/bin/sh\nset -e\npython3 train.py --init_from=resume\n");
	if (jp_profile_new_default(&profile, &err) < 0)
		return -1;
	jp_strv_dispose(&profile->shared_roots);
	if (jp_strv_push(&profile->shared_roots, scratch) < 0)
		return -1;
	jp_error_dispose(&err);
	return 0;
}

static int teardown(void **state)
{
	char *cmd = NULL;
	int rc;

	(void)state;
	jp_profile_free(profile);
	if (asprintf(&cmd, "rm -rf '%s'", scratch) < 0)
		return -1;
	rc = system(cmd);
	free(cmd);
	return rc == 0 ? 0 : -1;
}

static const struct {
	const char *command;
	const char *says; /* NULL: no resume */
} rows[] = {
	{ "python3 train.py", NULL },
	{ "python3 train.py --init_from=resume", "--init_from=resume" },
	{ "python3 train.py --init_from resume", "--init_from resume" },
	{ "python3 train.py --init_from=scratch", NULL },
	{ "python3 train.py config/resume.py", "config/resume.py:2: init_from = 'resume'" },
	/* the last word wins, as nanoGPT's configurator reads them */
	{ "python3 train.py config/resume.py --init_from=scratch", NULL },
	{ "python3 train.py --init_from=resume config/fresh.py", NULL },
	{ "python3 train.py config/fresh.py --init_from=resume", "--init_from=resume" },
	{ "python3 by_default.py", "by_default.py:1: init_from = \"resume\"" },
	{ "python3 by_default.py config/fresh.py", NULL },
	{ "python3 from_args.py yes", NULL }, /* known only when it runs */
	{ "python3 train.py --config config/hf.yaml", "config/hf.yaml:3: resume: true" },
	{ "python3 train.py --config=config/off.yaml", NULL },
	{ "python3 train.py -c config/block.yaml", NULL },
	{ "python3 train.py config/hf.json", NULL },
	{ "python3 train.py config/off.json", NULL },
	{ "python3 train.py config/auto.json", "config/auto.json:2: \"auto_resume\": true" },
	{ "python3 train.py --resume_from_checkpoint", "--resume_from_checkpoint" },
	{ "python3 train.py --resume_from_checkpoint \"$CHECKPOINT_DIR/last\"",
	  "--resume_from_checkpoint $CHECKPOINT_DIR/last" }, /* the words as the shell splits them */
	{ "python3 train.py --resume_from_checkpoint /elsewhere/ckpt", NULL },
	{ "python3 train.py --resume_from_checkpoint=None", NULL },
	{ "python3 train.py --resume auto", "--resume auto" },
	{ "python3 train.py --resume=False", NULL },
	{ "python3 train.py --auto-resume", "--auto-resume" },
	{ "python3 train.py trainer.max_steps=10 resume=true", "resume=true" },
	{ "torchrun --nproc_per_node=8 train.py --resume", "--resume" },
	{ "accelerate launch train.py --resume_from_checkpoint latest",
	  "--resume_from_checkpoint latest" },
	{ "cd \"$PROJECT_DIR\" && bash scripts/run.sh", "--init_from=resume" },
	{ "echo --resume", NULL },
};

static void commands_that_resume_say_why(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct jp_lint_context ctx = JP_LINT_CONTEXT_INIT;
		struct jp_lint_report r = JP_LINT_REPORT_INIT;
		char cmd[1024];

		ctx.profile = profile;
		ctx.project_dir = project;
		ctx.project_is_local = 1;
		ctx.output_dir = out_dir;
		ctx.checkpoint_dir = ckpt_dir;
		/* relative files are looked up in the project, as the job starts there */
		snprintf(cmd, sizeof(cmd), "%s", rows[i].command);
		assert_int_equal(jp_lint_command(&r, cmd, &ctx, NULL), 0);
		if (!rows[i].says ? r.resume != NULL
				  : !r.resume || strcmp(r.resume, rows[i].says) != 0) {
			print_error("%s\n  expected: %s\n  got: %s\n", rows[i].command,
				    rows[i].says ? rows[i].says : "(none)",
				    r.resume ? r.resume : "(none)");
			fail();
		}
		jp_lint_report_dispose(&r);
	}
}

/* The report's resume is freed with it, and starts NULL. */
static void an_empty_command_resumes_nothing(void **state)
{
	struct jp_lint_report r = JP_LINT_REPORT_INIT;

	(void)state;
	assert_int_equal(jp_lint_command(&r, "", NULL, NULL), 0);
	assert_null(r.resume);
	jp_lint_report_dispose(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(commands_that_resume_say_why),
		cmocka_unit_test(an_empty_command_resumes_nothing),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
