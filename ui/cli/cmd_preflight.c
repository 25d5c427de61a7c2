/* `jobprep preflight MANIFEST`: the run's preflight.sh for a manifest, on
 * standard output (the same text init and the wizard write beside env.sh). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/i18n.h"
#include "jobprep/manifest.h"
#include "jobprep/preflight.h"
#include "cli.h"

int jp_cmd_preflight(int argc, char **argv)
{
	struct jp_error err = JP_ERROR_INIT;
	struct jp_manifest *m = NULL;
	char *text = NULL;
	int rc, status = JP_EXIT_OK;

	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		printf("%s\n%s\n", _("Usage: jobprep preflight MANIFEST"),
		       _("Print the run's preflight.sh: the POSIX sh check every Worker runs before\n"
			 "the launch command (its paths as the Worker sees them, and that all\n"
			 "Workers share the output directory)."));
		return JP_EXIT_OK;
	}
	if (argc != 2 || (argv[1][0] == '-' && argv[1][1] != '\0'))
		return jp_cli_usage_error("preflight", "%s",
					  _("expected one argument: the manifest"));

	rc = jp_manifest_load(&m, argv[1], JP_READ_MANIFEST, &err);
	if (rc == 0)
		rc = jp_preflight_render(&text, m, &err);
	if (rc < 0) {
		status = jp_cli_report(&err);
		goto out;
	}
	fputs(text, stdout);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s\n", _("jobprep preflight: cannot write to standard output"));
		status = JP_EXIT_FAIL;
	}
out:
	free(text);
	jp_manifest_free(m);
	jp_error_dispose(&err);
	return status;
}
