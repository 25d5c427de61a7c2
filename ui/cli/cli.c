/* The command line: the list of sub-commands, the version and error output. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "jobprep/i18n.h"
#include "jobprep/suggest.h"
#include "cli.h"
#include "options.h"
#include "output.h"

/* The sub-commands, in the order --help lists them; each one's entry (its
 * options, synopsis and help) is beside its code, in cmd_NAME.c. */
const struct jp_cli_cmd *const jp_cli_commands[] = {
	&jp_cli_cmd_init,  &jp_cli_cmd_check, &jp_cli_cmd_clone, &jp_cli_cmd_stage,
	&jp_cli_cmd_env,   &jp_cli_cmd_preflight, &jp_cli_cmd_export, &jp_cli_cmd_scan,
	&jp_cli_cmd_repo,  &jp_cli_cmd_show,  &jp_cli_cmd_runs,  &jp_cli_cmd_cache, &jp_cli_cmd_schema,
};
const size_t jp_cli_n_commands = JP_CLI_N(jp_cli_commands);

void jp_cli_print_version(FILE *out)
{
	fprintf(out, "jobprep %s\n", PACKAGE_VERSION);
}

int jp_cli_report(const char *cmd, const struct jp_error *err)
{
	const char *sep = cmd ? " " : "";

	if (!cmd)
		cmd = "";
	if (err->n == 0)
		fprintf(stderr, "jobprep%s%s: %s\n", sep, cmd, jp_strerror(err->code));
	for (size_t i = 0; i < err->n; i++) /* a server's words too */
		fprintf(stderr, "jobprep%s%s: %s\n", sep, cmd, jp_cli_text(err->msgs[i]));
	return jp_exit_code(err->code);
}

int jp_cli_report_oom(const char *cmd)
{
	struct jp_error err = JP_ERROR_INIT;

	err.code = JP_ENOMEM; /* no message: the code's own, after the prefix */
	return jp_cli_report(cmd, &err);
}

int jp_cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "jobprep%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n%s\n", _("Try 'jobprep --help' for more information."));
	return JP_EXIT_USAGE;
}

int jp_cli_main(int argc, char **argv)
{
	const char *name = argv[1];

	struct jp_suggest near;
	const char *best;

	jp_suggest_init(&near, name);
	for (size_t i = 0; i < jp_cli_n_commands; i++) {
		if (strcmp(jp_cli_commands[i]->name, name) == 0)
			return jp_cli_commands[i]->run(argc - 1, argv + 1);
		jp_suggest_add(&near, jp_cli_commands[i]->name);
	}
	best = jp_suggest_best(&near);
	if (best)
		return jp_cli_usage_error(NULL, _("unknown command '%s'; did you mean '%s'?"), name,
					  best);
	return jp_cli_usage_error(NULL, _("unknown command '%s'"), name);
}
