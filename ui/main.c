/* jobprep's entry point: picks the front end. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobprep/i18n.h"
#include "cli/cli.h"
#include "cli/options.h"
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

static int run_wizard(int argc, char **argv);

/* `jobprep [--demo] [--profile FILE] [--answers FILE] [-o MANIFEST]`: the wizard; and the
 * program's own -h and -V. */
static const struct jp_cli_opt wizard_opts[] = {
	{ .name = "demo", .help = N_("run the wizard in a self-contained sandbox"),
	  .kind = JP_OPT_TRUE, .at = offsetof(struct jp_tui_options, demo) },
	{ .name = "profile", .arg = "FILE",
	  .help = N_("platform profile (default: $JOBPREP_PROFILE, else built in)"),
	  .kind = JP_OPT_STRING, .at = offsetof(struct jp_tui_options, profile_path) },
	{ .name = "answers", .arg = "FILE",
	  .help = N_("start from these answers: an answers file, or a run's manifest "
		     "(its answers; what is derived is worked out again, the next run "
		     "folder is taken)"),
	  .kind = JP_OPT_STRING, .at = offsetof(struct jp_tui_options, answers_path) },
	{ .name = "output", .short_name = 'o', .arg = "MANIFEST",
	  .help = N_("also write a copy of the manifest there"), .kind = JP_OPT_STRING,
	  .at = offsetof(struct jp_tui_options, manifest_path), .flags = JP_OPT_SYN_SHORT },
	{ .name = "help", .short_name = 'h', .help = N_("show this help"), .kind = JP_OPT_HELP },
	{ .name = "version", .short_name = 'V', .help = N_("show the version"),
	  .kind = JP_OPT_VERSION },
};

const struct jp_cli_cmd jp_cli_wizard = {
	.run = run_wizard,
	.opts = wizard_opts,
	.n_opts = JP_CLI_N(wizard_opts),
};

static int run_wizard(int argc, char **argv)
{
	struct jp_tui_options opts = JP_TUI_OPTIONS_INIT;
	int rc = jp_cli_parse_options(&jp_cli_wizard, argc, argv, &opts);

	if (rc >= 0)
		return rc;
	if (optind < argc) /* the wizard takes no operand */
		return jp_cli_usage_error(NULL, _("unknown option '%s' for the wizard"),
					  argv[optind]);
	return jp_tui_main(&opts);
}

/* `jobprep --dump-options`, `--dump-synopsis` and `--dump-man TEMPLATE`:
 * the option tables for the tests and the completion scripts' drift check,
 * the synopses docs/reference.md lists, and the man page made from its template at
 * build time. Not in --help: nobody
 * runs them by hand. */
static int dump(int argc, char **argv)
{
	FILE *template;
	int rc;

	if (strcmp(argv[1], "--dump-options") == 0 && argc == 2) {
		jp_cli_dump_options(stdout);
		return fflush(stdout) == 0 && !ferror(stdout) ? JP_EXIT_OK : JP_EXIT_FAIL;
	}
	if (strcmp(argv[1], "--dump-synopsis") == 0 && argc == 2) {
		jp_cli_dump_synopsis(stdout);
		return fflush(stdout) == 0 && !ferror(stdout) ? JP_EXIT_OK : JP_EXIT_FAIL;
	}
	if (argc != 3)
		return jp_cli_usage_error(NULL, "%s", _("expected one argument: the template"));
	template = fopen(argv[2], "re");
	if (!template) {
		fprintf(stderr, "jobprep: %s: %s\n", argv[2], strerror(errno));
		return JP_EXIT_INVALID;
	}
	rc = jp_cli_print_man(stdout, template);
	fclose(template);
	if (rc < 0 || fflush(stdout) != 0 || ferror(stdout))
		return JP_EXIT_FAIL;
	return JP_EXIT_OK;
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

	if (argc > 1 && (strcmp(argv[1], "--dump-options") == 0 ||
			 strcmp(argv[1], "--dump-synopsis") == 0 || strcmp(argv[1], "--dump-man") == 0))
		return dump(argc, argv);
	/* A first argument that is not an option names a sub-command. */
	if (argc > 1 && argv[1][0] != '-')
		return jp_cli_main(argc, argv);

	return run_wizard(argc, argv);
}
