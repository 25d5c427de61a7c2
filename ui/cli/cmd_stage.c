/* `jobprep stage [OPTIONS] SOURCE DEST`: put data on shared storage before
 * the job, incrementally and with nothing half-made under a final name.
 * Exit 0 ok, 1 failed, 2 usage, 130/143 interrupted (temporaries removed). */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "jobprep/i18n.h"
#include "jobprep/path.h"
#include "jobprep/stage.h"
#include "jobprep/units.h"
#include "jobprep/url.h"
#include "cli.h"
#include "cli_port.h"
#include "output.h"

/* The options, and their --help lines, in one table. */
static const struct opt {
	const char *name;
	int has_arg;
	int val;
	const char *arg;  /* the argument's name in --help, or NULL */
	const char *help; /* N_() */
} opts_table[] = {
	{ "verify", no_argument, 'v', NULL,
	  N_("a file already there is complete only when its content matches (XXH3)") },
	{ "jobs", required_argument, 'j', "N", N_("parallel writers, 1 to 64 (default 16)") },
	{ "sha256", required_argument, 's', "HEX",
	  N_("a URL's download must have this SHA-256, else it is removed") },
	{ "no-unpack", no_argument, 'U', NULL, N_("copy an archive (or download one) as it is, not unpacked") },
	{ "shard", required_argument, 'S', "I/N",
	  N_("stage shard I (0 to N-1) of a directory cut in N by bytes and files") },
	{ "shards", required_argument, 'n', "N",
	  N_("with --emit slurm: cut the directory in N shards (2 to 10000)") },
	{ "emit", required_argument, 'E', "slurm",
	  N_("print a script that submits the shards as a Slurm array, then a job over the whole") },
	{ "json", no_argument, 'J', NULL, N_("print the result as JSON") },
	{ "progress", no_argument, 'P', NULL, N_("progress on stderr even when it is not a terminal") },
	{ "no-progress", no_argument, 'N', NULL, N_("no progress (by default: when stderr is a terminal)") },
	{ "help", no_argument, 'h', NULL, N_("show this help") },
};

#define N_OPTS (sizeof(opts_table) / sizeof(opts_table[0]))

static void usage(FILE *out)
{
	fprintf(out, "%s\n%s\n",
		_("Usage: jobprep stage [--verify] [--jobs N] [--sha256 HEX] [--no-unpack] [--json] [--no-progress]\n"
		  "                     SOURCE DEST"),
		_("Copy SOURCE (a directory or a file) onto DEST with parallel writers, or unpack\n"
		  "SOURCE (.tar, .tar.gz, .tgz, .tar.zst, .tar.xz, .tar.bz2, .zip) into DEST, or\n"
		  "download an http(s) URL (resumed where a killed run stopped; a token from\n"
		  "JOBPREP_HTTP_TOKEN, never sent to another host) to DEST or unpack it there. A re-run\n"
		  "skips the files already complete (same size and mtime) and deletes nothing;\n"
		  "every file is written under a temporary name and renamed when flushed, so an\n"
		  "interrupted run leaves no half-made file and the next run finishes the work."));
	for (size_t i = 0; i < N_OPTS; i++) {
		char left[64];

		snprintf(left, sizeof(left), "--%s%s%s", opts_table[i].name,
			 opts_table[i].arg ? " " : "", opts_table[i].arg ? opts_table[i].arg : "");
		fprintf(out, "  %-20s %s\n", left, _(opts_table[i].help));
	}
}

static int print_json(const struct jp_stage_result *r)
{
	cJSON *o = cJSON_CreateObject(), *links = cJSON_CreateArray();
	int rc;

	if (!o || !links) {
		cJSON_Delete(o);
		cJSON_Delete(links);
		return JP_EXIT_FAIL;
	}
	cJSON_AddItemToObject(o, "symlinks_outside", links);
	for (size_t i = 0; i < r->n_outside; i++)
		cJSON_AddItemToArray(links, cJSON_CreateString(r->outside[i]));
	if ((links = cJSON_AddArrayToObject(o, "notes")) != NULL)
		for (size_t i = 0; i < r->n_notes; i++)
			cJSON_AddItemToArray(links, cJSON_CreateString(r->notes[i]));
	if (!cJSON_AddStringToObject(o, "dest", r->dest) ||
	    !cJSON_AddStringToObject(o, "kind", r->kind == JP_STAGE_FILE      ? "file"
						: r->kind == JP_STAGE_ARCHIVE ? "archive"
									      : "dir") ||
	    !cJSON_AddNumberToObject(o, "files", (double)r->files) ||
	    !cJSON_AddNumberToObject(o, "dirs", (double)r->dirs) ||
	    !cJSON_AddNumberToObject(o, "symlinks", (double)r->symlinks) ||
	    !cJSON_AddNumberToObject(o, "written", (double)r->written) ||
	    !cJSON_AddNumberToObject(o, "bytes_written", (double)r->bytes_written) ||
	    !cJSON_AddNumberToObject(o, "skipped", (double)r->skipped) ||
	    !cJSON_AddNumberToObject(o, "bytes_skipped", (double)r->bytes_skipped)) {
		cJSON_Delete(o);
		return JP_EXIT_FAIL;
	}
	rc = jp_cli_print_json(o) < 0 ? JP_EXIT_FAIL : JP_EXIT_OK;
	cJSON_Delete(o);
	return rc;
}

static void print_text(const struct jp_stage_result *r)
{
	char written[32], skipped[32];

	jp_units_format_bytes(written, sizeof(written), r->bytes_written);
	jp_units_format_bytes(skipped, sizeof(skipped), r->bytes_skipped);
	printf(_("%s: %" PRIu64 " files, %" PRIu64 " written (%s), %" PRIu64
		 " already complete (%s)\n"),
	       jp_cli_name(r->dest), r->files + r->symlinks, r->written, written, r->skipped,
	       skipped);
}

/* --shard I/N */
static int parse_shard(const char *arg, struct jp_stage_options *opts)
{
	char *end;
	unsigned long i = strtoul(arg, &end, 10), n;

	if (end == arg || *end != '/' || arg[0] == '-')
		return -1;
	arg = end + 1;
	n = strtoul(arg, &end, 10);
	if (end == arg || *end || arg[0] == '-' || n < 1 || n > 10000 || i >= n)
		return -1;
	opts->shard = (unsigned)i;
	opts->shards = (unsigned)n;
	return 0;
}

/* --shards N --emit slurm: the submit script on stdout */
static int emit_slurm(const char *source, const char *dest, unsigned shards,
		      const struct jp_stage_options *opts)
{
	struct jp_error err = JP_ERROR_INIT;
	char *exe = realpath("/proc/self/exe", NULL);
	char *src = jp_path_absolute(source), *dst = jp_path_absolute(dest);
	char *script = NULL;
	struct stat sb;
	int rc;

	if (!exe || !src || !dst) {
		rc = jp_error_set(&err, JP_ENOMEM, "%s", _("out of memory"));
	} else if (stat(source, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
		rc = jp_error_set(&err, JP_EUSAGE, _("%s: --shard is for a directory source"), source);
	} else {
		rc = jp_stage_slurm_script(&script, exe, src, dst, shards, opts, &err);
	}
	if (rc == 0 && (fputs(script, stdout) == EOF || fflush(stdout) != 0))
		rc = jp_error_set(&err, JP_EIO, _("stage: cannot write the script: %s"), strerror(errno));
	rc = rc ? jp_cli_report(&err) : JP_EXIT_OK;
	free(script);
	free(exe);
	free(src);
	free(dst);
	jp_error_dispose(&err);
	return rc;
}

int jp_cmd_stage(int argc, char **argv)
{
	struct option longopts[N_OPTS + 1];
	struct jp_stage_options opts = JP_STAGE_OPTIONS_INIT;
	struct jp_stage_result res = JP_STAGE_RESULT_INIT;
	struct jp_error err = JP_ERROR_INIT;
	enum jp_cli_progress progress = JP_CLI_PROGRESS_AUTO;
	struct jp_cli_port cp;
	bool json = false, emit = false;
	unsigned shards = 0;
	char *source;
	int c, rc;

	for (size_t i = 0; i < N_OPTS; i++)
		longopts[i] = (struct option){ opts_table[i].name, opts_table[i].has_arg, NULL,
					       opts_table[i].val };
	longopts[N_OPTS] = (struct option){ NULL, 0, NULL, 0 };
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:j:s:h", longopts, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'v':
			opts.verify = true;
			break;
		case 'j':
			opts.jobs = (unsigned)strtoul(optarg, &end, 10);
			if (*end || opts.jobs < 1 || opts.jobs > 64)
				return jp_cli_usage_error("stage", _("--jobs: expected 1 to 64, got '%s'"), optarg);
			break;
		case 's':
			if (strlen(optarg) != 64 || strspn(optarg, "0123456789abcdefABCDEF") != 64)
				return jp_cli_usage_error("stage", _("--sha256: expected 64 hex digits, got '%s'"), optarg);
			opts.sha256 = optarg;
			break;
		case 'U':
			opts.no_unpack = true;
			break;
		case 'S':
			if (parse_shard(optarg, &opts) != 0)
				return jp_cli_usage_error("stage", _("--shard: expected I/N with 0 <= I < N <= 10000, got '%s'"),
							  optarg);
			break;
		case 'n':
			shards = (unsigned)strtoul(optarg, &end, 10);
			if (*end || shards < 2 || shards > 10000)
				return jp_cli_usage_error("stage", _("--shards: expected 2 to 10000, got '%s'"), optarg);
			break;
		case 'E':
			if (strcmp(optarg, "slurm") != 0)
				return jp_cli_usage_error("stage", _("--emit: expected slurm, got '%s'"), optarg);
			emit = true;
			break;
		case 'J':
			json = true;
			break;
		case 'P':
			progress = JP_CLI_PROGRESS_ALWAYS;
			break;
		case 'N':
			progress = JP_CLI_PROGRESS_NEVER;
			break;
		case 'h':
			usage(stdout);
			return JP_EXIT_OK;
		default:
			return jp_cli_option_error("stage", c, argv);
		}
	}
	if (argc - optind != 2)
		return jp_cli_usage_error("stage", "%s", _("expected a SOURCE and a DEST"));
	if (emit != (shards > 0))
		return jp_cli_usage_error("stage", "%s", _("--shards and --emit slurm go together"));
	if (emit)
		return emit_slurm(argv[optind], argv[optind + 1], shards, &opts);

	/* A token written in a URL: our own copy, blanked out of argv (ps). */
	if (!(source = strdup(argv[optind]))) {
		fprintf(stderr, "jobprep: %s\n", _("out of memory"));
		return JP_EXIT_FAIL;
	}
	if (strstr(argv[optind], "://"))
		jp_url_blank_credentials(argv[optind]);
	jp_cli_port_init(&cp, progress);
	rc = jp_stage(&res, source, argv[optind + 1], &opts, &cp.port, &err);
	explicit_bzero(source, strlen(source));
	free(source);
	jp_cli_port_finish(&cp);
	if (rc != 0) {
		bool stopped = rc == JP_ECANCELED && jp_cli_interrupted();

		rc = jp_cli_report(&err);
		if (stopped)
			rc = jp_cli_exit_interrupted();
	} else {
		for (size_t i = 0; i < res.n_notes; i++)
			fprintf(stderr, _("jobprep stage: note: %s\n"), jp_cli_text(res.notes[i]));
		for (size_t i = 0; i < res.n_outside; i++)
			fprintf(stderr, _("jobprep stage: warning: %s: the symlink leads outside the tree (kept as it is)\n"),
				jp_cli_name(res.outside[i]));
		rc = json ? print_json(&res) : (print_text(&res), JP_EXIT_OK);
	}
	jp_stage_result_dispose(&res);
	jp_error_dispose(&err);
	return rc;
}
