/* `jobprep clone [OPTIONS] URL DIR`: put a repository on shared storage,
 * pinned: prints the commit checked out. Nothing is left at DIR unless the
 * clone completed. Exit 0 ok, 1 failed or refused, 2 usage, 130 interrupted. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jobprep/git.h"
#include "jobprep/i18n.h"
#include "jobprep/url.h"
#include "jobprep/profile.h"
#include "cli.h"
#include "cli_port.h"
#include "output.h"

static void usage(FILE *out)
{
	fprintf(out, "%s\n%s\n",
		_("Usage: jobprep clone [--ref REF] [--submodules] [--exec PATTERN] [--json] URL DIR"),
		_("Clone URL into DIR (absent or empty), pinned to a commit; on a network\n"
		  "filesystem the clone is built on local disk and copied in parallel.\n"
		  "  --ref REF         branch, tag or commit (default: the remote's HEAD)\n"
		  "  --submodules      also initialise and update submodules, recursively\n"
		  "  --exec PATTERN    files to make executable (default: scripts/" "*.sh; '' none)\n"
		  "  --stage MODE      auto, never or always build on local scratch disk first\n"
		  "  --scratch DIR     local scratch directory (default: $JOBPREP_SCRATCH,\n"
		  "                    $TMPDIR, /var/tmp)\n"
		  "  --threads N       parallel writers for the copy (default 16)\n"
		  "  --timeout SECS    fail when the server sends nothing for SECS (default 120)\n"
		  "  --profile FILE    platform profile (decides what is ephemeral storage)\n"
		  "  --progress, --no-progress\n"
		  "                    progress on stderr (default: when it is a terminal)\n"
		  "  --json            print the result as JSON\n"
		  "Credentials: ssh-agent or ~/.ssh keys; for https JOBPREP_GIT_TOKEN (user\n"
		  "JOBPREP_GIT_USER), git credential helpers, then a prompt. A token in the URL\n"
		  "is used and never stored."));
	fprintf(out, "%s\n",
		_("  --no-cache        fetch from the server only, not through the local mirror\n"
		  "                    cache ($XDG_CACHE_HOME/jobprep/git; JOBPREP_NO_CACHE=1\n"
		  "                    does the same)"));
}

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
	    !cJSON_AddNumberToObject(o, "exec_files", r->exec_files)) {
		cJSON_Delete(o);
		return JP_EXIT_FAIL;
	}
	rc = jp_cli_print_json(o) < 0 ? JP_EXIT_FAIL : JP_EXIT_OK;
	cJSON_Delete(o);
	return rc;
}

int jp_cmd_clone(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "ref", required_argument, NULL, 'r' },
		{ "submodules", no_argument, NULL, 's' },
		{ "exec", required_argument, NULL, 'x' },
		{ "stage", required_argument, NULL, 'S' },
		{ "scratch", required_argument, NULL, 'T' },
		{ "threads", required_argument, NULL, 'j' },
		{ "timeout", required_argument, NULL, 't' },
		{ "profile", required_argument, NULL, 'p' },
		{ "progress", no_argument, NULL, 'P' },
		{ "no-progress", no_argument, NULL, 'N' },
		{ "json", no_argument, NULL, 'J' },
		{ "no-cache", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct jp_git_clone_options opts = JP_GIT_CLONE_OPTIONS_INIT;
	struct jp_git_clone_result res = JP_GIT_CLONE_RESULT_INIT;
	struct jp_error err = JP_ERROR_INIT;
	enum jp_cli_progress progress = JP_CLI_PROGRESS_AUTO;
	struct jp_profile *profile = NULL;
	const char *profile_path = NULL;
	struct jp_cli_port cp;
	char *url = NULL;
	bool json = false;
	int c, rc;

	optind = 1;
	/* "+": stop at the first operand; "--" ends options for URLs and
	 * paths that look like them (they are refused anyway). */
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'r':
			opts.ref = optarg;
			break;
		case 's':
			opts.submodules = true;
			break;
		case 'x':
			opts.exec_pattern = optarg;
			break;
		case 'S':
			if (strcmp(optarg, "auto") == 0)
				opts.staging = JP_GIT_STAGE_AUTO;
			else if (strcmp(optarg, "never") == 0)
				opts.staging = JP_GIT_STAGE_NEVER;
			else if (strcmp(optarg, "always") == 0)
				opts.staging = JP_GIT_STAGE_ALWAYS;
			else
				return jp_cli_usage_error("clone", _("--stage: expected auto, never or always, got '%s'"), optarg);
			break;
		case 'T':
			opts.scratch_dir = optarg;
			break;
		case 'j':
			opts.copy_threads = (unsigned)strtoul(optarg, &end, 10);
			if (*end || opts.copy_threads < 1 || opts.copy_threads > 64)
				return jp_cli_usage_error("clone", _("--threads: expected 1 to 64, got '%s'"), optarg);
			break;
		case 't':
			opts.stall_timeout_s = (unsigned)strtoul(optarg, &end, 10);
			if (*end || opts.stall_timeout_s < 1)
				return jp_cli_usage_error("clone", _("--timeout: expected seconds >= 1, got '%s'"), optarg);
			break;
		case 'p':
			profile_path = optarg;
			break;
		case 'P':
			progress = JP_CLI_PROGRESS_ALWAYS;
			break;
		case 'N':
			progress = JP_CLI_PROGRESS_NEVER;
			break;
		case 'J':
			json = true;
			break;
		case 'C':
			opts.no_cache = true;
			break;
		case 'h':
			usage(stdout);
			return JP_EXIT_OK;
		default:
			usage(stderr);
			return JP_EXIT_USAGE;
		}
	}
	if (argc - optind != 2)
		return jp_cli_usage_error("clone", "%s", _("expected a URL and a directory"));
	/* A token written in the URL: keep our own copy and blank it out of
	 * argv, so ps(1) and /proc/PID/cmdline stop showing it. */
	if (!(url = strdup(argv[optind]))) {
		fprintf(stderr, "jobprep clone: %s\n", _("out of memory"));
		return JP_EXIT_FAIL;
	}
	jp_url_blank_credentials(argv[optind]);
	opts.url = url;
	opts.target = argv[optind + 1];

	if (jp_profile_resolve(&profile, profile_path, &err) != 0) {
		rc = jp_cli_report_as("clone", &err);
		jp_error_dispose(&err);
		explicit_bzero(url, strlen(url));
		free(url);
		return rc;
	}
	opts.profile = profile;
	jp_cli_port_init(&cp, progress);
	rc = jp_git_clone(&res, &opts, &cp.port, &err);
	jp_cli_port_finish(&cp);
	if (rc != 0) {
		bool stopped = rc == JP_ECANCELED && jp_cli_interrupted();

		rc = jp_cli_report_as("clone", &err);
		if (stopped)
			rc = jp_cli_exit_interrupted();
	} else if (json) {
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
