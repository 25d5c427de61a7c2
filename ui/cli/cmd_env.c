/* `jobprep env MANIFEST`: the manifest's paths and job.env as POSIX sh
 * export lines, for `. <(jobprep env job.json)` or `eval "$(...)"`. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/envsh.h"
#include "jobprep/i18n.h"
#include "jobprep/manifest.h"
#include "cli.h"
#include "options.h"
#include "output.h"

static const struct jp_cli_opt env_opts[] = { JP_OPT_HELP_ENTRY };

const struct jp_cli_cmd jp_cli_cmd_env = {
	.name = "env",
	.run = jp_cmd_env,
	.summary = N_("print POSIX sh export lines for a manifest"),
	.operands = { "MANIFEST" },
	.description = N_("Print PROJECT_DIR, OUTPUT_DIR, CHECKPOINT_DIR, LOG_DIR, DATA_DIR and the\n"
			  "job's environment as POSIX sh export lines."),
	.opts = env_opts,
	.n_opts = JP_CLI_N(env_opts),
};

int jp_cmd_env(int argc, char **argv)
{
	return jp_cli_print_rendered(&jp_cli_cmd_env, argc, argv, jp_envsh_render);
}
