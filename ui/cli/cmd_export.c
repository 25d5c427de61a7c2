/* `jobprep export --to slurm|pytorchjob [-o FILE] [--force] MANIFEST`: a job
 * file for an engine, built from a manifest. Refuses a manifest whose checks
 * recorded a failure unless --force. Exit 0 ok, 1 refused or not written,
 * 2 usage, 3 the manifest is unreadable or invalid. */
#include "config.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/export.h"
#include "jobprep/i18n.h"
#include "jobprep/manifest.h"
#include "cli.h"
#include "output.h"

static void usage(FILE *out)
{
	fprintf(out, "%s\n%s\n",
		_("Usage: jobprep export --to slurm|pytorchjob [-o FILE] [--force] MANIFEST"),
		_("Write a job file for an engine from MANIFEST: a Slurm batch script (sbatch)\n"
		  "or a Kubeflow PyTorchJob (kubectl create -f). Both set the manifest's paths\n"
		  "and environment as `jobprep env` does, create the checkpoint and log\n"
		  "directories, and run the launch command.\n"
		  "  --to ENGINE     slurm or pytorchjob\n"
		  "  -o FILE         write to FILE (atomically; a script is made executable)\n"
		  "                  instead of standard output\n"
		  "  --force         export even when the manifest records a failed check"));
}

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

static int write_stdout(const char *text)
{
	fputs(text, stdout);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s\n", _("jobprep export: cannot write to standard output"));
		return JP_EXIT_FAIL;
	}
	return JP_EXIT_OK;
}

int jp_cmd_export(int argc, char **argv)
{
	static const struct option options[] = {
		{ "to", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct jp_error err = JP_ERROR_INIT;
	struct jp_manifest *m = NULL;
	enum jp_export_target target = JP_EXPORT_SLURM;
	const char *to = NULL, *output = NULL, *path;
	bool force = false;
	char *text = NULL;
	unsigned notes = 0;
	int c, rc, status = JP_EXIT_OK;

	optind = 0; /* GNU: start over on this sub-command's argv */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:t:o:fh", options, NULL)) != -1) {
		switch (c) {
		case 't':
			to = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'f':
			force = true;
			break;
		case 'h':
			usage(stdout);
			return JP_EXIT_OK;
		default:
			return jp_cli_option_error("export", c, argv);
		}
	}
	if (!to)
		return jp_cli_usage_error("export", "%s",
					  _("expected --to slurm or --to pytorchjob"));
	if (jp_export_target_from_name(&target, to) < 0)
		return jp_cli_usage_error("export", _("--to: expected slurm or pytorchjob, got '%s'"),
					  to);
	if (argc - optind != 1)
		return jp_cli_usage_error("export", "%s", _("expected one argument: the manifest"));
	path = argv[optind];
	if (output && strcmp(output, "-") == 0)
		output = NULL;

	rc = jp_manifest_load(&m, path, JP_READ_MANIFEST, &err);
	if (rc < 0) {
		status = jp_cli_report(&err);
		goto out;
	}
	if (!force && jp_manifest_worst(m) == JP_CHECK_FAIL) {
		status = refuse_failed(m, path);
		goto out;
	}
	rc = jp_export_render(&text, &notes, m, target, path, &err);
	if (rc == 0 && output)
		rc = jp_file_write_atomic(output, text, strlen(text), jp_export_file_mode(target),
					  &err);
	if (rc < 0) {
		status = jp_cli_report(&err);
		goto out;
	}
	if (notes & JP_EXPORT_NOTE_IMAGE_PLACEHOLDER)
		fprintf(stderr,
			_("jobprep export: warning: %s names no container image; replace %s in "
			  "the PyTorchJob with the image the job runs in before submitting it\n"),
			path, JP_EXPORT_IMAGE_PLACEHOLDER);
	if (!output)
		status = write_stdout(text);
out:
	free(text);
	jp_manifest_free(m);
	jp_error_dispose(&err);
	return status;
}
