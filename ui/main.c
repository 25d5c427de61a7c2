/* jobprep's entry point: picks the front end. */
#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "jobprep/i18n.h"
#include "cli/cli.h"
#include "tui/tui.h"

/* `jobprep [--demo] [--profile FILE] [-o MANIFEST]`: the wizard. */
static int run_wizard(int argc, char **argv)
{
	struct jp_tui_options opts = JP_TUI_OPTIONS_INIT;
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--demo") == 0) {
			opts.demo = true;
		} else if (strcmp(argv[i], "--profile") == 0 && i + 1 < argc) {
			opts.profile_path = argv[++i];
		} else if (strncmp(argv[i], "--profile=", 10) == 0) {
			opts.profile_path = argv[i] + 10;
		} else if ((strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) &&
			   i + 1 < argc) {
			opts.manifest_path = argv[++i];
		} else if (strncmp(argv[i], "--output=", 9) == 0) {
			opts.manifest_path = argv[i] + 9;
		} else {
			return jp_cli_usage_error(NULL, _("unknown option '%s' for the wizard"),
						  argv[i]);
		}
	}
	return jp_tui_main(&opts);
}

int main(int argc, char **argv)
{
	setlocale(LC_ALL, "");
#ifdef ENABLE_NLS
	bindtextdomain("jobprep", LOCALEDIR);
	bind_textdomain_codeset("jobprep", "UTF-8");
#endif

	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		jp_cli_print_usage(stdout);
		return JP_EXIT_OK;
	}
	if (argc > 1 && (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)) {
		jp_cli_print_version(stdout);
		return JP_EXIT_OK;
	}
	/* A first argument that is not an option names a sub-command. */
	if (argc > 1 && argv[1][0] != '-')
		return jp_cli_main(argc, argv);

	return run_wizard(argc, argv);
}
