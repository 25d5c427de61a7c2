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
#include "output.h"

int jp_cmd_env(int argc, char **argv)
{
	return jp_cli_print_rendered(
		"env", _("Usage: jobprep env MANIFEST"),
		_("Print PROJECT_DIR, OUTPUT_DIR, CHECKPOINT_DIR, LOG_DIR, DATA_DIR and the\n"
			 "job's environment as POSIX sh export lines."),
		argc, argv, jp_envsh_render);
}
