/* `jobprep init --answers FILE [-o MANIFEST] [--profile FILE] [--json] [--force]
 * [--deep]` and `jobprep init --demo`: the wizard's flow without prompts.
 *
 * Clone, create directories, scan, check, write: the same flow the wizard
 * drives, so the same answers give the same manifest. Nothing is asked: an
 * answer that needs a person (a password) fails with a message. Progress
 * goes to stderr when it is a terminal. Exit codes as for every command;
 * Ctrl-C cancels (130) and leaves nothing half-made. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "jobprep/demo.h"
#include "jobprep/flow.h"
#include "jobprep/git.h"
#include "jobprep/i18n.h"
#include "jobprep/jobindex.h"
#include "jobprep/manifest.h"
#include "jobprep/path.h"
#include "jobprep/profile.h"
#include "cli.h"
#include "options.h"
#include "cli_port.h"
#include "output.h"

/* err's messages, one a line: the "error" of a failed init's JSON. */
static char *error_text(const struct jp_error *err)
{
	size_t len = 1;
	char *text;

	if (err->n == 0)
		return strdup(jp_strerror(err->code ? err->code : JP_EINTERNAL));
	for (size_t i = 0; i < err->n; i++)
		len += strlen(err->msgs[i]) + 1;
	text = malloc(len);
	if (!text)
		return NULL;
	text[0] = '\0';
	for (size_t i = 0; i < err->n; i++) {
		if (i)
			strcat(text, "\n");
		strcat(text, err->msgs[i]);
	}
	return text;
}

/* The result as JSON: {ok, written, manifest, env, preflight, copy,
 * launch_command, checks}; a failure (err not NULL) adds "error", and
 * without a flow holds only {ok, written, error, checks: []}. */
static int print_json(const struct jp_flow *flow, bool written, const struct jp_error *err)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *checks = NULL;
	char *manifest = NULL, *env = NULL, *copy = NULL, *cmd = NULL, *pf = NULL, *why = NULL;
	int rc = -1;

	if (!root || !cJSON_AddBoolToObject(root, "ok", err == NULL) ||
	    !cJSON_AddBoolToObject(root, "written", written))
		goto out;
	if (err && (!(why = error_text(err)) || !cJSON_AddStringToObject(root, "error", why)))
		goto out;
	if (flow) {
		jp_flow_files(&manifest, &env, &copy, flow, NULL);
		jp_flow_preflight_file(&pf, flow);
		jp_flow_platform_command(&cmd, flow, NULL);
		if (!cJSON_AddStringToObject(root, "manifest", manifest ? manifest : "") ||
		    !cJSON_AddStringToObject(root, "env", env ? env : "") ||
		    !cJSON_AddStringToObject(root, "preflight", pf ? pf : "") ||
		    !(copy ? cJSON_AddStringToObject(root, "copy", copy)
			   : cJSON_AddNullToObject(root, "copy")) ||
		    !(cmd ? cJSON_AddStringToObject(root, "launch_command", cmd)
			  : cJSON_AddNullToObject(root, "launch_command")))
			goto out;
		if (written && jp_flow_code_story(flow) &&
		    !cJSON_AddStringToObject(root, "code", jp_flow_code_story(flow)))
			goto out;
	}
	checks = flow ? jp_checks_to_json(jp_flow_manifest(flow)) : cJSON_CreateArray();
	if (!checks || !cJSON_AddItemToObject(root, "checks", checks)) {
		cJSON_Delete(checks);
		goto out;
	}
	rc = jp_cli_print_json(root);
out:
	cJSON_Delete(root);
	free(why);
	free(manifest);
	free(env);
	free(copy);
	free(cmd);
	free(pf);
	return rc;
}

static void print_done(const struct jp_flow *flow, enum jp_cli_checks shown)
{
	char *manifest = NULL, *env = NULL, *copy = NULL, *cmd = NULL, *pf = NULL;

	jp_flow_files(&manifest, &env, &copy, flow, NULL);
	jp_flow_preflight_file(&pf, flow);
	jp_flow_platform_command(&cmd, flow, NULL);
	jp_cli_print_checks(jp_flow_manifest(flow), shown);
	if (shown == JP_CLI_CHECKS_QUIET)
		goto out;
	/* what the run takes, and where its own copy of the code is */
	for (const char *s = jp_flow_code_story(flow), *nl; s && *s; s = nl ? nl + 1 : NULL) {
		char *line;

		nl = strchr(s, '\n');
		line = nl ? strndup(s, (size_t)(nl - s)) : strdup(s);
		if (line)
			printf("%s\n", jp_cli_text(line));
		free(line);
	}
	printf(_("Wrote %s\n"), manifest ? jp_cli_name(manifest) : "?");
	printf(_("Wrote %s\n"), env ? jp_cli_name(env) : "?");
	printf(_("Wrote %s\n"), pf ? jp_cli_name(pf) : "?");
	if (copy)
		printf(_("Wrote %s (a copy for you: the job's Workers read the manifest in the "
			 "run's folder, %s)\n"),
		       jp_cli_name(copy), manifest ? jp_cli_name(manifest) : "?");
	if (cmd)
		printf("%s\n  %s\n", _("Launch command for the platform's form:"), jp_cli_text(cmd));
out:
	free(manifest);
	free(env);
	free(copy);
	free(cmd);
	free(pf);
}

/* --dry-run: the checks, and what a real init would have written. */
static void print_dry(const struct jp_flow *flow, enum jp_cli_checks shown)
{
	const struct jp_manifest *m = jp_flow_manifest(flow);

	jp_cli_print_checks(m, shown);
	printf(_("Nothing was written (--dry-run): init would make the run %s\n"),
	       m->outputs.output_dir ? jp_cli_name(m->outputs.output_dir) : "?");
}

/* `jobprep runs JOB` finds this run's profile again (a hint: a failure to
 * note it changes nothing of the run). */
static void record_run(const struct jp_flow *flow)
{
	const struct jp_manifest *m = jp_flow_manifest(flow);
	struct jp_error ignored = JP_ERROR_INIT;

	jp_jobindex_record(m->job.name, jp_flow_profile(flow), m->outputs.output_dir, &ignored);
	jp_error_dispose(&ignored);
}

static int yes(const char *question, void *payload)
{
	(void)question;
	(void)payload;
	return 1;
}

/* What the command line asked for. */
struct init_opts {
	const char *answers_path, *output, *profile_path;
	const char *resume_from, *resume_in; /* job.resume_from; the same folder */
	enum jp_cli_checks shown;
	bool json, force, deep, want_demo, no_cache, dry_run;
};

#define ANSWERS 1u /* the synopsis forms: init --answers FILE ..., init --demo ... */
#define DEMO 2u

static const struct jp_cli_opt init_opts[] = {
	{ .name = "answers", .short_name = 'a', .arg = "FILE",
	  .help = N_("the answers: the manifest's shape, any subset of it; "
		     "what is missing takes the profile's defaults"),
	  .kind = JP_OPT_STRING, .at = offsetof(struct init_opts, answers_path),
	  .forms = ANSWERS, .flags = JP_OPT_REQUIRED },
	{ .name = "demo", .short_name = 'D',
	  .help = N_("the self-contained sandbox ./jobprep-demo/ (made if missing)"),
	  .kind = JP_OPT_TRUE, .at = offsetof(struct init_opts, want_demo), .forms = DEMO,
	  .flags = JP_OPT_REQUIRED },
	{ .name = "output", .short_name = 'o', .arg = "MANIFEST",
	  .help = N_("also write a copy of the manifest there (the run's folder "
		     "always gets the manifest and env.sh); it never replaces "
		     "another run's manifest or another file without --force"),
	  .kind = JP_OPT_STRING, .at = offsetof(struct init_opts, output),
	  .flags = JP_OPT_SYN_SHORT },
	{ .name = "profile", .short_name = 'p', .arg = "FILE",
	  .help = N_("platform profile (default: $JOBPREP_PROFILE, the answers' "
		     "profile, else the built-in one)"),
	  .kind = JP_OPT_STRING, .at = offsetof(struct init_opts, profile_path), .forms = ANSWERS },
	{ .name = "json", .short_name = 'j',
	  .help = N_("print the result as JSON: {written, manifest, env, copy, "
		     "launch_command, checks}; on failure {ok: false, error, "
		     "checks}"),
	  .kind = JP_OPT_TRUE, .at = offsetof(struct init_opts, json), .group = 1 },
	{ .name = "quiet", .short_name = 'q', .help = N_("print only the checks' warnings and failures"),
	  .kind = JP_OPT_SET, .at = offsetof(struct init_opts, shown), .value = JP_CLI_CHECKS_QUIET,
	  .group = 1 },
	{ .name = "verbose", .short_name = 'v', .help = N_("print every check, the passes too"),
	  .kind = JP_OPT_SET, .at = offsetof(struct init_opts, shown), .value = JP_CLI_CHECKS_ALL,
	  .group = 1 },
	{ .name = "force", .short_name = 'f',
	  .help = N_("write even when a check fails (the manifest records it), "
		     "write into a run directory that already holds files, "
		     "and let -o replace what is at MANIFEST"),
	  .kind = JP_OPT_TRUE, .at = offsetof(struct init_opts, force), .forms = ANSWERS },
	{ .name = "dry-run", .short_name = 'n',
	  .help = N_("run every check and write nothing: no run folder is claimed, no "
		     "checkout is moved (code that is not there yet is cloned, as the "
		     "checks need it)"),
	  .kind = JP_OPT_TRUE, .at = offsetof(struct init_opts, dry_run) },
	{ .name = "deep", .short_name = 'd', .help = N_("scan the data sets fully"),
	  .kind = JP_OPT_TRUE, .at = offsetof(struct init_opts, deep), .forms = ANSWERS },
	{ .name = "resume-from", .arg = "RUN",
	  .help = N_("resume from that earlier run's checkpoint folder (a run's name such as "
		     "run-001, last, or a path): job.resume_from, which env.sh exports as "
		     "RESUME_FROM"),
	  .kind = JP_OPT_STRING, .at = offsetof(struct init_opts, resume_from) },
	{ .name = "resume-in", .arg = "RUN",
	  .help = N_("go on in that earlier run's checkpoint folder (run-001, last, or a path): "
		     "outputs.checkpoint_dir set to it"),
	  .kind = JP_OPT_STRING, .at = offsetof(struct init_opts, resume_in) },
	{ .name = "no-cache",
	  .help = N_("fetch from the server only, not through the local mirror cache "
		     "($XDG_CACHE_HOME/jobprep/git; JOBPREP_NO_CACHE=1 does the same)"),
	  .kind = JP_OPT_TRUE, .at = offsetof(struct init_opts, no_cache) },
	JP_OPT_HELP_ENTRY,
};

const struct jp_cli_cmd jp_cli_cmd_init = {
	.name = "init",
	.run = jp_cmd_init,
	.summary = N_("run the wizard's flow without prompts: clone, create, scan, check, write"),
	.description =
		N_("Run the wizard's whole flow without prompting: clone the code, create the\n"
		   "output directories, scan the data, check every path, then write the manifest\n"
		   "and env.sh (by default into the run's output directory)."),
	.opts = init_opts,
	.n_opts = JP_CLI_N(init_opts),
};

/* Read argv into o: -1 to go on, else the exit code (--help, usage). */
static int parse_options(struct init_opts *o, int argc, char **argv)
{
	int rc = jp_cli_parse_options(&jp_cli_cmd_init, argc, argv, o);

	if (rc >= 0)
		return rc;
	if (optind < argc)
		return jp_cli_usage_error("init", _("unexpected argument '%s'"), argv[optind]);
	if (o->want_demo && o->answers_path)
		return jp_cli_usage_error("init", "%s", _("--demo brings its own answers: drop --answers"));
	if (!o->want_demo && !o->answers_path)
		return jp_cli_usage_error("init", "%s", _("expected --answers FILE (or --demo)"));
	if (o->resume_from && o->resume_in)
		return jp_cli_usage_error("init", "%s",
					  _("--resume-from and --resume-in are two ways to resume: "
					    "choose one"));
	return -1;
}

/* The answers (the demo's, made if missing, with --demo) and the profile
 * they are judged under: --profile, $JOBPREP_PROFILE, the answers' own,
 * the built-in one. *answers_path becomes the demo's file with --demo. */
static int load_answers(struct jp_manifest **answers, struct jp_profile **profile,
			struct jp_demo *demo, const char **answers_path, bool want_demo,
			const char *profile_path, struct jp_error *err)
{
	int rc;

	if (want_demo) {
		rc = jp_demo_prepare(demo, NULL, err);
		if (rc < 0)
			return rc;
		*answers_path = demo->answers_path;
		if (!profile_path)
			profile_path = demo->profile_path;
	}
	rc = jp_manifest_load(answers, *answers_path, JP_READ_ANSWERS, err);
	if (rc < 0)
		return rc;
	if (!profile_path && !getenv("JOBPREP_PROFILE") && (*answers)->profile)
		return jp_profile_copy(profile, (*answers)->profile) < 0 ? jp_error_oom(err) : 0;
	return jp_profile_resolve(profile, profile_path, err);
}

/* What the command line says beyond the answers: -o's copy (relative to
 * the current directory, as a shell user means it) and the resume offer
 * taken (launch.resume). */
static int set_from_options(struct jp_flow *flow, const struct init_opts *o, struct jp_error *err)
{
	int rc = 0;

	if (o->output) {
		char *out_abs = jp_path_absolute(o->output);

		if (!out_abs)
			return errno == ENOMEM ? jp_error_oom(err)
					       : jp_error_set(err, JP_EIO,
							      _("%s: cannot make it absolute: %s"),
							      o->output, strerror(errno));
		rc = jp_flow_set(NULL, flow, "review.manifest_path", out_abs, err);
		free(out_abs);
		if (rc < 0)
			return rc;
	}
	if (o->resume_from)
		rc = jp_flow_set(NULL, flow, "job.resume_from", o->resume_from, err);
	else if (o->resume_in)
		rc = jp_flow_resume_in(flow, o->resume_in, err);
	return rc;
}

static unsigned finish_flags(const struct init_opts *o)
{
	return (o->force ? JP_FINISH_FORCE : 0) | (o->deep ? JP_FINISH_DEEP : 0) |
	       (o->dry_run ? JP_FINISH_NO_WRITE : 0);
}

int jp_cmd_init(int argc, char **argv)
{
	struct init_opts o = { NULL, NULL, NULL, NULL, NULL, JP_CLI_CHECKS_SUMMARY,
			       false, false, false, false, false, false };
	struct jp_error err = JP_ERROR_INIT;
	struct jp_demo demo = JP_DEMO_INIT;
	struct jp_manifest *answers = NULL;
	struct jp_profile *profile = NULL;
	struct jp_flow *flow = NULL;
	struct jp_cli_port cp;
	struct jp_port port = JP_PORT_INIT;
	const char *answers_path, *profile_path;
	enum jp_cli_checks shown;
	bool json, force, want_demo, port_on = false;
	int rc, status = parse_options(&o, argc, argv);

	if (status >= 0)
		return status;
	status = JP_EXIT_OK;
	answers_path = o.answers_path;
	profile_path = o.profile_path;
	shown = o.shown;
	json = o.json;
	force = o.force;
	want_demo = o.want_demo;

	/* the answers and the profile they are judged under */
	rc = load_answers(&answers, &profile, &demo, &answers_path, want_demo, profile_path, &err);
	if (rc < 0)
		goto fail;

	rc = jp_flow_new(&flow, profile, &err);
	if (rc < 0)
		goto fail;
	/* the answers named the ref: an existing checkout moves without asking */
	jp_flow_set_options(flow, (o.dry_run ? 0 : JP_FLOW_MOVE_CHECKOUT) |
					  (o.no_cache ? JP_FLOW_NO_CACHE : 0));
	rc = jp_flow_apply_answers(flow, answers, answers_path, &err);
	if (rc == JP_ECHECK && force)
		rc = 0; /* recorded in the manifest's checks */
	if (rc == JP_ECHECK && !json) {
		/* each refused answer as a check: its [FAIL] id line, one a finding */
		jp_cli_print_checks(jp_flow_manifest(flow), shown == JP_CLI_CHECKS_ALL
								    ? JP_CLI_CHECKS_ALL
								    : JP_CLI_CHECKS_QUIET);
		status = jp_cli_report("init", &err);
		goto out;
	}
	if (rc < 0)
		goto fail;
	rc = set_from_options(flow, &o, &err);
	if (rc < 0)
		goto fail;

	/* no prompts: no secrets, and a non-empty run dir only with --force */
	jp_cli_port_init(&cp, JP_CLI_PROGRESS_AUTO);
	port_on = true;
	port.progress = cp.port.progress;
	port.payload = &cp;
	port.cancelled = cp.port.cancelled;
	port.ask_secret = NULL;
	port.confirm = force ? yes : NULL;

	rc = jp_flow_finish(flow, finish_flags(&o), &port, &err);
	jp_cli_port_finish(&cp);
	port_on = false;
	/* A signal that came after the flow had finished (the manifest written,
	 * whole) interrupted nothing: what was done is said, and exit 0. */
	if (rc == JP_ECANCELED || (rc < 0 && jp_cli_interrupted())) {
		const char *why = _("jobprep init: interrupted: nothing half-made was left behind");

		fprintf(stderr, "%s\n", why);
		if (json) {
			jp_error_clear(&err);
			jp_error_set(&err, JP_ECANCELED, "%s", why);
			print_json(flow, false, &err);
		}
		status = jp_cli_exit_interrupted(); /* 130, 143, 129 */
		goto out;
	}
	if (rc == JP_ECHECK && jp_flow_manifest(flow)->n_checks > 0 &&
	    jp_manifest_worst(jp_flow_manifest(flow)) == JP_CHECK_FAIL) {
		/* the checks ran and one failed: show them all */
		if (json)
			print_json(flow, false, &err);
		else
			jp_cli_print_checks(jp_flow_manifest(flow), shown);
		status = jp_cli_report("init", &err);
		goto out;
	}
	if (rc < 0)
		goto fail;
	if (o.dry_run) {
		if (json)
			status = print_json(flow, false, NULL) < 0 ? JP_EXIT_FAIL : status;
		else
			print_dry(flow, shown);
		goto out;
	}
	record_run(flow);
	if (json ? print_json(flow, true, NULL) < 0 : (print_done(flow, shown), 0))
		status = JP_EXIT_FAIL;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s\n", _("jobprep init: cannot write to standard output"));
		status = JP_EXIT_FAIL;
	}
	goto out;
fail:
	if (json) /* a script reads why on stdout too; stderr says it as always */
		print_json(flow, false, &err);
	status = jp_cli_report("init", &err);
out:
	if (port_on)
		jp_cli_port_finish(&cp);
	jp_flow_free(flow);
	jp_profile_free(profile);
	jp_manifest_free(answers);
	jp_demo_dispose(&demo);
	jp_error_dispose(&err);
	/* every clone, inspection and lookup has finished: libgit2 may go */
	jp_git_global_shutdown();
	return status;
}
