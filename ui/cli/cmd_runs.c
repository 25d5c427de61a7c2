/* `jobprep runs JOB [--profile FILE] [--json]`: the runs prepared for a
 * job, oldest first: each run's folder, when it was prepared (its
 * manifest's created_at), the commit and the manifest. `jobprep runs`
 * alone: the jobs prepared on this account, the latest first. */
#include "config.h"

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jobprep/i18n.h"
#include "jobprep/jobindex.h"
#include "jobprep/manifest.h"
#include "jobprep/profile.h"
#include "jobprep/runs.h"
#include "cli.h"
#include "options.h"
#include "output.h"

/* What the command line asked for. */
struct runs_args {
	const char *profile_path;
	bool json;
};

static const struct jp_cli_opt runs_opts[] = {
	{ .name = "profile", .short_name = 'p', .arg = "FILE",
	  .help = N_("platform profile (default: $JOBPREP_PROFILE, else the one the job's runs "
		     "were made with, else built in)"),
	  .kind = JP_OPT_STRING, .at = offsetof(struct runs_args, profile_path) },
	{ .name = "json", .short_name = 'j', .help = N_("print the runs as a JSON array"),
	  .kind = JP_OPT_TRUE, .at = offsetof(struct runs_args, json) },
	JP_OPT_HELP_ENTRY,
};

const struct jp_cli_cmd jp_cli_cmd_runs = {
	.name = "runs",
	.run = jp_cmd_runs,
	.summary = N_("list the runs prepared for a job: folder, when, commit, manifest"),
	.operands = { "[JOB]" },
	.description = N_("List the runs prepared for JOB (the profile's output folders for it,\n"
			  "{shared}/outputs/JOB/run-NNN by default), oldest first: folder, when,\n"
			  "commit, manifest. A run folder without a manifest is unfinished; the\n"
			  "last one, when it holds no file, is taken again by the next prep.\n"
			  "Without --profile or $JOBPREP_PROFILE, the profile is the one the\n"
			  "job's runs were last made with on this account\n"
			  "($XDG_STATE_HOME/jobprep/jobs.json). Without JOB, list the jobs\n"
			  "prepared on this account, the latest first: name, last run, when."),
	.opts = runs_opts,
	.n_opts = JP_CLI_N(runs_opts),
};

/* The earlier run runs[i] resumes from (its job.resume_from, else its
 * checkpoint folder, in that run's folder), and whether in the same folder;
 * NULL: none. */
static const struct jp_run *resumes(const struct jp_run *runs, size_t i, bool *same)
{
	const struct jp_run *r = jp_runs_holding(runs, i, runs[i].resume_from);

	*same = !r && !runs[i].resume_from;
	if (*same)
		r = jp_runs_holding(runs, i, runs[i].checkpoint_dir);
	return r;
}

static const char *base(const char *dir)
{
	const char *slash = strrchr(dir, '/');

	return slash ? slash + 1 : dir;
}

/* "resumes_from": {"run", "checkpoints", "same_folder"}, or null. */
static bool add_resumes(cJSON *o, const struct jp_run *runs, size_t i)
{
	bool same = false;
	const struct jp_run *r = resumes(runs, i, &same);
	const char *ckpt = same ? runs[i].checkpoint_dir : runs[i].resume_from;
	cJSON *f;

	if (!r && !runs[i].resume_from)
		return cJSON_AddNullToObject(o, "resumes_from") != NULL;
	f = cJSON_AddObjectToObject(o, "resumes_from");
	return f && (r ? cJSON_AddStringToObject(f, "run", r->dir) : cJSON_AddNullToObject(f, "run")) &&
	       cJSON_AddStringToObject(f, "checkpoints", ckpt) &&
	       cJSON_AddBoolToObject(f, "same_folder", same);
}

static cJSON *runs_json(const struct jp_run *runs, size_t n)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; arr && i < n; i++) {
		cJSON *o = cJSON_CreateObject();

		if (!o || !cJSON_AddItemToArray(arr, o)) {
			cJSON_Delete(o);
			cJSON_Delete(arr);
			return NULL;
		}
		if (!cJSON_AddStringToObject(o, "dir", runs[i].dir) ||
		    !(runs[i].created_at ? cJSON_AddStringToObject(o, "created_at", runs[i].created_at)
					 : cJSON_AddNullToObject(o, "created_at")) ||
		    !(runs[i].commit ? cJSON_AddStringToObject(o, "commit", runs[i].commit)
				     : cJSON_AddNullToObject(o, "commit")) ||
		    !(runs[i].manifest ? cJSON_AddStringToObject(o, "manifest", runs[i].manifest)
				       : cJSON_AddNullToObject(o, "manifest")) ||
		    !cJSON_AddBoolToObject(o, "unfinished", !runs[i].manifest) ||
		    !cJSON_AddBoolToObject(o, "taken_again", runs[i].empty && i + 1 == n) ||
		    !add_resumes(o, runs, i)) {
			cJSON_Delete(arr);
			return NULL;
		}
	}
	return arr;
}

/* "resumes   run-001 (PATH)": the chain of runs. */
static void resumes_text(const struct jp_run *runs, size_t i)
{
	bool same = false;
	const struct jp_run *r = resumes(runs, i, &same);

	if (r && same)
		printf("  %-10s %s (%s)\n", _("resumes"), jp_cli_name(base(r->dir)),
		       _("goes on in its checkpoint folder"));
	else if (r)
		printf("  %-10s %s (%s)\n", _("resumes"), jp_cli_name(base(r->dir)),
		       jp_cli_name(runs[i].resume_from));
	else if (runs[i].resume_from)
		printf("  %-10s %s\n", _("resumes"), jp_cli_name(runs[i].resume_from));
}

static void runs_text(const char *job, const struct jp_run *runs, size_t n)
{
	if (n == 0) {
		printf(_("No runs of %s yet\n"), jp_cli_name(job));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		printf("%s\n", jp_cli_name(runs[i].dir));
		printf("  %-10s %s\n", _("when"), runs[i].created_at ? jp_cli_text(runs[i].created_at) : "-");
		printf("  %-10s %s\n", _("commit"), runs[i].commit ? jp_cli_text(runs[i].commit) : "-");
		printf("  %-10s %s\n", _("manifest"),
		       runs[i].manifest ? jp_cli_name(runs[i].manifest) : _("(none)"));
		resumes_text(runs, i);
		if (!runs[i].manifest)
			printf("  %-10s %s\n", _("state"),
			       runs[i].empty && i + 1 == n
				       ? _("unfinished: a prep stopped before writing its manifest; "
					   "the next prep takes this folder again")
				       : _("unfinished: no manifest"));
	}
}

/* The profile to list under: --profile, else $JOBPREP_PROFILE, else the
 * one the job's runs were last made with (the per-user index of jobs,
 * jobprep/jobindex.h: the demo's sandbox profile), else the built-in one. */
static int runs_profile(struct jp_profile **out, const char *path, const char *job,
			struct jp_error *err)
{
	const char *env = getenv("JOBPREP_PROFILE");
	int rc;

	if (path || (env && env[0]))
		return jp_profile_resolve(out, path, err);
	rc = jp_jobindex_profile(out, job, err);
	if (rc == JP_ENOENT || rc == JP_EFORMAT) {
		jp_error_clear(err); /* a hint only: the built-in profile then */
		rc = jp_profile_resolve(out, NULL, err);
	}
	return rc;
}

static cJSON *jobs_json(const struct jp_jobindex_entry *v, size_t n)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; arr && i < n; i++) {
		cJSON *o = cJSON_CreateObject();

		if (!o || !cJSON_AddItemToArray(arr, o)) {
			cJSON_Delete(o);
			cJSON_Delete(arr);
			return NULL;
		}
		if (!cJSON_AddStringToObject(o, "job", v[i].name) ||
		    !cJSON_AddStringToObject(o, "last_run", v[i].run) ||
		    !cJSON_AddStringToObject(o, "at", v[i].at)) {
			cJSON_Delete(arr);
			return NULL;
		}
	}
	return arr;
}

/* `jobprep runs` alone: the index's jobs, the latest first. */
static int jobs_list(bool json)
{
	struct jp_error err = JP_ERROR_INIT;
	struct jp_jobindex_entry *v = NULL;
	size_t n = 0;
	int rc = jp_jobindex_list(&v, &n, &err), status = JP_EXIT_OK;

	if (rc == JP_ENOENT) { /* no place for an index: no job recorded */
		jp_error_clear(&err);
		rc = 0;
	}
	if (rc < 0) {
		status = jp_cli_report("runs", &err);
		goto out;
	}
	if (json) {
		cJSON *arr = jobs_json(v, n);

		rc = arr ? jp_cli_print_json(arr) : -1;
		cJSON_Delete(arr);
	} else if (n == 0) {
		printf("%s\n", _("No jobs prepared on this account yet: `jobprep init` or the wizard "
				 "records each job it prepares"));
	} else {
		for (size_t i = 0; i < n; i++) {
			printf("%s\n", jp_cli_text(v[i].name));
			printf("  %-10s %s\n", _("last run"), v[i].run[0] ? jp_cli_name(v[i].run) : "-");
			printf("  %-10s %s\n", _("when"), v[i].at[0] ? jp_cli_text(v[i].at) : "-");
		}
	}
	if (rc < 0 || fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s\n", _("jobprep runs: cannot write to standard output"));
		status = JP_EXIT_FAIL;
	}
out:
	jp_jobindex_entries_free(v, n);
	jp_error_dispose(&err);
	return status;
}

int jp_cmd_runs(int argc, char **argv)
{
	struct runs_args a = { NULL, false };
	struct jp_error err = JP_ERROR_INIT;
	struct jp_profile *profile = NULL;
	struct jp_run *runs = NULL;
	const char *profile_path;
	size_t n = 0;
	bool json;
	int rc, status = jp_cli_parse_options(&jp_cli_cmd_runs, argc, argv, &a);

	if (status >= 0)
		return status;
	status = JP_EXIT_OK;
	profile_path = a.profile_path;
	json = a.json;
	if (argc - optind == 0)
		return jobs_list(json);
	if (argc - optind != 1)
		return jp_cli_usage_error("runs", "%s", _("expected at most one argument: the job's name"));
	if (!jp_valid_job_name(argv[optind]))
		return jp_cli_usage_error("runs", _("%s is not a job name (lower-case letters, digits and '-')"),
					  jp_cli_name(argv[optind]));

	rc = runs_profile(&profile, profile_path, argv[optind], &err);
	if (rc == 0)
		rc = jp_runs_list(&runs, &n, profile, argv[optind], &err);
	if (rc < 0) {
		status = jp_cli_report("runs", &err);
		goto out;
	}
	if (json) {
		cJSON *arr = runs_json(runs, n);

		rc = jp_cli_print_json(arr);
		cJSON_Delete(arr);
	} else {
		runs_text(argv[optind], runs, n);
	}
	if (rc < 0 || fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s\n", _("jobprep runs: cannot write to standard output"));
		status = JP_EXIT_FAIL;
	}
out:
	jp_runs_free(runs, n);
	jp_profile_free(profile);
	jp_error_dispose(&err);
	return status;
}
