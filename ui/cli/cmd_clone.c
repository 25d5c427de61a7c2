/* `jobprep clone [OPTIONS] URL DIR`: put a repository on shared storage,
 * pinned: prints the commit checked out. Nothing is left at DIR unless the
 * clone completed. Exit 0 ok, 1 failed or refused, 2 usage, 128 + the signal
 * when interrupted (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP). */
#include "config.h"

#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jobprep/git.h"
#include "jobprep/shellwords.h"
#include "jobprep/i18n.h"
#include "jobprep/url.h"
#include "jobprep/profile.h"
#include "cli.h"
#include "options.h"
#include "cli_port.h"
#include "output.h"

/* What the command line asked for. */
struct clone_args {
	struct jp_git_clone_options git;
	const char *profile_path;
	enum jp_cli_progress progress;
	bool json;
};

static int parse_stage(void *field, const char *arg, const char *cmd)
{
	enum jp_git_staging *staging = field;

	if (strcmp(arg, "auto") == 0)
		*staging = JP_GIT_STAGE_AUTO;
	else if (strcmp(arg, "never") == 0)
		*staging = JP_GIT_STAGE_NEVER;
	else if (strcmp(arg, "always") == 0)
		*staging = JP_GIT_STAGE_ALWAYS;
	else
		return jp_cli_usage_error(cmd, _("--stage: expected auto, never or always, got '%s'"),
					  arg);
	return 0;
}

#define AT(member) offsetof(struct clone_args, member)
static const struct jp_cli_opt clone_opts[] = {
	{ .name = "ref", .arg = "REF",
	  .help = N_("branch, tag or commit (default: the remote's HEAD)"), .kind = JP_OPT_STRING,
	  .at = AT(git.ref) },
	{ .name = "submodules", .help = N_("also initialise and update submodules, recursively"),
	  .kind = JP_OPT_TRUE, .at = AT(git.submodules) },
	{ .name = "exec", .arg = "PATTERN",
	  .help = N_("files to make executable (default: scripts/" "*.sh; '' none)"),
	  .kind = JP_OPT_STRING, .at = AT(git.exec_pattern) },
	{ .name = "stage", .arg = "MODE",
	  .help = N_("auto, never or always build on local scratch disk first "
		     "(auto: when DIR is on a network filesystem)"),
	  .kind = JP_OPT_CALL, .at = AT(git.staging), .parse = parse_stage },
	{ .name = "scratch", .arg = "DIR",
	  .help = N_("local scratch directory; else $JOBPREP_SCRATCH; either one "
		     "is used only when it is local and has room (else the clone "
		     "is built in place); when neither is set, the first of "
		     "/dev/shm (a tmpfs, up to half the available memory), "
		     "$TMPDIR, /var/tmp and /tmp that is local and has room"),
	  .kind = JP_OPT_STRING, .at = AT(git.scratch_dir) },
	{ .name = "threads", .arg = "N", .help = N_("parallel writers for the copy (default 16)"),
	  .kind = JP_OPT_UINT, .at = AT(git.copy_threads), .min = 1, .max = 64,
	  .range = N_("--threads: expected 1 to 64, got '%s'") },
	{ .name = "timeout", .arg = "SECS",
	  .help = N_("fail when the server sends nothing for SECS (default 120)"),
	  .kind = JP_OPT_UINT, .at = AT(git.stall_timeout_s), .min = 1, .max = UINT_MAX,
	  .range = N_("--timeout: expected seconds >= 1, got '%s'") },
	{ .name = "profile", .arg = "FILE",
	  .help = N_("platform profile (decides what is ephemeral storage)"),
	  .kind = JP_OPT_STRING, .at = AT(profile_path) },
	{ .name = "progress",
	  .help = N_("progress on stderr even when it is not a terminal"), .kind = JP_OPT_SET,
	  .at = AT(progress), .value = JP_CLI_PROGRESS_ALWAYS, .group = 1 },
	{ .name = "no-progress",
	  .help = N_("no progress (by default: when stderr is a terminal)"), .kind = JP_OPT_SET,
	  .at = AT(progress), .value = JP_CLI_PROGRESS_NEVER, .group = 1 },
	{ .name = "json", .short_name = 'j', .help = N_("print the result as JSON"), .kind = JP_OPT_TRUE,
	  .at = AT(json) },
	{ .name = "no-cache",
	  .help = N_("fetch from the server only, not through the local mirror cache "
		     "($XDG_CACHE_HOME/jobprep/git; JOBPREP_NO_CACHE=1 does the same)"),
	  .kind = JP_OPT_TRUE, .at = AT(git.no_cache) },
	JP_OPT_HELP_ENTRY,
};
#undef AT

const struct jp_cli_cmd jp_cli_cmd_clone = {
	.name = "clone",
	.run = jp_cmd_clone,
	.summary = N_("clone a repository onto shared storage, pinned to a commit"),
	.operands = { "URL DIR" },
	.description = N_("Clone URL into DIR (absent or empty), pinned to a commit; on a network\n"
			  "filesystem the clone is built on local disk and copied in parallel."),
	.footer = N_("Credentials: ssh-agent or ~/.ssh keys; for https JOBPREP_GIT_TOKEN (user\n"
		     "JOBPREP_GIT_USER), git credential helpers, then a prompt. A token in the URL\n"
		     "is used and never stored."),
	.opts = clone_opts,
	.n_opts = JP_CLI_N(clone_opts),
};

static int print_json(const struct jp_git_clone_result *r)
{
	cJSON *o = cJSON_CreateObject();
	int rc;

	if (!o || !cJSON_AddStringToObject(o, "path", r->path) ||
	    !cJSON_AddStringToObject(o, "url", r->url) ||
	    !cJSON_AddStringToObject(o, "commit", r->commit) ||
	    !cJSON_AddStringToObject(o, "ref_kind", jp_git_ref_kind_name(r->ref_kind)) ||
	    !(r->ref ? cJSON_AddStringToObject(o, "ref", r->ref) : cJSON_AddNullToObject(o, "ref")) ||
	    !cJSON_AddBoolToObject(o, "staged", r->staged) ||
	    !cJSON_AddNumberToObject(o, "files", (double)r->files) ||
	    !cJSON_AddNumberToObject(o, "exec_files", r->exec_files) ||
	    !cJSON_AddNumberToObject(o, "lfs_fetched", (double)r->lfs_fetched) ||
	    !cJSON_AddNumberToObject(o, "lfs_pointers", (double)r->lfs_left)) {
		cJSON_Delete(o);
		return JP_EXIT_FAIL;
	}
	rc = jp_cli_print_json(o) < 0 ? JP_EXIT_FAIL : JP_EXIT_OK;
	cJSON_Delete(o);
	return rc;
}

int jp_cmd_clone(int argc, char **argv)
{
	struct clone_args a = { .git = JP_GIT_CLONE_OPTIONS_INIT, .progress = JP_CLI_PROGRESS_AUTO };
	struct jp_git_clone_options opts;
	struct jp_git_clone_result res = JP_GIT_CLONE_RESULT_INIT;
	struct jp_error err = JP_ERROR_INIT;
	struct jp_profile *profile = NULL;
	struct jp_cli_port cp;
	char *url = NULL;
	int rc = jp_cli_parse_options(&jp_cli_cmd_clone, argc, argv, &a);

	if (rc >= 0)
		return rc;
	opts = a.git;
	if (argc - optind != 2)
		return jp_cli_usage_error("clone", "%s", _("expected a URL and a directory"));
	/* A token written in the URL: keep our own copy and blank it out of
	 * argv, so ps(1) and /proc/PID/cmdline stop showing it. */
	if (!(url = strdup(argv[optind]))) {
		return jp_cli_report_oom("clone");
	}
	jp_url_blank_credentials(argv[optind]);
	opts.url = url;
	opts.target = argv[optind + 1];

	if (jp_profile_resolve(&profile, a.profile_path, &err) != 0) {
		rc = jp_cli_report("clone", &err);
		jp_error_dispose(&err);
		explicit_bzero(url, strlen(url));
		free(url);
		return rc;
	}
	opts.profile = profile;
	jp_cli_port_init(&cp, a.progress);
	rc = jp_git_clone(&res, &opts, &cp.port, &err);
	jp_cli_port_finish(&cp);
	if (rc != 0)
		rc = jp_cli_port_failed("clone", rc, &err);
	else if (a.json) {
		rc = print_json(&res);
	} else {
		if (res.ref)
			printf(_("%s: %s, %s %s, at commit %s%s\n"), jp_cli_name(res.path),
			       jp_cli_name(res.url), jp_git_ref_kind_name(res.ref_kind),
			       jp_cli_name(res.ref), res.commit,
			       res.staged ? _(" (built on local disk, copied to shared storage)")
					  : "");
		else
			printf(_("%s: %s at commit %s%s\n"), jp_cli_name(res.path), jp_cli_name(res.url),
			       res.commit,
			       res.staged ? _(" (built on local disk, copied to shared storage)")
					  : "");
		if (res.lfs_fetched)
			printf(_("%zu file(s) stored with Git LFS fetched by git-lfs\n"),
			       res.lfs_fetched);
		if (res.lfs_left && res.lfs_auth) {
			char *q = NULL;

			if (jp_sh_quote(&q, res.path) == 0)
				fprintf(stderr,
					_("jobprep: %zu file(s) stored with Git LFS are only pointers in "
					  "%s: the LFS server wants credentials, which git-lfs gets from "
					  "git's credential helpers only; fetch them with: git -C %s lfs "
					  "pull\n"),
					res.lfs_left, jp_cli_name(res.path), jp_cli_text(q));
			free(q);
		} else if (res.lfs_left)
			fprintf(stderr,
				_("jobprep: %zu file(s) stored with Git LFS are only pointers in %s%s: "
				  "`jobprep check` names them\n"),
				res.lfs_left, jp_cli_name(res.path),
				jp_git_lfs_installed() ? "" : _(" (git-lfs is not installed)"));
		rc = JP_EXIT_OK;
	}
	explicit_bzero(url, strlen(url));
	free(url);
	jp_git_clone_result_dispose(&res);
	jp_error_dispose(&err);
	jp_profile_free(profile);
	jp_git_global_shutdown();
	return rc;
}
