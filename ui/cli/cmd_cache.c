/* `jobprep cache [--clear] [--json]`: the local mirror cache's mirrors
 * (the repository each mirrors, its size, its last use), or clear it. */
#include "config.h"

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "jobprep/git.h"
#include "jobprep/i18n.h"
#include "jobprep/units.h"
#include "cli.h"
#include "options.h"
#include "output.h"

/* What the command line asked for. */
struct cache_args {
	bool clear;
	bool json;
};

static const struct jp_cli_opt cache_opts[] = {
	{ .name = "clear", .help = N_("remove every mirror no other jobprep is using"),
	  .kind = JP_OPT_TRUE, .at = offsetof(struct cache_args, clear) },
	{ .name = "json", .short_name = 'j', .help = N_("print the mirrors (with --clear: what went) as JSON"),
	  .kind = JP_OPT_TRUE, .at = offsetof(struct cache_args, json) },
	JP_OPT_HELP_ENTRY,
};

const struct jp_cli_cmd jp_cli_cmd_cache = {
	.name = "cache",
	.run = jp_cmd_cache,
	.summary = N_("list or clear the local mirror cache of repositories"),
	.description = N_("List the local mirror cache ($XDG_CACHE_HOME/jobprep/git, default\n"
			  "~/.cache/jobprep/git): the repository each mirror holds, its size and its\n"
			  "last use, least recently used first. --clear removes every mirror that no\n"
			  "other jobprep is using; the next prep fetches what it needs again."),
	.footer = N_("Exit status: 0 done; 1 a mirror was in use or could not be removed."),
	.opts = cache_opts,
	.n_opts = JP_CLI_N(cache_opts),
};

static void when(char *buf, size_t len, time_t t)
{
	struct tm tm;

	if (t <= 0 || !localtime_r(&t, &tm) || strftime(buf, len, "%Y-%m-%d %H:%M", &tm) == 0)
		snprintf(buf, len, "-");
}

static cJSON *list_json(const struct jp_git_cache_list *l)
{
	cJSON *o = cJSON_CreateObject(), *arr = NULL;
	bool ok = o && (l->dir ? cJSON_AddStringToObject(o, "dir", l->dir)
			       : cJSON_AddNullToObject(o, "dir")) &&
		  cJSON_AddNumberToObject(o, "max_bytes", (double)l->cap) &&
		  (arr = cJSON_AddArrayToObject(o, "mirrors"));

	for (size_t i = 0; ok && i < l->n; i++) {
		const struct jp_git_cache_entry *e = &l->v[i];
		cJSON *m = cJSON_CreateObject();

		if (!m || !cJSON_AddItemToArray(arr, m)) {
			cJSON_Delete(m);
			ok = false;
			break;
		}
		ok = cJSON_AddStringToObject(m, "path", e->path) &&
		     (e->url ? cJSON_AddStringToObject(m, "url", e->url)
			     : cJSON_AddNullToObject(m, "url")) &&
		     cJSON_AddNumberToObject(m, "bytes", (double)e->bytes) &&
		     cJSON_AddNumberToObject(m, "used", (double)e->used) &&
		     cJSON_AddBoolToObject(m, "in_use", e->busy);
	}
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static void list_text(const struct jp_git_cache_list *l)
{
	unsigned long long total = 0;
	char size[32], cap[32], t[32];

	if (!l->dir) {
		printf("%s\n", _("No mirror cache: neither XDG_CACHE_HOME nor HOME names a folder."));
		return;
	}
	for (size_t i = 0; i < l->n; i++)
		total += l->v[i].bytes;
	jp_units_format_bytes(size, sizeof(size), total);
	jp_units_format_bytes(cap, sizeof(cap), l->cap);
	printf(P_("Mirror cache %s: %zu mirror, %s of at most %s\n",
		  "Mirror cache %s: %zu mirrors, %s of at most %s\n", l->n),
	       jp_cli_name(l->dir), l->n, size, cap);
	for (size_t i = 0; i < l->n; i++) {
		const struct jp_git_cache_entry *e = &l->v[i];

		jp_units_format_bytes(size, sizeof(size), e->bytes);
		when(t, sizeof(t), e->used);
		printf("  %s\n", e->url ? jp_cli_text(e->url) : _("(a mirror whose config is unreadable)"));
		printf("    %-10s %s\n", _("size"), size);
		printf("    %-10s %s%s\n", _("used"), t, e->busy ? _("  (in use now)") : "");
		printf("    %-10s %s\n", _("folder"), jp_cli_name(e->path));
	}
}

static int print_cleared(size_t removed, size_t busy, unsigned long long freed, bool json)
{
	char size[32];
	cJSON *o;
	int rc;

	if (!json) {
		jp_units_format_bytes(size, sizeof(size), freed);
		printf(P_("Removed %zu mirror (%s).\n", "Removed %zu mirrors (%s).\n", removed),
		       removed, size);
		return 0;
	}
	o = cJSON_CreateObject();
	rc = o && cJSON_AddNumberToObject(o, "removed", (double)removed) &&
			     cJSON_AddNumberToObject(o, "in_use", (double)busy) &&
			     cJSON_AddNumberToObject(o, "freed_bytes", (double)freed)
		     ? jp_cli_print_json(o)
		     : -1;
	cJSON_Delete(o);
	return rc;
}

static int clear(bool json)
{
	struct jp_error err = JP_ERROR_INIT;
	unsigned long long freed = 0;
	size_t removed = 0, busy = 0;
	int rc = jp_git_cache_clear(&removed, &busy, &freed, &err), status = JP_EXIT_OK;

	if (print_cleared(removed, busy, freed, json) < 0 || fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s\n", _("jobprep cache: cannot write to standard output"));
		status = JP_EXIT_FAIL;
	}
	if (busy) {
		fprintf(stderr,
			P_("jobprep cache: %zu mirror is in use by another jobprep and was left: "
			   "clear again when it is done.\n",
			   "jobprep cache: %zu mirrors are in use by another jobprep and were left: "
			   "clear again when it is done.\n",
			   busy),
			busy);
		status = JP_EXIT_FAIL;
	}
	if (rc < 0)
		status = jp_cli_report("cache", &err);
	jp_error_dispose(&err);
	return status;
}

int jp_cmd_cache(int argc, char **argv)
{
	struct cache_args a = { false, false };
	struct jp_git_cache_list l = JP_GIT_CACHE_LIST_INIT;
	struct jp_error err = JP_ERROR_INIT;
	int rc, status = jp_cli_parse_options(&jp_cli_cmd_cache, argc, argv, &a);

	if (status >= 0)
		return status;
	if (argc - optind != 0)
		return jp_cli_usage_error("cache", "%s", _("expected no operand"));
	if (a.clear)
		return clear(a.json);
	status = JP_EXIT_OK;
	if (jp_git_cache_list(&l, &err) < 0) {
		status = jp_cli_report("cache", &err);
		goto out;
	}
	if (a.json) {
		cJSON *o = list_json(&l);

		rc = o ? jp_cli_print_json(o) : -1;
		cJSON_Delete(o);
	} else {
		list_text(&l);
		rc = 0;
	}
	if (rc < 0 || fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s\n", _("jobprep cache: cannot write to standard output"));
		status = JP_EXIT_FAIL;
	}
out:
	jp_git_cache_list_dispose(&l);
	jp_error_dispose(&err);
	return status;
}
