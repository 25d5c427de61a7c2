/* jobprep's entry point: picks the front end. */
#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "jobprep/i18n.h"
#include "cli/cli.h"

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

	fprintf(stderr, "%s\n",
		_("jobprep: the interactive wizard (and --demo) is not there yet; "
		  "see 'jobprep --help' for the commands that are."));
	return JP_EXIT_FAIL;
}
