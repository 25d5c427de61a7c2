/* `jobprep show MANIFEST`: what a manifest says, for a person: the job,
 * the code and its commit, the data with their sizes, the outputs, the
 * checks counted (warnings and failures listed) and the launch line. */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/i18n.h"
#include "jobprep/manifest.h"
#include "jobprep/path.h"
#include "jobprep/shellwords.h"
#include "jobprep/units.h"
#include "cli.h"
#include "options.h"
#include "output.h"

static const struct jp_cli_opt show_opts[] = { JP_OPT_HELP_ENTRY };

const struct jp_cli_cmd jp_cli_cmd_show = {
	.name = "show",
	.run = jp_cmd_show,
	.summary = N_("summarise a manifest: code, data, outputs, checks, launch command"),
	.operands = { "MANIFEST" },
	.description = N_("Summarise MANIFEST: the job, the code and its commit, the data with their\n"
			  "sizes, the outputs, the checks (warnings and failures listed) and the\n"
			  "launch command."),
	.opts = show_opts,
	.n_opts = JP_CLI_N(show_opts),
};

static void field(const char *label, const char *value)
{
	printf("  %-14s %s\n", label, value ? jp_cli_text(value) : "-");
}

static void show_code(const struct jp_code *c)
{
	const char *src = jp_code_source_name(c->source);

	printf("%s\n", _("Code:"));
	field(_("source"), src);
	if (c->source == JP_CODE_IMAGE)
		field(_("image"), c->image);
	field(_("path"), c->path);
	if (c->repo_url) {
		field(_("repository"), c->repo_url);
		field(_("ref"), c->repo_ref);
		field(_("commit"), c->repo_commit);
	}
}

/* Where jobprep staged a data source from, when it did. */
static void show_origin(const struct jp_data_origin *o)
{
	if (!o->from)
		return;
	/* TRANSLATORS: "staged from SOURCE (dir|file|archive|url) at TIME" */
	printf(_("    staged from %s (%s) at %s\n"), jp_cli_name(o->from),
	       jp_origin_kind_name(o->kind), o->staged_at ? o->staged_at : "?");
	if (o->digest_algorithm && o->digest)
		printf("    %s %s\n", o->digest_algorithm, o->digest);
}

static void show_data(const struct jp_manifest *m)
{
	printf("%s\n", _("Data:"));
	if (m->n_data == 0)
		printf("  %s\n", _("(none)"));
	for (size_t i = 0; i < m->n_data; i++) {
		const struct jp_data_source *d = &m->data[i];
		char size[16];

		printf("  %s (%s%s): %s\n", jp_cli_name(d->name), jp_data_kind_name(d->kind),
		       d->read_only ? _(", read-only") : "", jp_cli_name(d->path));
		show_origin(&d->origin);
		if (!d->has_stats)
			continue;
		/* TRANSLATORS: a data source's files, size and archives */
		printf("    ");
		printf(P_("%" PRIu64 " file", "%" PRIu64 " files", d->stats.files), d->stats.files);
		printf(", %s, ", jp_units_format_bytes(size, sizeof(size), d->stats.bytes));
		printf(P_("%" PRIu64 " archive\n", "%" PRIu64 " archives\n", d->stats.archives),
		       d->stats.archives);
	}
}

static void show_checks(const struct jp_manifest *m)
{
	size_t counts[3];

	jp_cli_count_checks(counts, m);
	printf("%s ", _("Checks:"));
	jp_cli_print_counts(counts);
	for (int s = JP_CHECK_FAIL; s >= JP_CHECK_WARN; s--)
		for (size_t i = 0; i < m->n_checks; i++)
			if ((int)m->checks[i].status == s)
				printf("  [%s] %s: %s\n", jp_cli_check_label(m->checks[i].status),
				       jp_cli_text(m->checks[i].id), jp_cli_text(m->checks[i].message));
}

/* The line for the platform's form, as init and the wizard print it: the
 * run's env.sh and preflight.sh (beside the manifest in the run's folder),
 * then the job's launch command. NULL when out of memory or unknown. */
static char *platform_line(const struct jp_manifest *m)
{
	char *env = NULL, *pf = NULL, *qenv = NULL, *qpf = NULL, *line = NULL;

	if (!m->job.launch_command || !m->outputs.output_dir)
		return NULL;
	env = jp_path_join(m->outputs.output_dir, "env.sh");
	pf = jp_path_join(m->outputs.output_dir, "preflight.sh");
	if (env && pf && jp_sh_quote(&qenv, env) == 0 && jp_sh_quote(&qpf, pf) == 0 &&
	    asprintf(&line, "exec </dev/null && . %s && sh %s && %s", qenv, qpf,
		     m->job.launch_command) < 0)
		line = NULL;
	free(env);
	free(pf);
	free(qenv);
	free(qpf);
	return line;
}

static void show(const struct jp_manifest *m)
{
	char *line = platform_line(m);

	char workers[64];

	printf("%s %s\n", _("Job:"), m->job.name ? jp_cli_name(m->job.name) : "-");
	snprintf(workers, sizeof(workers), "%" PRId64 " x %" PRId64, m->job.workers,
		 m->job.gpus_per_worker);
	field(_("Workers x GPUs"), workers);
	field(_("created"), m->created_at);
	show_code(&m->code);
	show_data(m);
	printf("%s\n", _("Outputs:"));
	field(_("output"), m->outputs.output_dir);
	field(_("checkpoints"), m->outputs.checkpoint_dir);
	field(_("logs"), m->outputs.log_dir);
	if (m->job.resume_from) /* RESUME_FROM in env.sh */
		field(_("resumes from"), m->job.resume_from);
	show_checks(m);
	printf("%s\n  %s\n", _("Launch command for the platform's form:"),
	       line ? jp_cli_text(line) : m->job.launch_command ? jp_cli_text(m->job.launch_command) : "-");
	free(line);
}

int jp_cmd_show(int argc, char **argv)
{
	struct jp_error err = JP_ERROR_INIT;
	struct jp_manifest *m = NULL;
	int status = jp_cli_parse_options(&jp_cli_cmd_show, argc, argv, NULL);

	if (status >= 0)
		return status;
	status = JP_EXIT_OK;
	if (argc - optind != 1)
		return jp_cli_usage_error("show", "%s", _("expected one argument: the manifest"));
	if (jp_manifest_load(&m, argv[optind], JP_READ_MANIFEST, &err) < 0) {
		status = jp_cli_report("show", &err);
		goto out;
	}
	show(m);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s\n", _("jobprep show: cannot write to standard output"));
		status = JP_EXIT_FAIL;
	}
out:
	jp_manifest_free(m);
	jp_error_dispose(&err);
	return status;
}
