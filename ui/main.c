/* jobprep's entry point: picks the front end. */
#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobprep/i18n.h"
#include "cli/cli.h"
#include "tui/tui.h"

#ifdef ENABLE_NLS
/* Where the message catalogues are. $JOBPREP_LOCALEDIR when set. Else, when
 * this binary sits in its build tree (./jobprep --demo before any install),
 * the catalogues make built beside it in ui/po/locale/, so the build tree
 * shows its own translations even if an older jobprep is installed; an
 * installed binary has no ui/po/locale next to it and uses LOCALEDIR. */
static const char *locale_dir(char *buf, size_t size)
{
	static const char rel[] = "/ui/po/locale";
	const char *env = getenv("JOBPREP_LOCALEDIR");
	struct stat st;
	char *slash;
	ssize_t n;

	if (env && env[0])
		return env;
	n = readlink("/proc/self/exe", buf, size - 1);
	if (n <= 0)
		return LOCALEDIR;
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (!slash || (size_t)(slash - buf) + sizeof(rel) > size)
		return LOCALEDIR;
	memcpy(slash, rel, sizeof(rel));
	if (stat(buf, &st) == 0 && S_ISDIR(st.st_mode))
		return buf;
	return LOCALEDIR;
}
#endif

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
		} else if (strcmp(argv[i], "--profile") == 0 || strcmp(argv[i], "-o") == 0 ||
			   strcmp(argv[i], "--output") == 0) {
			return jp_cli_usage_error(NULL, _("option '%s' needs an argument"), argv[i]);
		} else {
			return jp_cli_usage_error(NULL, _("unknown option '%s' for the wizard"),
						  argv[i]);
		}
	}
	return jp_tui_main(&opts);
}

int main(int argc, char **argv)
{
#ifdef ENABLE_NLS
	char dir[4096];
#endif

	/* What jobprep makes on shared storage (the project, the run's folders,
	 * env.sh) is never group- or world-writable, whatever the umask: under
	 * umask 000 anyone could replace env.sh. Before any thread starts. */
	umask(umask(0) | 022);
	setlocale(LC_ALL, "");
#ifdef ENABLE_NLS
	bindtextdomain("jobprep", locale_dir(dir, sizeof(dir)));
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
