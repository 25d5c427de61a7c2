/* `jobprep schema`: print the manifest's JSON Schema. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "jobprep/i18n.h"
#include "jobprep/manifest.h"
#include "cli.h"
#include "options.h"

static const struct jp_cli_opt schema_opts[] = { JP_OPT_HELP_ENTRY };

const struct jp_cli_cmd jp_cli_cmd_schema = {
	.name = "schema",
	.run = jp_cmd_schema,
	.summary = N_("print the manifest's JSON Schema"),
	.description = N_("Print the JSON Schema (draft 2020-12) of the job manifest."),
	.opts = schema_opts,
	.n_opts = JP_CLI_N(schema_opts),
};

int jp_cmd_schema(int argc, char **argv)
{
	int rc = jp_cli_parse_options(&jp_cli_cmd_schema, argc, argv, NULL);

	if (rc >= 0)
		return rc;
	if (optind < argc)
		return jp_cli_usage_error("schema", _("unexpected argument '%s'"), argv[optind]);
	fputs(jp_manifest_schema(), stdout);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s\n", _("jobprep schema: cannot write to standard output"));
		return JP_EXIT_FAIL;
	}
	return JP_EXIT_OK;
}
