/* The flow API: driven field by field the way the wizard drives it (actions
 * on a worker thread through jp_worker), it writes the same manifest as
 * `jobprep init` for the same answers. And the flow's own rules: defaults
 * that follow the job name unless edited, the next free run number, inline
 * verdicts (/tmp outputs, image references), never reusing a non-empty run
 * directory without asking, and a cancel that leaves nothing made. */
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

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "jobprep/flow.h"
#include "flow_internal.h"
#include "jobprep/manifest.h"
#include "manifest_internal.h"
#include "jobprep/profile.h"
#include "jobprep/worker.h"
#include "worker_internal.h"

/* libgit2 1.5 caches PCRE2 match data per thread and never frees it when a
 * worker thread (the one an action runs on) exits: not ours to fix, so
 * LeakSanitizer is told (a hook it looks up in sanitizer builds). */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libpcre2-8.so\n";
}

static char top[PATH_MAX];      /* holds a/ and b/: two identical platforms */
static char plat_a[PATH_MAX];   /* jobprep init runs here */
static char plat_b[PATH_MAX];   /* the flow API runs here */
static const char *jobprep_bin;
static const char *srcdir;

static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
	char *cmd = NULL;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&cmd, fmt, ap);
	va_end(ap);
	if (rc < 0)
		return -1;
	rc = system(cmd);
	free(cmd);
	return rc;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0;

	if (!f)
		return NULL;
	FILE *m = open_memstream(&buf, &n);
	int c;
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(m);
	fclose(f);
	return buf;
}

static bool err_has(const struct jp_error *err, const char *text)
{
	for (size_t i = 0; i < err->n; i++)
		if (strstr(err->msgs[i], text))
			return true;
	fprintf(stderr, "no \"%s\" among:\n", text);
	for (size_t i = 0; i < err->n; i++)
		fprintf(stderr, "  %s\n", err->msgs[i]);
	return false;
}

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

static int lay_out(const char *dir)
{
	return run("sh -c '. \"%s/tests/lib/gitserv.sh\" && . \"%s/tests/lib/initscratch.sh\" && "
		   "jp_init_scratch \"%s\"'",
		   srcdir, srcdir, dir);
}

static int setup(void **state)
{
	char tmpl[] = "flow-scratch-XXXXXX";

	(void)state;
	jobprep_bin = getenv("JOBPREP");
	srcdir = getenv("TOP_SRCDIR");
	if (!jobprep_bin || !srcdir) {
		fprintf(stderr, "JOBPREP and TOP_SRCDIR must be set (make check sets them)\n");
		return -1;
	}
	if (!mkdtemp(tmpl) || !realpath(tmpl, top))
		return -1;
	snprintf(plat_a, sizeof(plat_a), "%.*s/a", PATH_MAX - 8, top);
	snprintf(plat_b, sizeof(plat_b), "%.*s/b", PATH_MAX - 8, top);
	if (lay_out(plat_a) != 0 || lay_out(plat_b) != 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return run("rm -rf '%s'", top) == 0 ? 0 : -1;
}

static struct jp_profile *profile_of(const char *plat)
{
	struct jp_profile *p = NULL;
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/profile.json", plat);
	assert_int_equal(jp_profile_load(&p, path, NULL), 0);
	return p;
}

/* --- the wizard's way: field by field, actions on a worker thread ---------- */

static void set(struct jp_flow *flow, const char *key, const char *value)
{
	struct jp_error err = JP_ERROR_INIT;
	int rc = jp_flow_set(NULL, flow, key, value, &err);

	if (rc != 0)
		fail_msg("set %s=%s: %s", key, value, jp_error_message(&err));
	jp_error_dispose(&err);
}

static void set_json(struct jp_flow *flow, const char *key, const cJSON *v)
{
	char num[32];

	if (cJSON_IsString(v)) {
		set(flow, key, v->valuestring);
	} else if (cJSON_IsBool(v)) {
		set(flow, key, cJSON_IsTrue(v) ? "true" : "false");
	} else if (cJSON_IsNumber(v)) {
		snprintf(num, sizeof(num), "%.0f", v->valuedouble);
		set(flow, key, num);
	}
}

/* Walk the answers as a person fills the screens: every value typed into its
 * field, list items added one by one. */
static void type_answers(struct jp_flow *flow, const char *text)
{
	cJSON *root = cJSON_Parse(text);
	const cJSON *sec, *it, *sub;
	char key[128];

	assert_non_null(root);
	cJSON_ArrayForEach(sec, root)
	{
		if (strcmp(sec->string, "data") == 0) {
			cJSON_ArrayForEach(it, sec)
			{
				size_t idx;
				assert_int_equal(jp_flow_list_add(&idx, flow, "data", NULL), 0);
				/* the path first, as the data screen asks for it first */
				const cJSON *path = cJSON_GetObjectItemCaseSensitive(it, "path");
				snprintf(key, sizeof(key), "data[%zu].path", idx);
				set_json(flow, key, path);
				cJSON_ArrayForEach(sub, it)
				{
					if (strcmp(sub->string, "path") == 0)
						continue;
					snprintf(key, sizeof(key), "data[%zu].%s", idx, sub->string);
					set_json(flow, key, sub);
				}
			}
			continue;
		}
		cJSON_ArrayForEach(it, sec)
		{
			if (strcmp(sec->string, "job") == 0 && strcmp(it->string, "env") == 0) {
				cJSON_ArrayForEach(sub, it)
				{
					size_t idx;
					assert_int_equal(jp_flow_list_add(&idx, flow, "job.env", NULL), 0);
					snprintf(key, sizeof(key), "job.env[%zu].name", idx);
					set(flow, key, sub->string);
					snprintf(key, sizeof(key), "job.env[%zu].value", idx);
					set_json(flow, key, sub);
				}
			} else if (cJSON_IsObject(it)) {
				cJSON_ArrayForEach(sub, it)
				{
					snprintf(key, sizeof(key), "%s.%s.%s", sec->string, it->string,
						 sub->string);
					set_json(flow, key, sub);
				}
			} else {
				snprintf(key, sizeof(key), "%s.%s", sec->string, it->string);
				set_json(flow, key, it);
			}
		}
	}
	cJSON_Delete(root);
}

static int task_body(struct jp_error *err, const struct jp_port *port, void *arg)
{
	return jp_flow_work_run(arg, port, err);
}

/* Each pending action: snapshot on this thread, work on another, apply here. */
static void run_actions_in_background(struct jp_flow *flow)
{
	for (int round = 0; round < 16; round++) {
		enum jp_action *kinds = NULL;
		size_t *idx = NULL, n = 0, k;

		assert_int_equal(jp_flow_pending(&kinds, &idx, &n, flow, NULL), 0);
		for (k = 0; k < n && kinds[k] == JP_ACTION_CHECK; k++)
			;
		if (k == n) {
			free(kinds);
			free(idx);
			return;
		}
		struct jp_flow_work *t = NULL;
		struct jp_worker *bg = NULL;
		const struct jp_error *terr = NULL;
		struct jp_error err = JP_ERROR_INIT;

		assert_int_equal(jp_flow_work_new(&t, flow, kinds[k], idx[k], false, &err), 0);
		assert_int_equal(jp_worker_start(&bg, "action", task_body, t, &err), 0);
		assert_int_equal(jp_worker_wait(bg, -1), 0);
		if (jp_worker_result(bg, &terr) != 0)
			fail_msg("action %d: %s", (int)kinds[k], jp_error_message(terr));
		jp_worker_free(bg);
		if (jp_flow_work_apply(flow, t, &err) != 0)
			fail_msg("apply %d: %s", (int)kinds[k], jp_error_message(&err));
		jp_flow_work_free(t);
		jp_error_dispose(&err);
		free(kinds);
		free(idx);
	}
	fail_msg("the actions never settled");
}

/* Scratch path -> @S@; created_at and free-space messages (which move
 * between two runs) blanked. */
static char *normalise(const char *text, const char *plat)
{
	cJSON *root = cJSON_Parse(text);
	cJSON *checks, *c;
	char *printed, *out;

	assert_non_null(root);
	cJSON_ReplaceItemInObjectCaseSensitive(root, "created_at", cJSON_CreateString("@TIME@"));
	checks = cJSON_GetObjectItemCaseSensitive(root, "checks");
	cJSON_ArrayForEach(c, checks)
	{
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(c, "id");
		size_t n = strlen(id->valuestring);
		if (n > 6 && strcmp(id->valuestring + n - 6, ".space") == 0)
			cJSON_ReplaceItemInObjectCaseSensitive(c, "message",
							       cJSON_CreateString("@SPACE@"));
	}
	printed = cJSON_Print(root);
	cJSON_Delete(root);
	/* replace every occurrence of the platform's path */
	size_t pl = strlen(plat);
	size_t cap = strlen(printed) + 1, n = 0;
	out = malloc(cap);
	for (const char *p = printed; *p;) {
		if (strncmp(p, plat, pl) == 0) {
			memcpy(out + n, "@S@", 3);
			n += 3;
			p += pl;
		} else {
			out[n++] = *p++;
		}
	}
	out[n] = '\0';
	cJSON_free(printed);
	return out;
}

static void flow_and_init_agree_on(const char *name)
{
	char ans_a[PATH_MAX + 64], ans_b[PATH_MAX + 64], man_a[PATH_MAX + 64],
		man_b[PATH_MAX + 64];
	struct jp_error err = JP_ERROR_INIT;
	struct jp_profile *p;
	struct jp_flow *flow = NULL;
	char *text, *a, *b, *na, *nb;

	snprintf(ans_a, sizeof(ans_a), "%s/%s.answers.json", plat_a, name);
	snprintf(ans_b, sizeof(ans_b), "%s/%s.answers.json", plat_b, name);
	/* on the platform's shared storage, where env.sh must be */
	snprintf(man_a, sizeof(man_a), "%s/shared/%s.job.json", plat_a, name);
	snprintf(man_b, sizeof(man_b), "%s/shared/%s.job.json", plat_b, name);
	assert_int_equal(run("sed 's|@SCRATCH@|%s|g' '%s/tests/data/answers/%s.json' > '%s'", plat_a,
			     srcdir, name, ans_a),
			 0);
	assert_int_equal(run("sed 's|@SCRATCH@|%s|g' '%s/tests/data/answers/%s.json' > '%s'", plat_b,
			     srcdir, name, ans_b),
			 0);

	/* the command line */
	assert_int_equal(run("'%s' init --answers '%s' --profile '%s/profile.json' -o '%s' >/dev/null",
			     jobprep_bin, ans_a, plat_a, man_a),
			 0);

	/* the wizard's way */
	p = profile_of(plat_b);
	assert_int_equal(jp_flow_new(&flow, p, &err), 0);
	text = slurp(ans_b);
	assert_non_null(text);
	type_answers(flow, text);
	free(text);
	set(flow, "review.manifest_path", man_b);
	run_actions_in_background(flow);
	if (jp_flow_finish(flow, 0, NULL, &err) != 0)
		fail_msg("%s: finish: %s", name, jp_error_message(&err));
	jp_flow_free(flow);
	jp_profile_free(p);
	jp_error_dispose(&err);

	a = slurp(man_a);
	b = slurp(man_b);
	assert_non_null(a);
	assert_non_null(b);
	na = normalise(a, plat_a);
	nb = normalise(b, plat_b);
	if (strcmp(na, nb) != 0)
		fail_msg("%s: init and the flow API disagree\n--- init\n%s\n--- flow\n%s", name, na, nb);
	free(a);
	free(b);
	free(na);
	free(nb);
}

static void same_answers_same_manifest_shared_clone(void **state)
{
	(void)state;
	flow_and_init_agree_on("shared-clone");
}

static void same_answers_same_manifest_shared_existing(void **state)
{
	(void)state;
	flow_and_init_agree_on("shared-existing");
}

static void same_answers_same_manifest_image(void **state)
{
	(void)state;
	flow_and_init_agree_on("image");
}

static void same_answers_same_manifest_launch_clone(void **state)
{
	(void)state;
	flow_and_init_agree_on("launch-clone");
}


/* --- the flow's own rules ----------------------------------------------------- */

static struct jp_flow *new_flow(void)
{
	struct jp_profile *p = profile_of(plat_b);
	struct jp_flow *flow = NULL;

	assert_int_equal(jp_flow_new(&flow, p, NULL), 0);
	jp_profile_free(p);
	return flow;
}

static void assert_value(const struct jp_flow *flow, const char *key, const char *want)
{
	char *got = NULL;

	assert_int_equal(jp_flow_get(&got, flow, key, NULL), 0);
	if (strcmp(got, want) != 0)
		fail_msg("%s: expected \"%s\", got \"%s\"", key, want, got);
	free(got);
}

/* GPUs per Worker: the profile's default (8 unless it says) when the person
 * gives none, in the wizard and from an answers file; an explicit 0 stays. */
static void gpus_per_worker_defaults_to_the_profiles(void **state)
{
	struct jp_flow *flow = new_flow(); /* plat_b's profile does not say */
	struct jp_profile *p = profile_of(plat_b);
	struct jp_manifest *ans = NULL;
	struct jp_error err = JP_ERROR_INIT;
	static const char no_gpus[] = "{\"job\": {\"name\": \"g\"}}";
	static const char zero_gpus[] = "{\"job\": {\"name\": \"g\", \"gpus_per_worker\": 0}}";

	(void)state;
	assert_value(flow, "job.gpus_per_worker", "8");
	set(flow, "job.gpus_per_worker", "0"); /* a CPU job */
	assert_value(flow, "job.gpus_per_worker", "0");
	set(flow, "job.gpus_per_worker", NULL); /* cleared: back to the default */
	assert_value(flow, "job.gpus_per_worker", "8");
	jp_flow_free(flow);

	p->gpus_per_worker = 2;
	assert_int_equal(jp_flow_new(&flow, p, NULL), 0);
	assert_value(flow, "job.gpus_per_worker", "2");
	assert_int_equal(jp_manifest_parse(&ans, no_gpus, sizeof(no_gpus) - 1, "a.json",
					   JP_READ_ANSWERS, &err), 0);
	jp_flow_apply_answers(flow, ans, "a.json", &err);
	assert_value(flow, "job.gpus_per_worker", "2");
	jp_manifest_free(ans);
	jp_flow_free(flow);

	assert_int_equal(jp_flow_new(&flow, p, NULL), 0);
	assert_int_equal(jp_manifest_parse(&ans, zero_gpus, sizeof(zero_gpus) - 1, "a.json",
					   JP_READ_ANSWERS, &err), 0);
	jp_flow_apply_answers(flow, ans, "a.json", &err);
	assert_value(flow, "job.gpus_per_worker", "0");
	jp_manifest_free(ans);
	jp_flow_free(flow);
	jp_profile_free(p);
	jp_error_dispose(&err);
}

static void defaults_follow_job_name_unless_edited(void **state)
{
	struct jp_flow *flow = new_flow();
	char want[PATH_MAX * 2];

	(void)state;
	set(flow, "job.name", "alpha");
	snprintf(want, sizeof(want), "%s/shared/projects/alpha", plat_b);
	assert_value(flow, "code.path", want);
	snprintf(want, sizeof(want), "%s/shared/outputs/alpha/run-001", plat_b);
	assert_value(flow, "outputs.output_dir", want);
	snprintf(want, sizeof(want), "%s/shared/outputs/alpha/run-001/checkpoints", plat_b);
	assert_value(flow, "outputs.checkpoint_dir", want);
	snprintf(want, sizeof(want), "%s/shared/outputs/alpha/run-001/job.json", plat_b);
	assert_value(flow, "review.manifest_path", want);
	assert_false(jp_flow_is_set(flow, "code.path"));

	snprintf(want, sizeof(want), "%s/shared/mine", plat_b);
	set(flow, "code.path", want);
	set(flow, "job.name", "beta");
	assert_value(flow, "code.path", want); /* edited: stays */
	snprintf(want, sizeof(want), "%s/shared/outputs/beta/run-001/logs", plat_b);
	assert_value(flow, "outputs.log_dir", want); /* not edited: follows */

	set(flow, "code.path", NULL); /* back to following */
	snprintf(want, sizeof(want), "%s/shared/projects/beta", plat_b);
	assert_value(flow, "code.path", want);
	jp_flow_free(flow);
}

static void next_run_number_follows_the_highest(void **state)
{
	struct jp_flow *flow;
	char want[PATH_MAX * 2];

	(void)state;
	/* run-041 holds a manifest (an empty last run folder would be taken
	 * again: a prep stopped before writing it) */
	assert_int_equal(run("mkdir -p '%s/shared/outputs/gamma/run-001' "
			     "'%s/shared/outputs/gamma/run-041' '%s/shared/outputs/gamma/notes' && "
			     "echo '{}' >'%s/shared/outputs/gamma/run-041/job.json'",
			     plat_b, plat_b, plat_b, plat_b),
			 0);
	flow = new_flow();
	set(flow, "job.name", "gamma");
	snprintf(want, sizeof(want), "%s/shared/outputs/gamma/run-042", plat_b);
	assert_value(flow, "outputs.output_dir", want);
	jp_flow_free(flow);
}

static void tmp_output_dir_fails_inline_with_the_reason(void **state)
{
	struct jp_flow *flow = new_flow();
	struct jp_verdict v = JP_VERDICT_INIT;
	char want[PATH_MAX * 3];

	(void)state;
	set(flow, "job.name", "delta");
	assert_int_equal(jp_flow_set(&v, flow, "outputs.output_dir", "/tmp/out/", NULL), 0);
	assert_int_equal(v.status, JP_CHECK_FAIL);
	snprintf(want, sizeof(want),
		 "/tmp/out is under /tmp, which is wiped when the job ends: put it under "
		 "%s/shared/outputs/delta/run-001",
		 plat_b);
	assert_string_equal(v.message, want);
	jp_verdict_dispose(&v);

	/* checking as one types, without storing */
	assert_int_equal(jp_flow_validate(&v, flow, "outputs.log_dir", "/root/logs", NULL), 0);
	assert_int_equal(v.status, JP_CHECK_FAIL);
	assert_non_null(strstr(v.message, "under /root, which is wiped when the job ends"));
	jp_verdict_dispose(&v);

	/* and finish refuses before making anything */
	struct jp_error err = JP_ERROR_INIT;
	char out[PATH_MAX + 64];
	snprintf(out, sizeof(out), "%s/shared/projects/delta", plat_b);
	set(flow, "code.source", "image");
	set(flow, "code.image", "registry.example.com/t/delta:1");
	set(flow, "code.path", "/app");
	assert_int_equal(jp_flow_finish(flow, 0, NULL, &err), JP_ECHECK);
	assert_true(err_has(&err, "outputs.output_dir: /tmp/out is under /tmp"));
	assert_false(exists("/tmp/out/job.json"));
	jp_error_dispose(&err);
	jp_flow_free(flow);
}

/* The inline check off the flow's thread answers what jp_flow_validate
 * answers, on the flow as it was when the check started. */
/* Issue 21: the launch command's output under /tmp and a job.env folder
 * there fail inline like the output fields; TMPDIR=/tmp does not. */
static void tmp_launch_output_and_env_fail_inline(void **state)
{
	struct jp_flow *flow = new_flow();
	struct jp_verdict v = JP_VERDICT_INIT;
	size_t idx;

	(void)state;
	set(flow, "job.name", "eps");
	assert_int_equal(jp_flow_validate(&v, flow, "job.launch_command",
					  "python train.py --out /tmp/out", NULL),
			 0);
	assert_int_equal(v.status, JP_CHECK_FAIL);
	assert_non_null(strstr(v.message, "'--out /tmp/out' writes to /tmp/out, under /tmp"));
	jp_verdict_dispose(&v);
	/* inside if: a warning */
	assert_int_equal(jp_flow_validate(&v, flow, "job.launch_command",
					  "if [ -n \"$D\" ]; then python train.py --out /tmp/o; fi", NULL),
			 0);
	assert_int_equal(v.status, JP_CHECK_WARN);
	jp_verdict_dispose(&v);

	assert_int_equal(jp_flow_list_add(&idx, flow, "job.env", NULL), 0);
	set(flow, "job.env[0].name", "HF_HOME");
	assert_int_equal(jp_flow_validate(&v, flow, "job.env[0].value", "/tmp/hf", NULL), 0);
	assert_int_equal(v.status, JP_CHECK_FAIL);
	jp_verdict_dispose(&v);
	set(flow, "job.env[0].name", "TMPDIR");
	assert_int_equal(jp_flow_validate(&v, flow, "job.env[0].value", "/tmp", NULL), 0);
	assert_int_not_equal(v.status, JP_CHECK_FAIL);
	jp_verdict_dispose(&v);
	jp_flow_free(flow);
}

/* The wizard's env field refuses what the platform sets for each Worker,
 * naming it; an ordinary name beside them is fine. */
static void env_field_refuses_the_platforms_identity(void **state)
{
	static const char *const names[] = { "RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
					     "LOCAL_RANK", "NODE_RANK", "GROUP_RANK",
					     "SLURM_PROCID", "SLURM_NTASKS", "PET_NNODES",
					     "PET_MASTER_PORT", NULL };
	struct jp_flow *flow = new_flow();
	struct jp_verdict v = JP_VERDICT_INIT;
	size_t idx = 0;

	(void)state;
	assert_int_equal(jp_flow_list_add(&idx, flow, "job.env", NULL), 0);
	for (size_t i = 0; names[i]; i++) {
		assert_int_equal(jp_flow_validate(&v, flow, "job.env[0].name", names[i], NULL), 0);
		assert_int_equal(v.status, JP_CHECK_FAIL);
		assert_non_null(strstr(v.message, names[i]));
		assert_non_null(strstr(v.message, "set by the platform for each Worker"));
		jp_verdict_dispose(&v);
	}
	assert_int_equal(jp_flow_validate(&v, flow, "job.env[0].name", "RANKING_MODE", NULL), 0);
	assert_int_equal(v.status, JP_CHECK_PASS);
	jp_verdict_dispose(&v);
	jp_flow_free(flow);
}

static void inline_check_off_thread_judges_a_snapshot(void **state)
{
	struct jp_flow *flow = new_flow();
	struct jp_verdict direct = JP_VERDICT_INIT, bg = JP_VERDICT_INIT;
	struct jp_flow_check *c = NULL;
	char want[PATH_MAX * 3];

	(void)state;
	set(flow, "job.name", "echo");
	assert_int_equal(jp_flow_validate(&direct, flow, "outputs.output_dir", "/tmp/o", NULL), 0);
	assert_int_equal(jp_flow_check_start(&c, flow, "outputs.output_dir", "/tmp/o", NULL), 0);
	/* The flow moves on at once: the check judges the snapshot. */
	set(flow, "job.name", "foxtrot");
	assert_true(jp_flow_check_poll(&bg, c, flow, 10000));
	assert_int_equal(bg.status, direct.status);
	assert_string_equal(bg.message, direct.message);
	snprintf(want, sizeof(want), "%s/shared/outputs/echo/run-001", plat_b);
	assert_non_null(strstr(bg.message, want));
	jp_flow_check_free(c);
	jp_verdict_dispose(&bg);
	jp_verdict_dispose(&direct);

	/* The current value (NULL), and a check freed before it answers. */
	assert_int_equal(jp_flow_check_start(&c, flow, "job.name", NULL, NULL), 0);
	assert_true(jp_flow_check_poll(&bg, c, flow, 10000));
	assert_int_equal(bg.status, JP_CHECK_PASS);
	jp_flow_check_free(c);
	jp_verdict_dispose(&bg);
	assert_int_equal(jp_flow_check_start(&c, flow, "outputs.log_dir", "/root/l", NULL), 0);
	jp_flow_check_free(c);
	jp_flow_free(flow);
}

static void values_that_cannot_be_stored_are_refused(void **state)
{
	struct jp_flow *flow = new_flow();
	struct jp_verdict v = JP_VERDICT_INIT;

	(void)state;
	assert_int_equal(jp_flow_set(&v, flow, "job.workers", "two", NULL), JP_EUSAGE);
	assert_string_equal(v.message, "expected an integer from 1 to 1000000, got \"two\"");
	assert_value(flow, "job.workers", "1");
	jp_verdict_dispose(&v);
	assert_int_equal(jp_flow_set(&v, flow, "code.path", "relative/dir", NULL), JP_EUSAGE);
	assert_int_equal(v.status, JP_CHECK_FAIL);
	jp_verdict_dispose(&v);
	assert_int_equal(jp_flow_set(&v, flow, "code.source", "ftp", NULL), JP_EUSAGE);
	assert_string_equal(v.message, "expected one of \"shared_storage\", \"image\", "
				       "\"launch_clone\", got \"ftp\"");
	jp_verdict_dispose(&v);
	assert_int_equal(jp_flow_set(&v, flow, "code.repo.commit", "0123", NULL), JP_EUSAGE);
	jp_verdict_dispose(&v);
	assert_int_equal(jp_flow_set(NULL, flow, "no.such.field", "x", NULL), JP_EUSAGE);
	assert_int_equal(jp_flow_set(NULL, flow, "data[0].path", "/x", NULL), JP_EUSAGE);

	/* a job name with capitals is stored, and fails with a suggestion */
	assert_int_equal(jp_flow_set(&v, flow, "job.name", "Llama_SFT", NULL), 0);
	assert_int_equal(v.status, JP_CHECK_FAIL);
	assert_non_null(strstr(v.message, "try \"llama-sft\""));
	jp_verdict_dispose(&v);
	jp_flow_free(flow);
}

static void image_references_are_checked(void **state)
{
	static const struct {
		const char *ref;
		enum jp_check_status status;
	} refs[] = {
		{ "registry.example.com/team/train:v1", JP_CHECK_PASS },
		{ "localhost:5000/train:2024.01-cuda12", JP_CHECK_PASS },
		{ "team/train@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		  JP_CHECK_PASS },
		{ "ubuntu", JP_CHECK_WARN },
		{ "registry.example.com/team/train", JP_CHECK_WARN },
		{ "Registry.example.com/Team/train:v1", JP_CHECK_FAIL },
		{ "team/train@sha256:0123", JP_CHECK_FAIL },
		{ "team/train:", JP_CHECK_FAIL },
		{ "team//train:v1", JP_CHECK_FAIL },
		{ "team/train:v 1", JP_CHECK_FAIL },
		{ "", JP_CHECK_FAIL },
	};
	struct jp_flow *flow = new_flow();

	(void)state;
	set(flow, "code.source", "image");
	assert_true(jp_flow_field_active(flow, "code.image"));
	assert_false(jp_flow_field_active(flow, "code.checkout"));
	for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]); i++) {
		struct jp_verdict v = JP_VERDICT_INIT;
		assert_int_equal(jp_flow_validate(&v, flow, "code.image", refs[i].ref, NULL), 0);
		if (v.status != refs[i].status)
			fail_msg("%s: expected %d, got %d (%s)", refs[i].ref, refs[i].status, v.status,
				 v.message ? v.message : "");
		jp_verdict_dispose(&v);
	}
	jp_flow_free(flow);
}

static int say_yes(const char *q, void *payload)
{
	(void)q;
	(*(int *)payload)++;
	return 1;
}

static void nonempty_run_dir_is_not_reused_without_asking(void **state)
{
	struct jp_flow *flow = new_flow();
	struct jp_verdict v = JP_VERDICT_INIT;
	struct jp_error err = JP_ERROR_INIT;
	char dir[PATH_MAX + 64];
	int asked = 0;
	struct jp_port yes = { NULL, NULL, say_yes, &asked, NULL, NULL };

	(void)state;
	snprintf(dir, sizeof(dir), "%s/shared/outputs/eps/run-003", plat_b);
	assert_int_equal(run("mkdir -p '%s' && echo old > '%s/old.log'", dir, dir), 0);
	set(flow, "job.name", "eps");
	assert_int_equal(jp_flow_set(&v, flow, "outputs.output_dir", dir, NULL), 0);
	assert_int_equal(v.status, JP_CHECK_WARN);
	jp_verdict_dispose(&v);
	assert_int_equal(jp_flow_run(flow, JP_ACTION_OUTPUTS, 0, false, NULL, &err), JP_EREFUSED);
	assert_true(err_has(&err, "already holds files from an earlier run (1 files)"));
	jp_error_dispose(&err);
	snprintf(dir + strlen(dir), sizeof(dir) - strlen(dir), "/checkpoints");
	assert_false(exists(dir));

	assert_int_equal(jp_flow_run(flow, JP_ACTION_OUTPUTS, 0, false, &yes, NULL), 0);
	assert_int_equal(asked, 1);
	assert_true(exists(dir));
	jp_flow_free(flow);
}

static int cancel_before_checks(const struct jp_progress *p, void *payload)
{
	const char *out = payload;
	/* the output directories exist: the flow is between its last action
	 * and the checks */
	return p->phase == JP_PHASE_DONE && exists(out) ? -1 : 0;
}

static void cancel_leaves_no_directories_behind(void **state)
{
	struct jp_flow *flow = new_flow();
	struct jp_error err = JP_ERROR_INIT;
	char out[PATH_MAX + 64], projects[PATH_MAX + 64];
	struct jp_port port = { cancel_before_checks, NULL, NULL, out, NULL, NULL };

	(void)state;
	snprintf(out, sizeof(out), "%s/shared/outputs/zeta/run-001", plat_b);
	snprintf(projects, sizeof(projects), "%s/shared/outputs/zeta", plat_b);
	set(flow, "job.name", "zeta");
	set(flow, "code.source", "image");
	set(flow, "code.image", "registry.example.com/t/zeta:1");
	set(flow, "code.path", "/app");
	assert_int_equal(jp_flow_finish(flow, 0, &port, &err), JP_ECANCELED);
	assert_false(exists(out));
	assert_false(exists(projects)); /* the parents it made went too */
	jp_error_dispose(&err);
	jp_flow_free(flow);
}

static void checkout_of_another_repository_is_refused(void **state)
{
	struct jp_flow *flow = new_flow();
	struct jp_error err = JP_ERROR_INIT;
	char path[PATH_MAX + 64];

	(void)state;
	snprintf(path, sizeof(path), "%s/shared/projects/existing-job", plat_b);
	set(flow, "job.name", "existing-job");
	set(flow, "code.repo.url", "https://example.com/someone/else.git");
	assert_value(flow, "code.checkout", "existing"); /* the directory holds files */
	assert_int_equal(jp_flow_finish(flow, JP_FINISH_NO_WRITE, NULL, &err), JP_ECHECK);
	assert_true(err_has(&err, "is a checkout of file://"));
	assert_true(err_has(&err, "choose another path, or leave code.repo.url out"));
	jp_error_dispose(&err);
	jp_flow_free(flow);
}

static int yes_to_the_move(const char *question, void *payload)
{
	(void)payload;
	/* the question shows what would change */
	return strstr(question, "from main (") && strstr(question, "to   dev (") ? 1 : 0;
}

static void existing_checkout_moves_to_another_branch_only_when_told(void **state)
{
	struct jp_flow *flow = new_flow();
	struct jp_error err = JP_ERROR_INIT;
	struct jp_port yes = JP_PORT_INIT;
	char path[PATH_MAX + 64];
	char *dev = NULL;
	int rc;

	(void)state;
	snprintf(path, sizeof(path), "%s/shared/projects/existing-job", plat_b);
	set(flow, "job.name", "existing-job");
	set(flow, "code.repo.ref", "dev");
	/* nobody to ask: the move is declined, a failed check on the ref */
	assert_int_equal(jp_flow_finish(flow, JP_FINISH_NO_WRITE, NULL, &err), JP_ECHECK);
	assert_true(err_has(&err, "code.repo.ref: "));
	assert_true(err_has(&err, "the checkout stays at main ("));
	assert_true(err_has(&err, "was declined): "));
	assert_true(err_has(&err, "existing-job"));
	assert_true(err_has(&err, "moving it to dev ("));
	assert_true(err_has(&err, ") was declined"));
	/* and how to keep the code as it is (issue 29) */
	assert_true(err_has(&err, "to prepare this run from it as it is, set code.repo.ref to "));
	jp_error_dispose(&err);
	assert_int_equal(run("test \"$(git -C '%s' symbolic-ref HEAD)\" = refs/heads/main", path), 0);

	/* asked, and yes: it moves (the branch dev made, tracking origin) */
	yes.confirm = yes_to_the_move;
	set(flow, "code.repo.ref", "dev"); /* set again: asked again */
	rc = jp_flow_finish(flow, JP_FINISH_NO_WRITE, &yes, &err);
	if (rc != 0)
		fprintf(stderr, "finish: %s\n", jp_error_message(&err));
	assert_int_equal(rc, 0);
	assert_int_equal(run("test \"$(git -C '%s' symbolic-ref HEAD)\" = refs/heads/dev", path), 0);
	dev = strdup(jp_flow_manifest(flow)->code.repo_commit);
	assert_int_equal(run("test \"$(git -C '%s' rev-parse origin/dev)\" = %s", path, dev), 0);
	assert_non_null(strstr(jp_flow_code_note(flow, NULL), "moved "));
	jp_error_dispose(&err);

	/* told not to ask (init): back to main, or no ref at all, is fine */
	jp_flow_set_options(flow, JP_FLOW_MOVE_CHECKOUT);
	set(flow, "code.repo.ref", "main");
	rc = jp_flow_finish(flow, JP_FINISH_NO_WRITE, NULL, &err);
	if (rc != 0)
		fprintf(stderr, "finish: %s\n", jp_error_message(&err));
	assert_int_equal(rc, 0);
	assert_int_equal(run("test \"$(git -C '%s' rev-parse origin/main)\" = %s", path,
			     jp_flow_manifest(flow)->code.repo_commit),
			 0);
	assert_int_equal(run("test \"$(git -C '%s' symbolic-ref HEAD)\" = refs/heads/main", path), 0);
	set(flow, "code.repo.ref", NULL);
	assert_int_equal(jp_flow_finish(flow, JP_FINISH_NO_WRITE, NULL, &err), 0);
	assert_value(flow, "code.repo.ref", "main");
	jp_error_dispose(&err);
	free(dev);
	jp_flow_free(flow);
}

static void fields_are_data(void **state)
{
	const struct jp_field *f;

	(void)state;
	f = jp_flow_fields(JP_STEP_JOB);
	assert_string_equal(f[0].key, "job.name");
	assert_int_equal(f[1].kind, JP_FIELD_INTEGER);
	assert_string_equal(jp_step_name(JP_STEP_OUTPUTS), "Outputs");
	f = jp_flow_field("data[12].read_only");
	assert_non_null(f);
	assert_int_equal(f->kind, JP_FIELD_BOOL);
	assert_null(jp_flow_field("data[x].path"));
	assert_null(jp_flow_field("data.path"));
	f = jp_flow_field("code.source");
	assert_string_equal(f->choices[2].value, "launch_clone");
	for (int s = 0; s < JP_STEP_COUNT; s++)
		for (f = jp_flow_fields((enum jp_step)s); f->key; f++)
			assert_non_null(f->label);
}

/* One builder of a list item's key, for the core and both front ends. */
static void an_item_key_has_its_index(void **state)
{
	char buf[32];

	(void)state;
	assert_int_equal(jp_flow_item_key(buf, sizeof(buf), "data[].path", 2), 12);
	assert_string_equal(buf, "data[2].path");
	assert_int_equal(jp_flow_item_key(buf, sizeof(buf), "job.env[].value", 10), 17);
	assert_string_equal(buf, "job.env[10].value");
	assert_int_equal(jp_flow_item_key(buf, sizeof(buf), "job.name", 3), 8);
	assert_string_equal(buf, "job.name");
	/* cut to size like snprintf, with the length it needed */
	assert_int_equal(jp_flow_item_key(buf, 6, "data[].path", 123), 14);
	assert_string_equal(buf, "data[");
	assert_int_equal(jp_flow_item_key(NULL, 0, "data[].from", 7), 12);
}

/* One rule for both front ends: a check id names the field that fixes it. */
/* The Launch field's verdict reads job.env for launch.hub_download: with
 * HF_HOME on shared storage holding the model and HF_HUB_OFFLINE=1 there
 * is nothing to say; without them, the file, the line and the fix. */
static void launch_verdict_reads_job_env_for_the_hub(void **state)
{
	struct jp_flow *flow = new_flow();
	struct jp_verdict v = JP_VERDICT_INIT;
	char proj[PATH_MAX + 64], home[PATH_MAX + 64], key[64];
	const char *cmd = "cd \"$PROJECT_DIR\" && python train.py --out_dir \"$OUTPUT_DIR\"";
	size_t idx;

	(void)state;
	snprintf(proj, sizeof(proj), "%s/shared/projects/hubjob", plat_b);
	snprintf(home, sizeof(home), "%s/shared/hf", plat_b);
	assert_int_equal(run("mkdir -p '%s' '%s/hub/models--acme--tiny/refs' && "
			     "printf 'm = AutoModel.from_pretrained(\"acme/tiny\")\\n' >'%s/train.py' && "
			     "printf '0123456789012345678901234567890123456789' "
			     ">'%s/hub/models--acme--tiny/refs/main'",
			     proj, home, proj, home),
			 0);
	set(flow, "job.name", "hubjob");
	set(flow, "code.source", "shared_storage");
	set(flow, "code.path", proj);
	assert_int_equal(jp_flow_validate(&v, flow, "job.launch_command", cmd, NULL), 0);
	assert_non_null(v.message);
	assert_non_null(strstr(v.message, "train.py:1: from_pretrained(\"acme/tiny\")"));
	assert_non_null(strstr(v.message, "job.env sets no HF_HOME"));
	jp_verdict_dispose(&v);

	assert_int_equal(jp_flow_list_add(&idx, flow, "job.env", NULL), 0);
	snprintf(key, sizeof(key), "job.env[%zu].name", idx);
	set(flow, key, "HF_HOME");
	snprintf(key, sizeof(key), "job.env[%zu].value", idx);
	set(flow, key, home);
	assert_int_equal(jp_flow_list_add(&idx, flow, "job.env", NULL), 0);
	snprintf(key, sizeof(key), "job.env[%zu].name", idx);
	set(flow, key, "HF_HUB_OFFLINE");
	snprintf(key, sizeof(key), "job.env[%zu].value", idx);
	set(flow, key, "1");
	assert_int_equal(jp_flow_validate(&v, flow, "job.launch_command", cmd, NULL), 0);
	assert_null(v.message ? strstr(v.message, "Hugging Face") : NULL);
	jp_verdict_dispose(&v);
	jp_flow_free(flow);
}

static void a_check_names_the_field_that_fixes_it(void **state)
{
	static const struct {
		const char *id, *key;
		enum jp_step step;
	} cases[] = {
		{ "data[1].path.exists", "data[1].path", JP_STEP_DATA },
		{ "data[0].from.reachable", "data[0].from", JP_STEP_DATA },
		{ "outputs.log_dir.writable", "outputs.log_dir", JP_STEP_OUTPUTS },
		{ "code.path.shared", "code.path", JP_STEP_CODE },
		{ "job.name", "job.name", JP_STEP_JOB },
		{ "launch.cd", "job.launch_command", JP_STEP_LAUNCH },
		{ "launch.not_shared", "job.launch_command", JP_STEP_LAUNCH },
		{ "launch.hub_download", "job.launch_command", JP_STEP_LAUNCH },
		{ "profile.shared_storage", NULL, JP_STEP_REVIEW },
		{ "data[x].path.exists", NULL, JP_STEP_REVIEW },
		{ "data", "data", JP_STEP_DATA },
		{ "", NULL, JP_STEP_REVIEW },
		{ NULL, NULL, JP_STEP_REVIEW },
	};
	enum jp_step step;
	char *key;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		step = JP_STEP_COUNT;
		assert_int_equal(jp_flow_check_field(&key, &step, cases[i].id), 0);
		if (cases[i].key)
			assert_string_equal(key, cases[i].key);
		else
			assert_null(key);
		assert_int_equal(step, cases[i].step);
		free(key);
	}
	assert_int_equal(jp_flow_check_field(&key, NULL, "code.repo.url.reachable"), 0);
	assert_string_equal(key, "code.repo.url");
	free(key);
}

static void data_sources_are_a_list(void **state)
{
	struct jp_flow *flow = new_flow();
	char path[PATH_MAX + 64];
	size_t i;

	(void)state;
	assert_int_equal(jp_flow_list_add(&i, flow, "data", NULL), 0);
	assert_int_equal(i, 0);
	assert_value(flow, "data[0].name", "data-1");
	snprintf(path, sizeof(path), "%s/public/imagenet-mini", plat_b);
	set(flow, "data[0].path", path);
	assert_value(flow, "data[0].name", "imagenet-mini");
	assert_value(flow, "data[0].kind", "public");
	assert_value(flow, "data[0].read_only", "true");
	assert_int_equal(jp_flow_list_add(&i, flow, "data", NULL), 0);
	assert_int_equal(jp_flow_list_count(flow, "data"), 2);
	assert_int_equal(jp_flow_list_remove(flow, "data", 0, NULL), 0);
	assert_int_equal(jp_flow_list_count(flow, "data"), 1);
	assert_value(flow, "data[0].name", "data-1"); /* a default follows the position */
	assert_int_equal(jp_flow_list_remove(flow, "data", 5, NULL), JP_EUSAGE);
	jp_flow_free(flow);
}

/* What the Data step offers to stage, and where to: a folder on local
 * disk is copied, an archive unpacked, a URL downloaded, each to
 * {shared}/datasets/{name}; data already on shared storage is left alone,
 * unless it holds archives (unpack them there).
 * Taking an offer sets from and path, and staging comes before the scan. */
static void staging_is_offered_for_what_the_job_cannot_use(void **state)
{
	struct jp_flow *flow = new_flow();
	struct jp_stage_offer off = JP_STAGE_OFFER_INIT;
	char local[PATH_MAX + 64], archive[PATH_MAX + 64], want[PATH_MAX + 64], shared[PATH_MAX + 64];
	enum jp_action *kinds = NULL;
	size_t *ix = NULL, n = 0, i;
	char *v = NULL;

	(void)state;
	/* the scratch is in the build tree, on this machine's own disk */
	snprintf(local, sizeof(local), "%s/local-corpus", top);
	snprintf(archive, sizeof(archive), "%s/images.tar.zst", top);
	assert_int_equal(run("mkdir -p '%s' && echo x >'%s/a' && echo y >'%s'", local, local, archive),
			 0);
	assert_int_equal(jp_flow_list_add(&i, flow, "data", NULL), 0);

	assert_int_equal(jp_flow_stage_offer(&off, flow, i, local, NULL), 0);
	assert_int_equal(off.kind, JP_STAGE_OFFER_COPY);
	snprintf(want, sizeof(want), "%s/shared/datasets/local-corpus", plat_b);
	assert_string_equal(off.dest, want);
	jp_stage_offer_dispose(&off);

	assert_int_equal(jp_flow_stage_offer(&off, flow, i, archive, NULL), 0);
	assert_int_equal(off.kind, JP_STAGE_OFFER_UNPACK);
	snprintf(want, sizeof(want), "%s/shared/datasets/images", plat_b);
	assert_string_equal(off.dest, want);
	jp_stage_offer_dispose(&off);

	assert_int_equal(jp_flow_stage_offer(&off, flow, i,
					     "https://data.example.com/sets/c4.tar.gz?sig=1", NULL),
			 0);
	assert_int_equal(off.kind, JP_STAGE_OFFER_DOWNLOAD);
	snprintf(want, sizeof(want), "%s/shared/datasets/c4", plat_b);
	assert_string_equal(off.dest, want);
	jp_stage_offer_dispose(&off);

	/* on shared storage, no archive in it: fine where it is */
	snprintf(shared, sizeof(shared), "%s/shared/datasets/more", plat_b);
	assert_int_equal(jp_flow_stage_offer(&off, flow, i, shared, NULL), 0);
	assert_int_equal(off.kind, JP_STAGE_OFFER_NONE);
	assert_null(off.dest);
	/* holding an archive: unpack it there, into the folder beside it */
	snprintf(shared, sizeof(shared), "%s/shared/datasets/text", plat_b);
	assert_int_equal(jp_flow_stage_offer(&off, flow, i, shared, NULL), 0);
	assert_int_equal(off.kind, JP_STAGE_OFFER_WITHIN);
	assert_string_equal(off.dest, shared);
	assert_int_equal(off.archives.n, 1);
	snprintf(want, sizeof(want), "%s/shared/datasets/text/raw.tar.gz", plat_b);
	assert_string_equal(off.archives.v[0], want);
	jp_stage_offer_dispose(&off);
	assert_null(off.dest);
	assert_int_equal(jp_flow_stage_offer(&off, flow, i, "/does/not/exist", NULL), 0);
	assert_int_equal(off.kind, JP_STAGE_OFFER_NONE);

	/* taken, with a token in the URL: the draft never holds it */
	snprintf(want, sizeof(want), "%s/shared/datasets/c4", plat_b);
	assert_int_equal(jp_flow_stage_take(flow, i, "https://me:tok-77aa@data.example.com/c4.tar.gz",
					    want, NULL),
			 0);
	assert_value(flow, "data[0].path", want);
	assert_value(flow, "data[0].from", "https://data.example.com/c4.tar.gz");
	assert_value(flow, "data[0].name", "c4");
	assert_true(jp_flow_field_active(flow, "data[0].from"));
	assert_null(strstr(jp_flow_manifest(flow)->data[0].origin.from, "tok-77aa"));

	/* staged before it is scanned; nothing scans it until then */
	assert_int_equal(jp_flow_pending(&kinds, &ix, &n, flow, NULL), 0);
	bool stage = false, scan = false;
	for (size_t k = 0; k < n; k++) {
		stage |= kinds[k] == JP_ACTION_STAGE && ix[k] == 0;
		scan |= kinds[k] == JP_ACTION_SCAN && ix[k] == 0;
	}
	assert_true(stage);
	assert_false(scan);
	free(kinds);
	free(ix);

	/* cleared: nothing to stage, the field is not shown */
	set(flow, "data[0].from", "");
	assert_false(jp_flow_field_active(flow, "data[0].from"));
	assert_int_equal(jp_flow_get(&v, flow, "data[0].from", NULL), 0);
	assert_string_equal(v, "");
	free(v);
	assert_int_equal(jp_flow_list_remove(flow, "data", 0, NULL), 0);
	jp_flow_free(flow);
}

/* A stage that fails says which source, and why, in one line: the wizard
 * shows the last line of an error, and it said "failed" without the cause
 * (here, a source folder that is not there). */
static void a_failed_stage_says_why(void **state)
{
	struct jp_flow *flow = new_flow();
	struct jp_error err = JP_ERROR_INIT;
	char from[PATH_MAX + 64], dest[PATH_MAX + 64], want[3 * PATH_MAX + 256];
	size_t i;

	(void)state;
	set(flow, "job.name", "why");
	assert_int_equal(jp_flow_list_add(&i, flow, "data", NULL), 0);
	snprintf(from, sizeof(from), "%s/not-there/corpus", plat_b);
	snprintf(dest, sizeof(dest), "%s/shared/datasets/corpus", plat_b);
	assert_int_equal(jp_flow_stage_take(flow, i, from, dest, NULL), 0);
	assert_true(jp_flow_run(flow, JP_ACTION_STAGE, i, false, NULL, &err) < 0);
	snprintf(want, sizeof(want), "staging %s onto %s failed: %s: ", from, dest, from);
	assert_true(err_has(&err, want));
	assert_int_equal(err.n, 1); /* the cause once, in the line that says which */
	assert_false(exists(dest));
	jp_error_dispose(&err);
	assert_int_equal(jp_flow_list_remove(flow, "data", i, NULL), 0);
	jp_flow_free(flow);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(env_field_refuses_the_platforms_identity),
		cmocka_unit_test(same_answers_same_manifest_shared_clone),
		cmocka_unit_test(same_answers_same_manifest_shared_existing),
		cmocka_unit_test(same_answers_same_manifest_image),
		cmocka_unit_test(same_answers_same_manifest_launch_clone),
		cmocka_unit_test(gpus_per_worker_defaults_to_the_profiles),
		cmocka_unit_test(defaults_follow_job_name_unless_edited),
		cmocka_unit_test(next_run_number_follows_the_highest),
		cmocka_unit_test(tmp_output_dir_fails_inline_with_the_reason),
		cmocka_unit_test(tmp_launch_output_and_env_fail_inline),
		cmocka_unit_test(inline_check_off_thread_judges_a_snapshot),
		cmocka_unit_test(values_that_cannot_be_stored_are_refused),
		cmocka_unit_test(image_references_are_checked),
		cmocka_unit_test(nonempty_run_dir_is_not_reused_without_asking),
		cmocka_unit_test(cancel_leaves_no_directories_behind),
		cmocka_unit_test(checkout_of_another_repository_is_refused),
		cmocka_unit_test(existing_checkout_moves_to_another_branch_only_when_told),
		cmocka_unit_test(fields_are_data),
		cmocka_unit_test(an_item_key_has_its_index),
		cmocka_unit_test(launch_verdict_reads_job_env_for_the_hub),
		cmocka_unit_test(a_check_names_the_field_that_fixes_it),
		cmocka_unit_test(data_sources_are_a_list),
		cmocka_unit_test(staging_is_offered_for_what_the_job_cannot_use),
		cmocka_unit_test(a_failed_stage_says_why),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
