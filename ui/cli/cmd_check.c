/* `jobprep check [--json | --quiet | --verbose] [--deep] [--profile FILE]
 * MANIFEST`: re-run every check on a manifest and print the results: the
 * counts, then the warnings and failures (all of them with --verbose, only
 * the warnings and failures with --quiet). Exit 0 when none failed
 * (warnings allowed), 1 when one failed, 3 when the manifest or profile
 * cannot be read. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jobprep/check.h"
#include "jobprep/i18n.h"
#include "jobprep/manifest.h"
#include "jobprep/profile.h"
#include "cli.h"
#include "output.h"

static void usage(FILE *out)
{
	fprintf(out, "%s\n%s\n",
		_("Usage: jobprep check [--json | --quiet | --verbose] [--deep] [--profile FILE] MANIFEST"),
		_("Re-run every check on MANIFEST, judged under --profile, else the profile the\n"
		  "manifest records, else $JOBPREP_PROFILE or the built-in one. Prints the\n"
		  "counts, then the warnings and the failures.\n"
		  "  --json          print the checks as a JSON array\n"
		  "  -q, --quiet     print only the warnings and the failures\n"
		  "  -v, --verbose   print every check, the passes too\n"
		  "  --deep          also scan the data sets fully\n"
		  "  --profile FILE  judge under this platform profile"));
}

int jp_cmd_check(int argc, char **argv)
{
	static const struct option options[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "deep", no_argument, NULL, 'd' },
		{ "profile", required_argument, NULL, 'p' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct jp_error err = JP_ERROR_INIT;
	struct jp_manifest *m = NULL;
	struct jp_profile *own_profile = NULL;
	const struct jp_profile *profile;
	const char *profile_path = NULL;
	bool json = false;
	enum jp_cli_checks shown = JP_CLI_CHECKS_SUMMARY;
	unsigned flags = 0;
	int c, rc, status = JP_EXIT_OK;

	optind = 0; /* GNU: start over on this sub-command's argv */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:jdp:qvh", options, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'd':
			flags |= JP_CHECK_DEEP;
			break;
		case 'p':
			profile_path = optarg;
			break;
		case 'q':
			shown = JP_CLI_CHECKS_QUIET;
			break;
		case 'v':
			shown = JP_CLI_CHECKS_ALL;
			break;
		case 'h':
			usage(stdout);
			return JP_EXIT_OK;
		default:
			return jp_cli_option_error("check", c, argv);
		}
	}
	if (argc - optind != 1)
		return jp_cli_usage_error("check", "%s", _("expected one argument: the manifest"));

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
		status = jp_cli_report(&err);
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
