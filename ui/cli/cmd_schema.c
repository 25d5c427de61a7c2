/* `jobprep schema`: print the manifest's JSON Schema. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "jobprep/i18n.h"
#include "jobprep/manifest.h"
#include "cli.h"

int jp_cmd_schema(int argc, char **argv)
{
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		printf("%s\n%s\n", _("Usage: jobprep schema"),
		       _("Print the JSON Schema (draft 2020-12) of the job manifest."));
		return JP_EXIT_OK;
	}
	if (argc > 1)
		return jp_cli_usage_error("schema", _("unexpected argument '%s'"), argv[1]);
	fputs(jp_manifest_schema(), stdout);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s\n", _("jobprep schema: cannot write to standard output"));
		return JP_EXIT_FAIL;
	}
	return JP_EXIT_OK;
}
