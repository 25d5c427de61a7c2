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
#include "options.h"
#include "output.h"

static const struct jp_cli_opt preflight_opts[] = { JP_OPT_HELP_ENTRY };

const struct jp_cli_cmd jp_cli_cmd_preflight = {
	.name = "preflight",
	.run = jp_cmd_preflight,
	.summary = N_("print the run's preflight.sh, the check every Worker runs first"),
	.operands = { "MANIFEST" },
	.description =
		N_("Print the run's preflight.sh: the POSIX sh check every Worker runs before\n"
		   "the launch command (its paths as the Worker sees them, and that all\n"
		   "Workers share the output directory)."),
	.opts = preflight_opts,
	.n_opts = JP_CLI_N(preflight_opts),
};

int jp_cmd_preflight(int argc, char **argv)
{
	return jp_cli_print_rendered(&jp_cli_cmd_preflight, argc, argv, jp_preflight_render);
}
