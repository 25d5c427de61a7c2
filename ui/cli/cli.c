/* The command line: the sub-command table, usage, version and error output. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "jobprep/i18n.h"
#include "cli.h"
#include "output.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *synopsis;
	const char *summary;
};

/* The sub-commands, in the order --help lists them. */
static const struct command commands[] = {
	{ "init", jp_cmd_init,
	  N_("init --answers FILE [-o MANIFEST] [--profile FILE] [--json | --quiet | --verbose]\n"
	     "        [--force] [--deep] | init --demo"),
	  N_("run the wizard's flow without prompts: clone, create, scan, check, write") },
	{ "check", jp_cmd_check, N_("check [--json | --quiet | --verbose] [--deep] [--profile FILE] MANIFEST"),
	  N_("re-run every check on a manifest") },
	{ "clone", jp_cmd_clone, N_("clone [--ref REF] [--submodules] [--json] URL DIR"),
	  N_("clone a repository onto shared storage, pinned to a commit") },
	{ "stage", jp_cmd_stage,
	  N_("stage [--verify] [--jobs N] [--sha256 HEX] [--no-unpack] [--json] SOURCE DEST"),
	  N_("copy, unpack or download data onto shared storage before the job: parallel, resumable, never half-made") },
	{ "env", jp_cmd_env, N_("env MANIFEST"),
	  N_("print POSIX sh export lines for a manifest") },
	{ "preflight", jp_cmd_preflight, N_("preflight MANIFEST"),
	  N_("print the run's preflight.sh, the check every Worker runs first") },
	{ "export", jp_cmd_export, N_("export --to slurm|pytorchjob [-o FILE] [--force] MANIFEST"),
	  N_("write a Slurm batch script or a Kubeflow PyTorchJob for a manifest") },
	{ "scan", jp_cmd_scan, N_("scan [--quick] [--json] PATH..."),
	  N_("count a data set's files, bytes and archives") },
	{ "repo", jp_cmd_repo, N_("repo [--json] DIR | repo --remote URL [--ref REF]"),
	  N_("describe a checkout, or pin a remote for a launch-command clone") },
	{ "show", jp_cmd_show, N_("show MANIFEST"),
	  N_("summarise a manifest: code, data, outputs, checks, launch command") },
	{ "runs", jp_cmd_runs, N_("runs [--profile FILE] [--json] JOB"),
	  N_("list the runs prepared for a job: folder, when, commit, manifest") },
	{ "schema", jp_cmd_schema, N_("schema"),
	  N_("print the manifest's JSON Schema") },
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

void jp_cli_print_usage(FILE *out)
{
	fprintf(out, "%s\n", _("Usage: jobprep [--demo] [--profile FILE] [-o MANIFEST]"));
	fprintf(out, "%s\n", _("       jobprep COMMAND [OPTIONS] [ARGS]"));
	fprintf(out, "\n%s\n\n",
		_("Get a GPU training job ready to submit: code, data and outputs on storage\n"
		  "every Worker can reach, checked, and written down in a JSON job manifest."));
	fprintf(out, "%s\n", _("Without a command, jobprep runs the interactive wizard (needs a terminal)."));
	fprintf(out, "  %-24s %s\n", "--demo", _("run the wizard in a self-contained sandbox"));
	fprintf(out, "  %-24s %s\n", "--profile FILE", _("platform profile (default: $JOBPREP_PROFILE, else built in)"));
	fprintf(out, "  %-24s %s\n", "-o, --output MANIFEST", _("also write a copy of the manifest there"));
	fprintf(out, "\n%s\n", _("Commands:"));
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(out, "  %s\n        %s\n", _(commands[i].synopsis), _(commands[i].summary));
	fprintf(out, "\n%s\n", _("Exit status: 0 ok (warnings allowed), 1 a check or the work failed,\n"
				 "2 usage error, 3 the manifest, answers or profile file is unreadable\n"
				 "or invalid, 130 interrupted."));
	fprintf(out, "\n  %-24s %s\n", "-h, --help", _("show this help"));
	fprintf(out, "  %-24s %s\n", "-V, --version", _("show the version"));
}

void jp_cli_print_version(FILE *out)
{
	fprintf(out, "jobprep %s\n", PACKAGE_VERSION);
}

int jp_cli_report(const struct jp_error *err)
{
	if (err->n == 0)
		fprintf(stderr, "jobprep: %s\n", jp_strerror(err->code));
	for (size_t i = 0; i < err->n; i++)
		fprintf(stderr, "%s\n", jp_cli_text(err->msgs[i])); /* a server's words too */
	return jp_exit_code(err->code);
}

int jp_cli_report_as(const char *cmd, const struct jp_error *err)
{
	if (err->n == 0)
		fprintf(stderr, "jobprep %s: %s\n", cmd, jp_strerror(err->code));
	for (size_t i = 0; i < err->n; i++)
		fprintf(stderr, "jobprep %s: %s\n", cmd, jp_cli_text(err->msgs[i]));
	return jp_exit_code(err->code);
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

	for (size_t i = 0; i < N_COMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	return jp_cli_usage_error(NULL, _("unknown command '%s'"), name);
}
