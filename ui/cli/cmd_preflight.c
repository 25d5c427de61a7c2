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
#include "output.h"

int jp_cmd_preflight(int argc, char **argv)
{
	return jp_cli_print_rendered(
		"preflight", _("Usage: jobprep preflight MANIFEST"),
		_("Print the run's preflight.sh: the POSIX sh check every Worker runs before\n"
			 "the launch command (its paths as the Worker sees them, and that all\n"
			 "Workers share the output directory)."),
		argc, argv, jp_preflight_render);
}
