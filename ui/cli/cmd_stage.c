/* `jobprep stage [OPTIONS] SOURCE DEST`: put data on shared storage before
 * the job, incrementally and with nothing half-made under a final name.
 * Exit 0 ok, 1 failed, 2 usage, 130/143 interrupted (temporaries removed). */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "jobprep/i18n.h"
#include "jobprep/path.h"
#include "jobprep/pathclass.h"
#include "jobprep/profile.h"
#include "jobprep/stage.h"
#include "jobprep/units.h"
#include "jobprep/url.h"
#include "cli.h"
#include "options.h"
#include "cli_port.h"
#include "output.h"

/* What the command line asked for. */
struct stage_args {
	struct jp_stage_options stage;
	enum jp_cli_progress progress;
	unsigned shards; /* --shards N, with --emit slurm */
	bool json, emit;
	bool within; /* --unpack-archives DIR */
};

static int parse_sha256(void *field, const char *arg, const char *cmd)
{
	if (strlen(arg) != 64 || strspn(arg, "0123456789abcdefABCDEF") != 64)
		return jp_cli_usage_error(cmd, _("--sha256: expected 64 hex digits, got '%s'"), arg);
	*(const char **)field = arg;
	return 0;
}

/* --shard I/N */
static int parse_shard(void *field, const char *arg, const char *cmd)
{
	struct jp_stage_options *opts = field;
	const char *at = arg;
	char *end;
	unsigned long i = strtoul(at, &end, 10), n;

	if (end == at || *end != '/' || at[0] == '-')
		goto bad;
	at = end + 1;
	n = strtoul(at, &end, 10);
	if (end == at || *end || at[0] == '-' || n < 1 || n > 10000 || i >= n)
		goto bad;
	opts->shard = (unsigned)i;
	opts->shards = (unsigned)n;
	return 0;
bad:
	return jp_cli_usage_error(cmd, _("--shard: expected I/N with 0 <= I < N <= 10000, got '%s'"), arg);
}

static int parse_emit(void *field, const char *arg, const char *cmd)
{
	if (strcmp(arg, "slurm") != 0)
		return jp_cli_usage_error(cmd, _("--emit: expected slurm, got '%s'"), arg);
	*(bool *)field = true;
	return 0;
}

#define AT(member) offsetof(struct stage_args, member)
static const struct jp_cli_opt stage_opts[] = {
	{ .name = "verify",
	  .help = N_("a file already there is complete only when its content matches (XXH3)"),
	  .kind = JP_OPT_TRUE, .at = AT(stage.verify) },
	{ .name = "jobs", .arg = "N",
	  .help = N_("parallel writers, 1 to 64 (default 64)"), .kind = JP_OPT_UINT,
	  .at = AT(stage.jobs), .min = 1, .max = JP_STAGE_JOBS_MAX, .range = N_("--jobs: expected 1 to 64, got '%s'") },
	{ .name = "sha256", .short_name = 's', .arg = "HEX",
	  .help = N_("a URL's download must have this SHA-256, else it is removed"),
	  .kind = JP_OPT_CALL, .at = AT(stage.sha256), .parse = parse_sha256, .forms = 1 },
	{ .name = "timeout", .arg = "SECS",
	  .help = N_("a download fails when the server does not connect within SECS or sends less\n"
		     "than 1 KiB/s for SECS on end (default 120); what it received is kept"),
	  .kind = JP_OPT_UINT, .at = AT(stage.timeout_s), .min = 1, .max = 86400,
	  .range = N_("--timeout: expected 1 to 86400 seconds, got '%s'"), .forms = 1 },
	{ .name = "no-unpack", .help = N_("copy an archive (or download one) as it is, not unpacked"),
	  .kind = JP_OPT_TRUE, .at = AT(stage.no_unpack), .forms = 1 },
	{ .name = "shard", .arg = "I/N",
	  .help = N_("stage shard I (0 to N-1) of a directory cut in N by bytes and files"),
	  .kind = JP_OPT_CALL, .at = AT(stage), .parse = parse_shard, .forms = 1 },
	{ .name = "shards", .arg = "N",
	  .help = N_("with --emit slurm: cut the directory in N shards (2 to 10000)"),
	  .kind = JP_OPT_UINT, .at = AT(shards), .min = 2, .max = 10000,
	  .range = N_("--shards: expected 2 to 10000, got '%s'"), .forms = 1 },
	{ .name = "emit", .arg = "slurm",
	  .help = N_("print a script that submits the shards as a Slurm array, then a job over the whole"),
	  .kind = JP_OPT_CALL, .at = AT(emit), .parse = parse_emit, .forms = 1 },
	{ .name = "unpack-archives",
	  .help = N_("unpack each archive the folder DIR holds into a folder beside it named after it\n"
		     "(train.tar -> train/), the archives kept; those unpacked already are left"),
	  .kind = JP_OPT_TRUE, .at = AT(within), .forms = 2, .flags = JP_OPT_REQUIRED },
	{ .name = "json", .short_name = 'j', .help = N_("print the result as JSON"), .kind = JP_OPT_TRUE,
	  .at = AT(json) },
	{ .name = "progress", .help = N_("progress on stderr even when it is not a terminal"),
	  .kind = JP_OPT_SET, .at = AT(progress), .value = JP_CLI_PROGRESS_ALWAYS, .group = 1 },
	{ .name = "no-progress", .help = N_("no progress (by default: when stderr is a terminal)"),
	  .kind = JP_OPT_SET, .at = AT(progress), .value = JP_CLI_PROGRESS_NEVER, .group = 1 },
	JP_OPT_HELP_ENTRY,
};
#undef AT

const struct jp_cli_cmd jp_cli_cmd_stage = {
	.name = "stage",
	.run = jp_cmd_stage,
	.summary = N_("copy, unpack or download data onto shared storage before the job: parallel, resumable, never half-made"),
	.operands = { "SOURCE DEST", "DIR" },
	.description =
		N_("Copy SOURCE (a directory or a file) onto DEST with parallel writers, or unpack\n"
		   "SOURCE (.tar, .tar.gz, .tgz, .tar.zst, .tar.xz, .tar.bz2, .zip) into DEST, or\n"
		   "download an http(s) URL (resumed where a killed run stopped; a token from\n"
		   "JOBPREP_HTTP_TOKEN, never sent to another host) to DEST or unpack it there, or\n"
		   "download a Hugging Face Hub repository (hf://ORG/NAME, hf://datasets/ORG/NAME,\n"
		   "@REVISION; from HF_ENDPOINT, with HF_TOKEN) into the Hub's cache layout under DEST,\n"
		   "for HF_HOME=DEST HF_HUB_OFFLINE=1. A re-run\n"
		   "skips the files already complete (same size and mtime) and deletes nothing;\n"
		   "every file is written under a temporary name and renamed when flushed, so an\n"
		   "interrupted run leaves no half-made file and the next run finishes the work."),
	.footer = N_("With --unpack-archives, unpack the archives a data set DIR already on shared\n"
		     "storage holds, each into the folder beside it, so the job does not."),
	.opts = stage_opts,
	.n_opts = JP_CLI_N(stage_opts),
};

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
						: r->kind == JP_STAGE_HUB     ? "hub"
									      : "dir") ||
	    (r->revision && !cJSON_AddStringToObject(o, "commit", r->revision)) ||
	    !cJSON_AddNumberToObject(o, "files", (double)r->files) ||
	    !cJSON_AddNumberToObject(o, "dirs", (double)r->dirs) ||
	    !cJSON_AddNumberToObject(o, "symlinks", (double)r->symlinks) ||
	    !cJSON_AddNumberToObject(o, "written", (double)r->written) ||
	    !cJSON_AddNumberToObject(o, "bytes_written", (double)r->bytes_written) ||
	    !cJSON_AddNumberToObject(o, "skipped", (double)r->skipped) ||
	    !cJSON_AddNumberToObject(o, "bytes_skipped", (double)r->bytes_skipped) ||
	    !cJSON_AddNumberToObject(o, "bytes_downloaded", (double)r->bytes_downloaded) ||
	    (r->archives + r->already &&
	     (!cJSON_AddNumberToObject(o, "archives", (double)r->archives) ||
	      !cJSON_AddNumberToObject(o, "already", (double)r->already)))) {
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
	if (r->kind == JP_STAGE_ARCHIVE && r->bytes_downloaded) {
		jp_units_format_bytes(written, sizeof(written), r->bytes_downloaded);
		/* TRANSLATORS: after the line of an archive downloaded and unpacked: its
		 * own bytes, apart from the data's */
		printf(_("the archive: %s downloaded\n"), written);
	}
	if (r->kind == JP_STAGE_HUB)
		/* TRANSLATORS: after `jobprep stage hf://ORG/NAME DEST`; %s: DEST */
		printf(_("commit %s, in the Hub's cache layout: the job loads it with "
			 "HF_HOME=%s HF_HUB_OFFLINE=1 (in job.env)\n"),
		       r->revision ? r->revision : "?", jp_cli_name(r->dest));
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
		rc = jp_error_oom(&err);
	} else if (stat(source, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
		rc = jp_error_set(&err, JP_EUSAGE, _("%s: --shard is for a directory source"), source);
	} else {
		rc = jp_stage_slurm_script(&script, exe, src, dst, shards, opts, &err);
	}
	if (rc == 0 && (fputs(script, stdout) == EOF || fflush(stdout) != 0))
		rc = jp_error_set(&err, JP_EIO, _("cannot write the script: %s"), strerror(errno));
	rc = rc ? jp_cli_report("stage", &err) : JP_EXIT_OK;
	free(script);
	free(exe);
	free(src);
	free(dst);
	jp_error_dispose(&err);
	return rc;
}

/* The notes and warnings of a finished run, on stderr. */
static void print_notes(const struct jp_stage_result *res)
{
	for (size_t i = 0; i < res->n_notes; i++)
		fprintf(stderr, _("jobprep stage: note: %s\n"), jp_cli_text(res->notes[i]));
	for (size_t i = 0; i < res->n_outside; i++)
		fprintf(stderr, _("jobprep stage: warning: %s: the symlink leads outside the tree (kept as it is)\n"),
			jp_cli_name(res->outside[i]));
}

/* The profile ($JOBPREP_PROFILE's, else the embedded one) for dest:
 * staging onto a destination a job does not see (ephemeral: wiped when
 * the job ends; local: this machine's only) is done, with a warning
 * first, in the words `jobprep scan` uses for where a path lives; a
 * download leaves the profile's reserve free (opts). */
static void use_profile(const char *dest, struct jp_stage_options *opts)
{
	struct jp_path_info info = JP_PATH_INFO_INIT;
	struct jp_error err = JP_ERROR_INIT;
	struct jp_profile *profile = NULL;

	if (jp_profile_resolve(&profile, NULL, &err) == 0) {
		opts->reserve_bytes = profile->stage_reserve_bytes;
		opts->has_reserve = profile->has_stage_reserve;
	}
	if (profile && jp_stage_where(&info, profile, dest, &err) == 0 &&
	    (info.cls == JP_STORAGE_EPHEMERAL || info.cls == JP_STORAGE_LOCAL) && info.reason)
		fprintf(stderr, _("jobprep stage: warning: %s is not on shared storage: %s: %s\n"),
			jp_cli_name(dest), _(jp_storage_class_name(info.cls)), jp_cli_text(info.reason));
	jp_path_info_dispose(&info);
	jp_profile_free(profile);
	jp_error_dispose(&err);
}

/* --unpack-archives DIR */
static int unpack_within(const char *dir, const struct stage_args *a)
{
	struct jp_stage_result res = JP_STAGE_RESULT_INIT;
	struct jp_error err = JP_ERROR_INIT;
	struct jp_cli_port cp;
	int rc;

	if (!dir)
		return jp_cli_usage_error("stage", "%s", _("--unpack-archives: expected one DIR"));
	if (a->stage.sha256 || a->stage.no_unpack || a->stage.shards || a->emit)
		return jp_cli_usage_error("stage", "%s",
					  _("--unpack-archives goes with --jobs, --verify, --json and "
					    "the progress options only"));
	jp_cli_port_init(&cp, a->progress);
	rc = jp_stage_unpack_within(&res, dir, &a->stage, &cp.port, &err);
	jp_cli_port_finish(&cp);
	if (rc != 0) {
		rc = jp_cli_port_failed("stage", rc, &err);
	} else {
		print_notes(&res);
		if (a->json) {
			rc = print_json(&res);
		} else {
			/* TRANSLATORS: after `jobprep stage --unpack-archives DIR` */
			printf(_("%s: %" PRIu64 " archives unpacked, each into the folder beside it; "
				 "%" PRIu64 " unpacked already\n"),
			       jp_cli_name(dir), res.archives, res.already);
			print_text(&res);
			rc = JP_EXIT_OK;
		}
	}
	jp_stage_result_dispose(&res);
	jp_error_dispose(&err);
	return rc;
}

int jp_cmd_stage(int argc, char **argv)
{
	struct stage_args a = { .stage = JP_STAGE_OPTIONS_INIT, .progress = JP_CLI_PROGRESS_AUTO };
	struct jp_stage_options opts;
	struct jp_stage_result res = JP_STAGE_RESULT_INIT;
	struct jp_error err = JP_ERROR_INIT;
	struct jp_cli_port cp;
	bool json;
	char *source;
	int rc = jp_cli_parse_options(&jp_cli_cmd_stage, argc, argv, &a);

	if (rc >= 0)
		return rc;
	opts = a.stage;
	json = a.json;
	if (a.within)
		return unpack_within(argc - optind == 1 ? argv[optind] : NULL, &a);
	if (argc - optind != 2)
		return jp_cli_usage_error("stage", "%s", _("expected a SOURCE and a DEST"));
	if (a.emit != (a.shards > 0))
		return jp_cli_usage_error("stage", "%s", _("--shards and --emit slurm go together"));
	if (a.emit)
		return emit_slurm(argv[optind], argv[optind + 1], a.shards, &opts);

	/* A token written in a URL: our own copy, blanked out of argv (ps). */
	if (!(source = strdup(argv[optind]))) {
		return jp_cli_report_oom("stage");
	}
	if (strstr(argv[optind], "://"))
		jp_url_blank_credentials(argv[optind]);
	use_profile(argv[optind + 1], &opts);
	jp_cli_port_init(&cp, a.progress);
	rc = jp_stage(&res, source, argv[optind + 1], &opts, &cp.port, &err);
	explicit_bzero(source, strlen(source));
	free(source);
	jp_cli_port_finish(&cp);
	if (rc != 0) {
		rc = jp_cli_port_failed("stage", rc, &err);
	} else {
		print_notes(&res);
		rc = json ? print_json(&res) : (print_text(&res), JP_EXIT_OK);
	}
	jp_stage_result_dispose(&res);
	jp_error_dispose(&err);
	return rc;
}
