/* `jobprep export --to slurm|pytorchjob [-o FILE] [--force] MANIFEST`: a job
 * file for an engine, built from a manifest. Refuses a manifest whose checks
 * recorded a failure, or whose launch command (launch_clone) does not clone
 * the pinned commit first, unless --force. Every file carries a digest line
 * (jp_export_stamp); -o replaces an existing FILE only when it is an export
 * nobody edited since, unless --force. Exit 0 ok, 1 refused or not written,
 * 2 usage, 3 the manifest is unreadable or invalid. */
#include "config.h"

#include <getopt.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/export.h"
#include "jobprep/i18n.h"
#include "jobprep/lint.h"
#include "jobprep/manifest.h"
#include "cli.h"
#include "options.h"
#include "output.h"

/* What the command line asked for. */
struct export_args {
	const char *to, *output;
	const char *image, *k8s_namespace, *priority_class, *queue;
	const char *partition, *account, *qos, *time;
	bool force;
};

#define AT(member) offsetof(struct export_args, member)

static const struct jp_cli_opt export_opts[] = {
	{ .name = "to", .short_name = 't', .arg = "slurm|pytorchjob",
	  .help = N_("the engine: slurm or pytorchjob"), .kind = JP_OPT_STRING,
	  .at = offsetof(struct export_args, to), .flags = JP_OPT_REQUIRED },
	{ .name = "output", .short_name = 'o', .arg = "FILE",
	  .help = N_("write to FILE (atomically; a script is made executable) "
		     "instead of standard output; an existing FILE is replaced "
		     "only when it is an earlier export nobody edited in "
		     "jobprep's lines (its digest line still matches), and the "
		     "values that are yours in it are kept"),
	  .kind = JP_OPT_STRING, .at = offsetof(struct export_args, output),
	  .flags = JP_OPT_SYN_SHORT },
	{ .name = "image", .short_name = 'i', .arg = "IMAGE",
	  .help = N_("PyTorchJob: the container image (default: the manifest's code.image; "
		     "else the one in the FILE -o replaces)"),
	  .kind = JP_OPT_STRING, .at = AT(image) },
	{ .name = "namespace", .short_name = 'n', .arg = "NAMESPACE",
	  .help = N_("PyTorchJob: its metadata.namespace"), .kind = JP_OPT_STRING,
	  .at = AT(k8s_namespace) },
	{ .name = "queue", .arg = "QUEUE",
	  .help = N_("PyTorchJob: the Kueue queue (the label kueue.x-k8s.io/queue-name)"),
	  .kind = JP_OPT_STRING, .at = AT(queue) },
	{ .name = "priority-class", .arg = "NAME",
	  .help = N_("PyTorchJob: each Pod's priorityClassName"), .kind = JP_OPT_STRING,
	  .at = AT(priority_class) },
	{ .name = "partition", .arg = "NAME",
	  .help = N_("Slurm: #SBATCH --partition (default: the one in the FILE -o replaces, "
		     "else the profile's)"),
	  .kind = JP_OPT_STRING, .at = AT(partition) },
	{ .name = "account", .arg = "NAME", .help = N_("Slurm: #SBATCH --account"),
	  .kind = JP_OPT_STRING, .at = AT(account) },
	{ .name = "qos", .arg = "NAME", .help = N_("Slurm: #SBATCH --qos"), .kind = JP_OPT_STRING,
	  .at = AT(qos) },
	{ .name = "time", .arg = "LIMIT", .help = N_("Slurm: #SBATCH --time"),
	  .kind = JP_OPT_STRING, .at = AT(time) },
	{ .name = "force", .short_name = 'f',
	  .help = N_("export even when the manifest records a failed check or "
		     "its launch command does not clone the pinned code first, "
		     "and let -o replace any FILE (the values that are yours, "
		     "such as the image or the partition, are still kept)"),
	  .kind = JP_OPT_TRUE, .at = AT(force) },
	JP_OPT_HELP_ENTRY,
};
#undef AT

const struct jp_cli_cmd jp_cli_cmd_export = {
	.name = "export",
	.run = jp_cmd_export,
	.summary = N_("write a Slurm batch script or a Kubeflow PyTorchJob for a manifest"),
	.operands = { "MANIFEST" },
	.description =
		N_("Write a job file for an engine from MANIFEST: a Slurm batch script (sbatch)\n"
		   "or a Kubeflow PyTorchJob (kubectl create -f). Both set the manifest's paths\n"
		   "and environment as `jobprep env` does, create the checkpoint and log\n"
		   "directories, and run the launch command. What the manifest does not hold\n"
		   "(a PyTorchJob's image, namespace, queue, priority class; a Slurm script's\n"
		   "partition, account, QoS, time) comes from the options, else from the\n"
		   "export -o replaces, which keeps them (the profile's Slurm values last)."),
	.opts = export_opts,
	.n_opts = JP_CLI_N(export_opts),
};

/* A manifest whose checks failed is not ready to run: say which. */
static int refuse_failed(const struct jp_manifest *m, const char *path)
{
	fprintf(stderr, _("jobprep export: %s: the manifest records failed checks; fix them and "
			  "run `jobprep check`, or export anyway with --force:\n"),
		path);
	for (size_t i = 0; i < m->n_checks; i++) {
		const struct jp_check *c = &m->checks[i];

		if (c->status != JP_CHECK_FAIL)
			continue;
		fprintf(stderr, "  %s", c->id);
		if (c->message)
			fprintf(stderr, ": %s", c->message);
		fputc('\n', stderr);
	}
	return JP_EXIT_FAIL;
}

/* The lint's failing findings now (a launch_clone command that does not
 * clone the pinned commit first, an output on the wiped disk, a file not
 * in the code), whatever checks the manifest recorded. */
static int refuse_unpinned(const struct jp_manifest *m, const char *path)
{
	struct jp_lint_report r = JP_LINT_REPORT_INIT;
	struct jp_error err = JP_ERROR_INIT;
	int status = JP_EXIT_OK;

	if (jp_lint_manifest_report(&r, m, NULL, &err) < 0) {
		status = jp_cli_report("export", &err);
		goto out;
	}
	for (size_t i = 0; i < r.n; i++) {
		/* the export starts the job in the project: a relative script is found */
		if (!r.items[i].fails || r.items[i].platform_only)
			continue;
		if (status == JP_EXIT_OK && r.items[i].kind == JP_LINT_CLONE_FIRST)
			fprintf(stderr,
				_("jobprep export: %s: the job would run without its code; fix the "
				  "launch command, or export anyway with --force:\n"),
				path);
		else if (status == JP_EXIT_OK)
			fprintf(stderr,
				_("jobprep export: %s: the launch command fails its checks; fix it, "
				  "or export anyway with --force:\n"),
				path);
		fprintf(stderr, "  %s: %s\n", r.items[i].id, r.items[i].message);
		status = JP_EXIT_FAIL;
	}
out:
	jp_lint_report_dispose(&r);
	jp_error_dispose(&err);
	return status;
}

static int write_stdout(const char *text)
{
	fputs(text, stdout);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s\n", _("jobprep export: cannot write to standard output"));
		return JP_EXIT_FAIL;
	}
	return JP_EXIT_OK;
}

/* The options over what the file being replaced holds; a usage error's
 * exit code when one is too long, else -1. */
static int fill_from_options(struct jp_export_fill *fill, const struct export_args *a)
{
	const struct {
		const char *opt, *value;
		char *field;
	} given[] = {
		{ "--image", a->image, fill->image },
		{ "--namespace", a->k8s_namespace, fill->k8s_namespace },
		{ "--priority-class", a->priority_class, fill->priority_class },
		{ "--queue", a->queue, fill->queue },
		{ "--partition", a->partition, fill->partition },
		{ "--account", a->account, fill->account },
		{ "--qos", a->qos, fill->qos },
		{ "--time", a->time, fill->time },
	};

	for (size_t i = 0; i < sizeof(given) / sizeof(given[0]); i++) {
		if (!given[i].value)
			continue;
		if (strlen(given[i].value) >= JP_EXPORT_FILL_MAX)
			return jp_cli_usage_error("export", _("%s: expected at most %d bytes"),
						  given[i].opt, JP_EXPORT_FILL_MAX - 1);
		snprintf(given[i].field, JP_EXPORT_FILL_MAX, "%s", given[i].value);
	}
	return -1;
}

/* Each engine's own options only: -1, or the usage error's exit code. */
static int engine_options(enum jp_export_target target, const struct export_args *a)
{
	if (target == JP_EXPORT_SLURM && (a->image || a->k8s_namespace || a->priority_class || a->queue))
		return jp_cli_usage_error("export", "%s",
					  _("--image, --namespace, --priority-class and --queue go "
					    "with --to pytorchjob"));
	if (target == JP_EXPORT_PYTORCHJOB && (a->partition || a->account || a->qos || a->time))
		return jp_cli_usage_error("export", "%s",
					  _("--partition, --account, --qos and --time go with --to "
					    "slurm"));
	return -1;
}

/* Forget what of the file's is the other engine's. */
static void keep_own(struct jp_export_fill *fill, enum jp_export_target target)
{
	if (target == JP_EXPORT_SLURM) {
		fill->image[0] = fill->k8s_namespace[0] = fill->priority_class[0] = fill->queue[0] = '\0';
	} else {
		fill->partition[0] = fill->account[0] = fill->qos[0] = fill->time[0] = '\0';
	}
}

/* May -o replace what is there? 0 (kept: the person's values in it),
 * JP_EXIT_FAIL after saying why not, or a failure in err. With --force
 * only the values matter: what cannot be looked at keeps none. */
static int look_at_output(struct jp_export_fill *kept, const char *output, bool force,
			  struct jp_error *err)
{
	int rc = jp_export_may_replace(output, force, kept, err);

	if (rc == 0)
		return 0;
	if (force) {
		memset(kept, 0, sizeof(*kept));
		jp_error_clear(err);
		return 0;
	}
	if (rc == JP_EREFUSED) {
		fprintf(stderr,
			_("jobprep export: %s; export to another file, or replace it "
			  "with --force\n"),
			jp_error_message(err));
		return JP_EXIT_FAIL;
	}
	return rc;
}

int jp_cmd_export(int argc, char **argv)
{
	struct export_args a = { 0 };
	struct jp_error err = JP_ERROR_INIT;
	struct jp_export_fill fill;
	struct jp_manifest *m = NULL;
	enum jp_export_target target = JP_EXPORT_SLURM;
	const char *output, *path;
	char *text = NULL, *stamped = NULL;
	unsigned notes = 0;
	int rc = 0, status = jp_cli_parse_options(&jp_cli_cmd_export, argc, argv, &a);

	if (status >= 0)
		return status;
	status = JP_EXIT_OK;
	output = a.output;
	memset(&fill, 0, sizeof(fill));
	if (!a.to)
		return jp_cli_usage_error("export", "%s",
					  _("expected --to slurm or --to pytorchjob"));
	if (jp_export_target_from_name(&target, a.to) < 0)
		return jp_cli_usage_error("export", _("--to: expected slurm or pytorchjob, got '%s'"),
					  a.to);
	if ((rc = engine_options(target, &a)) >= 0)
		return rc;
	if (argc - optind != 1)
		return jp_cli_usage_error("export", "%s", _("expected one argument: the manifest"));
	path = argv[optind];
	if (output && strcmp(output, "-") == 0)
		output = NULL;

	rc = jp_manifest_load(&m, path, JP_READ_MANIFEST, &err);
	if (rc < 0) {
		status = jp_cli_report("export", &err);
		goto out;
	}
	if (!a.force && jp_manifest_worst(m) == JP_CHECK_FAIL) {
		status = refuse_failed(m, path);
		goto out;
	}
	if (!a.force && (status = refuse_unpinned(m, path)) != JP_EXIT_OK)
		goto out;
	/* what the file being replaced holds of the person's, then the options */
	if (output && (rc = look_at_output(&fill, output, a.force, &err)) != 0) {
		status = rc > 0 ? rc : jp_cli_report("export", &err);
		goto out;
	}
	/* only this engine's (the file may be the other's), and an image the
	 * manifest names is the manifest's, not the file's */
	keep_own(&fill, target);
	if (m->code.image)
		fill.image[0] = '\0';
	if ((rc = fill_from_options(&fill, &a)) >= 0) {
		status = rc;
		goto out;
	}
	rc = jp_export_render(&text, &notes, m, target, &fill, path, &err);
	if (rc == 0)
		rc = jp_export_stamp(&stamped, text, &err);
	if (rc == 0 && output)
		rc = jp_file_write_atomic(output, stamped, strlen(stamped),
					  jp_export_file_mode(target), &err);
	if (rc < 0) {
		status = jp_cli_report("export", &err);
		goto out;
	}
	if (notes & JP_EXPORT_NOTE_IMAGE_PLACEHOLDER)
		fprintf(stderr,
			_("jobprep export: warning: %s names no container image; replace %s in "
			  "the PyTorchJob with the image the job runs in, or export with --image, "
			  "before submitting it\n"),
			path, JP_EXPORT_IMAGE_PLACEHOLDER);
	if (!output)
		status = write_stdout(stamped);
out:
	free(stamped);
	free(text);
	jp_manifest_free(m);
	jp_error_dispose(&err);
	return status;
}
