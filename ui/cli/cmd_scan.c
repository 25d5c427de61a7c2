/* `jobprep scan [--quick] [--json] [--threads N] [--profile FILE] PATH...`:
 * data-set statistics (files, bytes, archives with the manifest's `stats`
 * names) and what would trouble a job: unreadable entries, symlinks leaving
 * the data set, archives to unpack, and where the data lives. Exit 0 when
 * every path was scanned, 1 when one could not be, 3 for a bad profile,
 * 128 + the signal when interrupted (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP). */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <inttypes.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "jobprep/i18n.h"
#include "jobprep/path.h"
#include "jobprep/pathclass.h"
#include "jobprep/probe.h"
#include "jobprep/profile.h"
#include "jobprep/scan.h"
#include "jobprep/shellwords.h"
#include "jobprep/stage.h"
#include "jobprep/units.h"
#include "cli.h"
#include "options.h"
#include "output.h"
#include "signals.h"

#define EXAMPLES 5

/* The first few notable entries of each kind, kept for the report. */
struct examples {
	char *v[4][EXAMPLES];
	size_t n[4];
	char *targets[EXAMPLES]; /* for LINK_OUTSIDE */
	int errnums[EXAMPLES];   /* for UNREADABLE */
	/* archives with the folder they unpack into beside them (jobprep
	 * stage --unpack-archives), as the scan looked them up (the first
	 * JP_SCAN_UNPACKED_LOOKUPS) */
	uint64_t unpacked;
};

static int on_item(const struct jp_scan_item *item, void *payload)
{
	struct examples *ex = payload;
	size_t k = (size_t)item->kind;
	if (item->kind == JP_SCAN_ITEM_ARCHIVE && item->unpacked == 1) {
		ex->unpacked++;
		return 0;
	}
	if (k >= 4 || ex->n[k] >= EXAMPLES)
		return 0;
	char *copy = strdup(item->path);
	if (!copy)
		return 0;
	if (item->kind == JP_SCAN_ITEM_LINK_OUTSIDE)
		ex->targets[ex->n[k]] = item->target ? strdup(item->target) : NULL;
	if (item->kind == JP_SCAN_ITEM_UNREADABLE)
		ex->errnums[ex->n[k]] = item->errnum;
	ex->v[k][ex->n[k]++] = copy;
	return 0;
}

static void examples_dispose(struct examples *ex)
{
	for (size_t k = 0; k < 4; k++)
		for (size_t i = 0; i < ex->n[k]; i++)
			free(ex->v[k][i]);
	for (size_t i = 0; i < EXAMPLES; i++)
		free(ex->targets[i]);
	memset(ex, 0, sizeof(*ex));
}

struct progress_state {
	bool shown;
};

static int on_progress(const struct jp_progress *p, void *payload)
{
	struct progress_state *ps = payload;
	if (p->phase == JP_PHASE_DONE)
		return 0;
	char bytes[32];
	jp_units_format_bytes(bytes, sizeof(bytes), p->bytes);
	const char *what = p->what ? p->what : "";
	size_t wl = strlen(what);
	if (wl > 50)
		what += wl - 50;
	fprintf(stderr, "\r\033[K%s %" PRIu64 " %s, %s  %s", _("scanning:"), p->done, _("entries"),
		bytes, jp_cli_text(what));
	fflush(stderr);
	ps->shown = true;
	return jp_signals_first() ? -1 : 0;
}

/* The `jobprep stage` line that unpacks a folder's archives where they
 * are, when one of those shown is still packed (those the scan found
 * unpacked are not shown). */
static void print_stage_hint(const char *path, const struct jp_scan_result *r,
			     const struct examples *ex)
{
	bool packed = false;
	char *abs, *q = NULL, *line = NULL;

	for (size_t i = 0; r->dirs && i < ex->n[JP_SCAN_ITEM_ARCHIVE] && !packed; i++) {
		char *beside = jp_stage_beside(ex->v[JP_SCAN_ITEM_ARCHIVE][i]);
		packed = beside != NULL;
		free(beside);
	}
	if (!packed || !(abs = jp_path_absolute(path)))
		return;
	if (jp_sh_quote(&q, abs) == 0 && asprintf(&line, "jobprep stage --unpack-archives %s", q) >= 0)
		printf(_("  to unpack each into the folder beside it before the job: %s\n"),
		       jp_cli_text(line));
	free(line);
	free(q);
	free(abs);
}

static void print_text(const char *path, const struct jp_scan_result *r,
		       const struct examples *ex, const struct jp_path_info *info, bool quick)
{
	char size[32], asize[32];
	const char *lb = r->complete ? "" : _("at least ");

	jp_units_format_bytes(size, sizeof(size), r->stats.bytes);
	printf("%s\n", jp_cli_name(path));
	if (info && info->reason)
		printf("  %s: %s\n", jp_storage_class_name(info->cls), jp_cli_text(info->reason));
	if (info && info->warning)
		printf("  %s %s\n", _("warning:"), jp_cli_text(info->warning));
	printf("  %s", lb);
	printf(P_("%" PRIu64 " file", "%" PRIu64 " files", r->stats.files), r->stats.files);
	printf(", %s (", size);
	printf(P_("%" PRIu64 " byte", "%" PRIu64 " bytes", r->stats.bytes), r->stats.bytes);
	printf("), ");
	printf(P_("%" PRIu64 " directory", "%" PRIu64 " directories", r->dirs), r->dirs);
	printf(", ");
	printf(P_("%" PRIu64 " symlink\n", "%" PRIu64 " symlinks\n", r->symlinks), r->symlinks);
	if (quick && !r->complete)
		printf(P_("  quick look: %" PRIu64 " entry at the top level; stopped after %.2f s "
			  "(run without --quick for exact counts)\n",
			  "  quick look: %" PRIu64 " entries at the top level; stopped after %.2f s "
			  "(run without --quick for exact counts)\n",
			  r->top_entries),
		       r->top_entries, r->seconds);
	if (r->temporaries)
		printf(P_("  %s%" PRIu64 " temporary of a `jobprep stage` (or clone) that has not "
			  "finished: the data set is not complete\n",
			  "  %s%" PRIu64 " temporaries of a `jobprep stage` (or clone) that has not "
			  "finished: the data set is not complete\n",
			  r->temporaries),
		       lb, r->temporaries);
	if (ex->unpacked) {
		char line[256];
		snprintf(line, sizeof(line),
			 P_("%" PRIu64 " archive is unpacked already, in the folder beside it",
			    "%" PRIu64 " archives are unpacked already, each in the folder beside it",
			    ex->unpacked),
			 ex->unpacked);
		printf("  %s\n", line);
	}
	if (r->stats.archives > ex->unpacked) {
		uint64_t n = r->stats.archives - ex->unpacked;
		jp_units_format_bytes(asize, sizeof(asize), r->archive_bytes);
		printf(P_("  %s%" PRIu64 " archive (%s) would have to be unpacked in the job: unpack "
			  "it before submitting, unless the training code reads it as it is "
			  "(e.g. WebDataset shards)\n",
			  "  %s%" PRIu64 " archives (%s) would have to be unpacked in the job: unpack "
			  "them before submitting, unless the training code reads them as they are "
			  "(e.g. WebDataset shards)\n",
			  n),
		       lb, n, asize);
		for (size_t i = 0; i < ex->n[JP_SCAN_ITEM_ARCHIVE]; i++)
			printf("    %s\n", jp_cli_name(ex->v[JP_SCAN_ITEM_ARCHIVE][i]));
		print_stage_hint(path, r, ex);
	}
	if (r->unreadable) {
		printf(P_("  %s%" PRIu64 " entry cannot be read: fix its permissions so the "
			  "job's user can read it\n",
			  "  %s%" PRIu64 " entries cannot be read: fix their permissions so the "
			  "job's user can read them\n",
			  r->unreadable),
		       lb, r->unreadable);
		for (size_t i = 0; i < ex->n[JP_SCAN_ITEM_UNREADABLE]; i++)
			printf("    %s: %s\n", jp_cli_name(ex->v[JP_SCAN_ITEM_UNREADABLE][i]),
			       strerror(ex->errnums[i]));
	}
	if (r->symlinks_outside) {
		printf(P_("  %s%" PRIu64 " symlink leads outside the data set: the job sees its "
			  "target only if it is on storage every Worker mounts\n",
			  "  %s%" PRIu64 " symlinks lead outside the data set: the job sees their "
			  "targets only if they are on storage every Worker mounts\n",
			  r->symlinks_outside),
		       lb, r->symlinks_outside);
		for (size_t i = 0; i < ex->n[JP_SCAN_ITEM_LINK_OUTSIDE]; i++)
			printf("    %s -> %s\n", jp_cli_name(ex->v[JP_SCAN_ITEM_LINK_OUTSIDE][i]),
			       ex->targets[i] ? jp_cli_name(ex->targets[i]) : "?");
	}
	if (r->symlinks_dangling) {
		printf(P_("  %s%" PRIu64 " symlink points at nothing\n",
			  "  %s%" PRIu64 " symlinks point at nothing\n", r->symlinks_dangling),
		       lb, r->symlinks_dangling);
		for (size_t i = 0; i < ex->n[JP_SCAN_ITEM_LINK_DANGLING]; i++)
			printf("    %s\n", jp_cli_name(ex->v[JP_SCAN_ITEM_LINK_DANGLING][i]));
	}
}

/* An exact 64-bit integer (cJSON numbers are doubles). */
static cJSON *add_u64(cJSON *obj, const char *name, uint64_t v)
{
	char buf[24];
	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return cJSON_AddRawToObject(obj, name, buf);
}

static cJSON *add_list(cJSON *obj, const char *name, char *const *v, size_t n)
{
	cJSON *arr = cJSON_AddArrayToObject(obj, name);
	for (size_t i = 0; arr && i < n; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(v[i]));
	return arr;
}

static cJSON *to_json(const char *path, const struct jp_scan_result *r, const struct examples *ex,
		      const struct jp_path_info *info, bool quick, const char *error)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "path", path);
	cJSON_AddStringToObject(o, "mode", quick ? "quick" : "full");
	if (error) {
		cJSON_AddStringToObject(o, "error", error);
		return o;
	}
	cJSON_AddBoolToObject(o, "complete", r->complete);
	cJSON *st = cJSON_AddObjectToObject(o, "stats");
	if (st) {
		add_u64(st, "files", r->stats.files);
		add_u64(st, "bytes", r->stats.bytes);
		add_u64(st, "archives", r->stats.archives);
	}
	add_u64(o, "dirs", r->dirs);
	add_u64(o, "symlinks", r->symlinks);
	add_u64(o, "symlinks_outside", r->symlinks_outside);
	add_u64(o, "symlinks_dangling", r->symlinks_dangling);
	add_u64(o, "unreadable", r->unreadable);
	add_u64(o, "others", r->others);
	add_u64(o, "archive_bytes", r->archive_bytes);
	add_u64(o, "top_entries", r->top_entries);
	add_u64(o, "median_bytes", r->median_bytes);
	add_u64(o, "small_files", r->small_files);
	add_u64(o, "temporaries", r->temporaries);
	cJSON_AddNumberToObject(o, "seconds", r->seconds);
	cJSON_AddNumberToObject(o, "threads", r->threads);
	if (info && info->resolved) {
		cJSON *s = cJSON_AddObjectToObject(o, "storage");
		if (s) {
			cJSON_AddStringToObject(s, "class", jp_storage_class_name(info->cls));
			cJSON_AddStringToObject(s, "resolved", info->resolved);
			if (info->mount_point)
				cJSON_AddStringToObject(s, "mount_point", info->mount_point);
			if (info->fstype)
				cJSON_AddStringToObject(s, "fstype", info->fstype);
			cJSON_AddBoolToObject(s, "read_only", info->read_only);
			cJSON_AddStringToObject(s, "reason", info->reason ? info->reason : "");
			if (info->warning)
				cJSON_AddStringToObject(s, "warning", info->warning);
		}
	}
	cJSON *e = cJSON_AddObjectToObject(o, "examples");
	if (e) {
		add_list(e, "archives", ex->v[JP_SCAN_ITEM_ARCHIVE], ex->n[JP_SCAN_ITEM_ARCHIVE]);
		add_list(e, "unreadable", ex->v[JP_SCAN_ITEM_UNREADABLE],
			 ex->n[JP_SCAN_ITEM_UNREADABLE]);
		add_list(e, "symlinks_outside", ex->v[JP_SCAN_ITEM_LINK_OUTSIDE],
			 ex->n[JP_SCAN_ITEM_LINK_OUTSIDE]);
		add_list(e, "symlinks_dangling", ex->v[JP_SCAN_ITEM_LINK_DANGLING],
			 ex->n[JP_SCAN_ITEM_LINK_DANGLING]);
	}
	return o;
}

/* Many threads each hold a few directories open: allow what the hard
 * limit allows. */
static void raise_nofile(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max > 65536 ? 65536 : rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* What the command line asked for. */
struct scan_args {
	struct jp_scan_opts scan;
	const char *profile_path;
	bool json;
};

static const struct jp_cli_opt scan_opts[] = {
	{ .name = "quick", .short_name = 'q',
	  .help = N_("a quick look in bounded time (top level and a sample); "
		     "counts are lower bounds unless it saw everything"),
	  .kind = JP_OPT_SET, .at = offsetof(struct scan_args, scan.mode), .value = JP_SCAN_QUICK },
	{ .name = "json", .short_name = 'j', .help = N_("print a JSON array, one object per PATH"),
	  .kind = JP_OPT_TRUE, .at = offsetof(struct scan_args, json) },
	{ .name = "threads", .short_name = 't', .arg = "N",
	  .help = N_("scanning threads (default: automatic)"), .kind = JP_OPT_UINT,
	  .at = offsetof(struct scan_args, scan.threads), .min = 1, .max = 256,
	  .range = N_("--threads: expected a number from 1 to 256, got '%s'") },
	{ .name = "profile", .short_name = 'p', .arg = "FILE",
	  .help = N_("platform profile used to say where each PATH lives"), .kind = JP_OPT_STRING,
	  .at = offsetof(struct scan_args, profile_path) },
	JP_OPT_HELP_ENTRY,
};

const struct jp_cli_cmd jp_cli_cmd_scan = {
	.name = "scan",
	.run = jp_cmd_scan,
	.summary = N_("count a data set's files, bytes and archives"),
	.operands = { "PATH..." },
	.description = N_("Count the files, bytes and archives of each data set, and find what would\n"
			  "trouble a job: unreadable entries, symlinks leaving the data set, archives\n"
			  "that would have to be unpacked in the job."),
	.opts = scan_opts,
	.n_opts = JP_CLI_N(scan_opts),
};

int jp_cmd_scan(int argc, char **argv)
{
	struct jp_error err = JP_ERROR_INIT;
	struct jp_profile *profile = NULL;
	struct scan_args a = { .scan = JP_SCAN_OPTS_INIT };
	struct jp_scan_opts opts;
	const char *profile_path;
	bool json;
	int status = JP_EXIT_OK;
	cJSON *arr = NULL;

	status = jp_cli_parse_options(&jp_cli_cmd_scan, argc, argv, &a);
	if (status >= 0)
		return status;
	status = JP_EXIT_OK;
	opts = a.scan;
	profile_path = a.profile_path;
	json = a.json;
	if (optind >= argc)
		return jp_cli_usage_error("scan", "%s", _("expected at least one PATH"));

	if (jp_profile_resolve(&profile, profile_path, &err) < 0) {
		status = jp_cli_report("scan", &err);
		goto out;
	}
	raise_nofile();
	struct jp_signals_saved saved;
	jp_signals_catch(&saved, NULL, false);
	opts.cancel = jp_signals_flag();

	struct progress_state ps = { false };
	struct jp_port port = JP_PORT_INIT;
	if (isatty(STDERR_FILENO)) {
		port.progress = on_progress;
		port.payload = &ps;
	}
	if (json)
		arr = cJSON_CreateArray();

	for (int i = optind; i < argc && !jp_signals_first(); i++) {
		const char *path = argv[i];
		struct jp_scan_result r;
		struct examples ex;
		struct jp_probe_result probe = JP_PROBE_RESULT_INIT;
		struct jp_probe_opts popts = JP_PROBE_OPTS_INIT;
		struct jp_error perr = JP_ERROR_INIT;
		memset(&ex, 0, sizeof(ex));
		struct jp_scan_output output = { on_item, &ex };

		jp_error_clear(&err);
		/* Where it lives, in bounded time: a hung mount must not hang us. */
		popts.flags = JP_PROBE_CLASSIFY;
		bool classified = jp_probe_path(&probe, profile, path, &popts, &perr) == 0;
		const struct jp_path_info *info = classified ? &probe.info : NULL;
		int rc = jp_scan(&r, path, &opts, &output, &port, &err);
		if (ps.shown) {
			fprintf(stderr, "\r\033[K");
			fflush(stderr);
			ps.shown = false;
		}
		if (rc == JP_ECANCELED || jp_signals_first()) {
			fprintf(stderr, "%s\n", _("jobprep scan: interrupted"));
			status = jp_signals_exit_status(); /* 130, 143, 129 */
		} else if (rc < 0) {
			jp_cli_report("scan", &err);
			status = JP_EXIT_FAIL;
			if (arr)
				cJSON_AddItemToArray(arr, to_json(path, &r, &ex, NULL,
								  opts.mode == JP_SCAN_QUICK,
								  jp_error_message(&err)));
		} else if (arr) {
			cJSON_AddItemToArray(arr, to_json(path, &r, &ex, info,
							  opts.mode == JP_SCAN_QUICK, NULL));
		} else {
			print_text(path, &r, &ex, info,
				   opts.mode == JP_SCAN_QUICK);
		}
		examples_dispose(&ex);
		jp_probe_result_dispose(&probe);
		jp_error_dispose(&perr);
	}
	/* a signal after the last path was scanned still stops the command:
	 * the JSON is not printed, and the status says why */
	if (jp_signals_first() && status < 128) {
		fprintf(stderr, "%s\n", _("jobprep scan: interrupted"));
		status = jp_signals_exit_status();
	}
	jp_signals_restore(&saved);

	if (arr && !jp_signals_first() && jp_cli_print_json(arr) < 0)
		status = JP_EXIT_FAIL;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s\n", _("jobprep scan: cannot write to standard output"));
		if (status == JP_EXIT_OK)
			status = JP_EXIT_FAIL;
	}
out:
	cJSON_Delete(arr);
	jp_profile_free(profile);
	jp_error_dispose(&err);
	return status;
}
