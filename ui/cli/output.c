/* What the commands print alike: checks, JSON documents, option errors. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jobprep/i18n.h"
#include "jobprep/manifest.h"
#include "jobprep/textquote.h"
#include "cli.h"
#include "options.h"
#include "output.h"

/* The last few escaped copies, per thread, freed as the ring turns: a
 * printf can show several names at once without the caller freeing any. */
#define SHOWN_RING 8
static _Thread_local char *shown[SHOWN_RING];
static _Thread_local unsigned shown_next;

static const char *safe(const char *s, unsigned flags)
{
	char *q = NULL;

	if (!s || !jp_text_needs_quoting(s))
		return s;
	if (jp_text_quote(&q, s, flags) < 0)
		return "?";
	free(shown[shown_next]);
	shown[shown_next] = q;
	shown_next = (shown_next + 1) % SHOWN_RING;
	return q;
}

const char *jp_cli_text(const char *s)
{
	return safe(s, 0);
}

const char *jp_cli_name(const char *s)
{
	return safe(s, JP_TEXT_QUOTED);
}

const char *jp_cli_check_label(enum jp_check_status status)
{
	switch (status) {
	case JP_CHECK_PASS:
		return _("pass");
	case JP_CHECK_WARN:
		return _("warn");
	case JP_CHECK_FAIL:
		return _("FAIL");
	}
	return "?";
}

static void print_check(const struct jp_check *c)
{
	printf("[%s] %s: %s\n", jp_cli_check_label(c->status), jp_cli_text(c->id),
	       jp_cli_text(c->message));
}

void jp_cli_print_checks(const struct jp_manifest *m, enum jp_cli_checks which)
{
	size_t counts[3];

	jp_cli_count_checks(counts, m);
	if (which == JP_CLI_CHECKS_ALL) {
		for (size_t i = 0; i < m->n_checks; i++)
			print_check(&m->checks[i]);
		jp_cli_print_counts(counts);
		return;
	}
	if (which == JP_CLI_CHECKS_SUMMARY)
		jp_cli_print_counts(counts);
	/* the warnings, then the failures: the last lines are what to fix */
	for (int s = JP_CHECK_WARN; s <= JP_CHECK_FAIL; s++)
		for (size_t i = 0; i < m->n_checks; i++)
			if ((int)m->checks[i].status == s)
				print_check(&m->checks[i]);
}

void jp_cli_count_checks(size_t counts[3], const struct jp_manifest *m)
{
	counts[JP_CHECK_PASS] = counts[JP_CHECK_WARN] = counts[JP_CHECK_FAIL] = 0;
	for (size_t i = 0; i < m->n_checks; i++)
		counts[m->checks[i].status]++;
}

void jp_cli_print_counts(const size_t counts[3])
{
	printf(P_("%zu passed, %zu warning, %zu failed\n", "%zu passed, %zu warnings, %zu failed\n",
		  counts[JP_CHECK_WARN]),
	       counts[JP_CHECK_PASS], counts[JP_CHECK_WARN], counts[JP_CHECK_FAIL]);
}

int jp_cli_print_json(const struct cJSON *json)
{
	char *text = cJSON_Print(json);

	if (!text)
		return -1;
	printf("%s\n", text);
	cJSON_free(text);
	return 0;
}

int jp_cli_option_error(const char *cmd, int c, char *const *argv)
{
	if (c == ':')
		return jp_cli_usage_error(cmd, _("option '%s' needs an argument"), argv[optind - 1]);
	return jp_cli_usage_error(cmd, _("unknown option '%s'"), argv[optind - 1]);
}

int jp_cli_print_rendered(const struct jp_cli_cmd *entry, int argc, char **argv,
			  int (*render)(char **out, const struct jp_manifest *m, struct jp_error *err))
{
	const char *cmd = entry->name;
	struct jp_error err = JP_ERROR_INIT;
	struct jp_manifest *m = NULL;
	char *text = NULL;
	int rc, status = jp_cli_parse_options(entry, argc, argv, NULL);

	if (status >= 0)
		return status;
	status = JP_EXIT_OK;
	if (argc - optind != 1)
		return jp_cli_usage_error(cmd, "%s", _("expected one argument: the manifest"));

	rc = jp_manifest_load(&m, argv[optind], JP_READ_MANIFEST, &err);
	if (rc == 0)
		rc = render(&text, m, &err);
	if (rc < 0) {
		status = jp_cli_report(cmd, &err);
		goto out;
	}
	fputs(text, stdout);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, _("jobprep %s: cannot write to standard output\n"), cmd);
		status = JP_EXIT_FAIL;
	}
out:
	free(text);
	jp_manifest_free(m);
	jp_error_dispose(&err);
	return status;
}
