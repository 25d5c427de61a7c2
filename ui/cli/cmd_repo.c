/* `jobprep repo [--json] DIR`: what an existing checkout holds (remote,
 * branch, commit) and whether a job started from it could be reproduced
 * (uncommitted changes, unpushed commits).
 * `jobprep repo --remote URL [--ref REF] [--into DIR] [--submodules] [--json]`:
 * check URL and REF are reachable, pin the commit, and print the clone line
 * for a launch command. Exit 0 ok (warnings allowed), 1 failed, 2 usage,
 * 130 interrupted. */
#include "config.h"

#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jobprep/git.h"
#include "jobprep/i18n.h"
#include "jobprep/url.h"
#include "cli.h"
#include "options.h"
#include "cli_port.h"
#include "output.h"

/* What the command line asked for. */
struct repo_args {
	const char *url, *ref, *into, *exec_pattern;
	unsigned timeout_s;
	bool json, submodules;
};

#define INSPECT 1u /* the synopsis forms: repo DIR, repo --remote URL */
#define REMOTE 2u
#define AT(member) offsetof(struct repo_args, member)
static const struct jp_cli_opt repo_opts[] = {
	{ .name = "remote", .arg = "URL",
	  .help = N_("check that URL and REF are reachable, pin the commit and "
		     "print the clone line for a launch command"),
	  .kind = JP_OPT_STRING, .at = AT(url), .forms = REMOTE, .flags = JP_OPT_REQUIRED },
	{ .name = "ref", .arg = "REF",
	  .help = N_("with --remote: branch, tag or commit (default: the remote's "
		     "HEAD)"),
	  .kind = JP_OPT_STRING, .at = AT(ref), .forms = REMOTE },
	{ .name = "into", .arg = "DIR",
	  .help = N_("with --remote: the folder the clone line clones into "
		     "(default: code)"),
	  .kind = JP_OPT_STRING, .at = AT(into), .forms = REMOTE },
	{ .name = "submodules", .help = N_("with --remote: the clone line also fetches submodules"),
	  .kind = JP_OPT_TRUE, .at = AT(submodules), .forms = REMOTE },
	{ .name = "timeout", .arg = "SECS",
	  .help = N_("with --remote: fail when the server sends nothing for SECS "
		     "(default 120)"),
	  .kind = JP_OPT_UINT, .at = AT(timeout_s), .min = 1, .max = UINT_MAX,
	  .range = N_("--timeout: expected seconds >= 1, got '%s'"), .forms = REMOTE },
	{ .name = "json", .short_name = 'j', .help = N_("print the result as JSON"), .kind = JP_OPT_TRUE,
	  .at = AT(json) },
	{ .name = "exec", .arg = "PATTERN",
	  .help = N_("the files jobprep makes executable (default: scripts/" "*.sh): "
		     "a change of their exec bit alone is not an uncommitted change"),
	  .kind = JP_OPT_STRING, .at = AT(exec_pattern), .forms = INSPECT },
	JP_OPT_HELP_ENTRY,
};
#undef AT

const struct jp_cli_cmd jp_cli_cmd_repo = {
	.name = "repo",
	.run = jp_cmd_repo,
	.summary = N_("describe a checkout, or pin a remote for a launch-command clone"),
	.operands = { "DIR", NULL },
	.description =
		N_("Describe the checkout at DIR: remote, branch, commit, uncommitted changes\n"
		   "and unpushed commits. With --remote: check that URL and REF are reachable,\n"
		   "pin the commit, and print the clone line for a launch command."),
	.opts = repo_opts,
	.n_opts = JP_CLI_N(repo_opts),
};

/* Print o, then free it. */
static int print(cJSON *o)
{
	int rc = jp_cli_print_json(o) < 0 ? JP_EXIT_FAIL : JP_EXIT_OK;

	cJSON_Delete(o);
	return rc;
}

static cJSON *str_or_null(const char *s)
{
	return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static int inspect(const char *dir, const char *exec_pattern, bool json)
{
	struct jp_git_repo_info info = JP_GIT_REPO_INFO_INIT;
	struct jp_error err = JP_ERROR_INIT;
	int rc;

	if (jp_git_inspect(&info, dir, exec_pattern, &err) != 0) {
		rc = jp_cli_report("repo", &err);
		jp_error_dispose(&err);
		return rc;
	}
	if (json) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddItemToObject(o, "workdir", str_or_null(info.workdir));
		cJSON_AddItemToObject(o, "remote", str_or_null(info.remote));
		cJSON_AddItemToObject(o, "url", str_or_null(info.url));
		cJSON_AddItemToObject(o, "branch", str_or_null(info.branch));
		cJSON_AddItemToObject(o, "upstream", str_or_null(info.upstream));
		cJSON_AddItemToObject(o, "commit", str_or_null(info.commit[0] ? info.commit : NULL));
		cJSON_AddBoolToObject(o, "detached", info.detached);
		cJSON_AddNumberToObject(o, "dirty", (double)info.dirty);
		cJSON_AddNumberToObject(o, "untracked", (double)info.untracked);
		cJSON_AddNumberToObject(o, "exec_only", (double)info.exec_only);
		cJSON_AddNumberToObject(o, "unpushed", (double)info.unpushed);
		cJSON_AddNumberToObject(o, "behind", (double)info.behind);
		rc = print(o);
	} else {
		printf("%s\n", jp_cli_name(info.workdir));
		printf("  %-10s %s%s%s\n", _("remote:"), info.url ? jp_cli_name(info.url) : _("(none)"),
		       info.remote ? " " : "", info.remote ? jp_cli_name(info.remote) : "");
		printf("  %-10s %s\n", _("branch:"),
		       info.branch ? jp_cli_name(info.branch)
		       : info.detached ? _("(detached HEAD)") : _("(none)"));
		printf("  %-10s %s\n", _("commit:"), info.commit[0] ? info.commit : _("(none yet)"));
		if (info.dirty)
			printf(_("  warning: %zu tracked file(s) changed and not committed: a job would "
				 "run code no commit records\n"),
			       info.dirty);
		if (info.unpushed)
			printf(_("  warning: %zu commit(s) not pushed%s%s: nobody else can get this "
				 "code\n"),
			       info.unpushed, info.upstream ? _(" to ") : "",
			       info.upstream ? jp_cli_name(info.upstream) : "");
		if (info.untracked)
			printf(_("  note: %zu untracked file(s)\n"), info.untracked);
		rc = JP_EXIT_OK;
	}
	jp_git_repo_info_dispose(&info);
	return rc;
}

static int remote(const char *url, const char *ref, const char *into, bool submodules,
		  unsigned timeout_s, bool json)
{
	struct jp_git_remote_info info = JP_GIT_REMOTE_INFO_INIT;
	struct jp_error err = JP_ERROR_INIT;
	struct jp_cli_port cp;
	char *cmd = NULL;
	int rc;

	jp_cli_port_init(&cp, JP_CLI_PROGRESS_AUTO);
	rc = jp_git_remote_check(&info, url, ref, timeout_s, &cp.port, &err);
	jp_cli_port_finish(&cp);
	if (rc == 0)
		rc = jp_git_clone_command(&cmd, info.url, info.commit, into,
					  submodules ? JP_GIT_CMD_SUBMODULES : 0, &err);
	if (rc != 0) {
		rc = jp_cli_port_failed("repo", rc, &err);
		goto out;
	}
	if (json) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddItemToObject(o, "url", str_or_null(info.url));
		cJSON_AddItemToObject(o, "ref", str_or_null(info.ref_name));
		cJSON_AddStringToObject(o, "ref_kind", jp_git_ref_kind_name(info.ref_kind));
		cJSON_AddStringToObject(o, "commit", info.commit);
		cJSON_AddBoolToObject(o, "commit_verified", !info.commit_unverified);
		cJSON_AddStringToObject(o, "command", cmd);
		rc = print(o);
	} else {
		printf("%s %s\n", info.commit, info.ref_name ? jp_cli_name(info.ref_name) : "");
		if (info.commit_unverified)
			fprintf(stderr, "%s\n",
				_("jobprep repo: warning: the server does not list this commit as a "
				  "branch or tag tip; it could not be confirmed without fetching"));
		printf("%s\n", jp_cli_text(cmd));
		rc = JP_EXIT_OK;
	}
out:
	free(cmd);
	jp_git_remote_info_dispose(&info);
	jp_error_dispose(&err);
	return rc;
}

int jp_cmd_repo(int argc, char **argv)
{
	struct repo_args a = { .into = "code", .timeout_s = JP_GIT_STALL_TIMEOUT_S };
	char *url, *url_copy = NULL;
	int rc = jp_cli_parse_options(&jp_cli_cmd_repo, argc, argv, &a);

	if (rc >= 0)
		return rc;
	url = (char *)a.url; /* argv's own string: blanked below */
	if (url) {
		if (argc != optind)
			return jp_cli_usage_error("repo", "%s", _("--remote takes no other operand"));
		/* A token written in the URL: keep our own copy and blank it out
		 * of argv, so ps(1) and /proc/PID/cmdline stop showing it. */
		if (!(url_copy = strdup(url))) {
			return jp_cli_report_oom("repo");
		}
		jp_url_blank_credentials(url);
		rc = remote(url_copy, a.ref, a.into, a.submodules, a.timeout_s, a.json);
		explicit_bzero(url_copy, strlen(url_copy));
		free(url_copy);
	} else {
		if (argc - optind != 1)
			return jp_cli_usage_error("repo", "%s", _("expected one directory"));
		rc = inspect(argv[optind], a.exec_pattern, a.json);
	}
	jp_git_global_shutdown();
	return rc;
}
