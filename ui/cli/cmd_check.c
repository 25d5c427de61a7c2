/* `jobprep check [--json | --quiet | --verbose] [--deep] [--profile FILE]
 * MANIFEST`: re-run every check on a manifest and print the results: the
 * counts, then the warnings and failures (all of them with --verbose, only
 * the warnings and failures with --quiet). Exit 0 when none failed
 * (warnings allowed), 1 when one failed, 3 when the manifest or profile
 * cannot be read. */
#include "config.h"

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jobprep/check.h"
#include "jobprep/i18n.h"
#include "jobprep/manifest.h"
#include "jobprep/profile.h"
#include "cli.h"
#include "options.h"
#include "output.h"
#include "signals.h"

/* What the command line asked for. */
struct check_args {
	const char *profile_path;
	enum jp_cli_checks shown;
	bool json, deep;
};

static const struct jp_cli_opt check_opts[] = {
	{ .name = "json", .short_name = 'j', .help = N_("print the checks as a JSON array"),
	  .kind = JP_OPT_TRUE, .at = offsetof(struct check_args, json), .group = 1 },
	{ .name = "quiet", .short_name = 'q', .help = N_("print only the warnings and the failures"),
	  .kind = JP_OPT_SET, .at = offsetof(struct check_args, shown),
	  .value = JP_CLI_CHECKS_QUIET, .group = 1 },
	{ .name = "verbose", .short_name = 'v', .help = N_("print every check, the passes too"),
	  .kind = JP_OPT_SET, .at = offsetof(struct check_args, shown), .value = JP_CLI_CHECKS_ALL,
	  .group = 1 },
	{ .name = "deep", .short_name = 'd', .help = N_("also scan the data sets fully"),
	  .kind = JP_OPT_TRUE, .at = offsetof(struct check_args, deep) },
	{ .name = "profile", .short_name = 'p', .arg = "FILE",
	  .help = N_("judge under this platform profile"), .kind = JP_OPT_STRING,
	  .at = offsetof(struct check_args, profile_path) },
	JP_OPT_HELP_ENTRY,
};

const struct jp_cli_cmd jp_cli_cmd_check = {
	.name = "check",
	.run = jp_cmd_check,
	.summary = N_("re-run every check on a manifest"),
	.operands = { "MANIFEST" },
	.description =
		N_("Re-run every check on MANIFEST, judged under --profile, else the profile the\n"
		   "manifest records, else $JOBPREP_PROFILE or the built-in one. Prints the\n"
		   "counts, then the warnings and the failures."),
	.opts = check_opts,
	.n_opts = JP_CLI_N(check_opts),
};

int jp_cmd_check(int argc, char **argv)
{
	struct check_args a = { .shown = JP_CLI_CHECKS_SUMMARY };
	struct jp_error err = JP_ERROR_INIT;
	struct jp_manifest *m = NULL;
	struct jp_profile *own_profile = NULL;
	const struct jp_profile *profile;
	const char *profile_path;
	bool json;
	enum jp_cli_checks shown;
	unsigned flags = 0;
	int rc, status = jp_cli_parse_options(&jp_cli_cmd_check, argc, argv, &a);

	if (status >= 0)
		return status;
	status = JP_EXIT_OK;
	profile_path = a.profile_path;
	json = a.json;
	shown = a.shown;
	if (a.deep)
		flags |= JP_CHECK_DEEP;
	if (argc - optind != 1)
		return jp_cli_usage_error("check", "%s", _("expected one argument: the manifest"));
	/* its probe files are made and removed by helpers that ignore the
	 * signals: the default death leaves nothing behind */
	jp_signals_default();

	rc = jp_manifest_load(&m, argv[optind], JP_READ_MANIFEST, &err);
	/* --profile, else the profile the manifest was checked under, else the
	 * usual one ($JOBPREP_PROFILE or the built-in default). */
	if (rc == 0 && (profile_path || !m->profile))
		rc = profile_path ? jp_profile_load(&own_profile, profile_path, &err)
				  : jp_profile_resolve(&own_profile, NULL, &err);
	profile = own_profile ? own_profile : (m ? m->profile : NULL);
	if (rc == 0)
		rc = jp_check_manifest(m, profile, flags, &err);
	if (rc < 0) {
		status = jp_cli_report("check", &err);
		goto out;
	}

	if (json) {
		cJSON *arr = jp_checks_to_json(m);

		rc = jp_cli_print_json(arr);
		cJSON_Delete(arr);
	} else {
		jp_cli_print_checks(m, shown);
	}
	if (rc < 0 || fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s\n", _("jobprep check: cannot write to standard output"));
		status = JP_EXIT_FAIL;
	} else if (jp_manifest_worst(m) == JP_CHECK_FAIL) {
		status = JP_EXIT_FAIL;
	}
out:
	jp_profile_free(own_profile);
	jp_manifest_free(m);
	jp_error_dispose(&err);
	return status;
}
