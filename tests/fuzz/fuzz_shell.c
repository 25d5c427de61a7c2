/* libFuzzer target: any bytes as a launch command, through the sh splitter
 * and the launch lint (single- and multi-Worker, project looked at or not).
 * The split holds complete words and known separators; every finding has
 * its id, word and message. Build with --enable-fuzzing; replayed over its
 * seeds by `make check` otherwise. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/lint.h"
#include "lint_internal.h"
#include "jobprep/profile.h"
#include "profile_internal.h"
#include "jobprep/shellwords.h"
#include "shellwords_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_word(const struct jp_sh_word *w)
{
	if (!w->text || !w->raw)
		abort();
	if (w->redir && !strchr("<>h", w->redir))
		abort();
}

static void check_split(const char *line)
{
	struct jp_sh_line sl = JP_SH_LINE_INIT;
	struct jp_error err = JP_ERROR_INIT;

	if (jp_sh_split(&sl, line, &err) < 0)
		abort();
	for (size_t i = 0; i < sl.n; i++) {
		const struct jp_sh_command *c = &sl.cmds[i];

		if (c->depth < 0 || (c->sep && !strchr(";&AO|\n()`", c->sep)))
			abort();
		for (size_t k = 0; k < c->n_assigns; k++) {
			check_word(&c->assigns[k]);
			if (!strchr(c->assigns[k].text, '='))
				abort();
		}
		for (size_t k = 0; k < c->n_words; k++)
			check_word(&c->words[k]);
	}
	jp_sh_line_dispose(&sl);
	jp_error_dispose(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct jp_profile *profile;
	struct jp_lint_context ctx = JP_LINT_CONTEXT_INIT;
	struct jp_lint_report r = JP_LINT_REPORT_INIT;
	struct jp_error err = JP_ERROR_INIT;
	char *line;

	if (!profile && jp_profile_new_default(&profile, &err) < 0)
		abort();
	line = malloc(size + 1);
	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';

	check_split(line);

	/* the context varies with the input's length, so every byte stays
	 * part of the command */
	ctx.profile = profile;
	ctx.project_dir = "/mnt/public/projects/fuzz-no-such-job";
	ctx.output_dir = "/mnt/public/outputs/fuzz/run-001";
	ctx.checkpoint_dir = "/mnt/public/outputs/fuzz/run-001/checkpoints";
	ctx.log_dir = "/tmp/fuzz-logs";
	ctx.data_dir = "/infini-data/set";
	ctx.code_repo_url = "https://example.invalid/team/train.git";
	ctx.workers = (size & 1) ? 4 : 1;
	ctx.project_is_local = (size & 2) ? 1 : 0;
	ctx.syncs = (size & 4) ? 0 : 1;
	if (jp_lint_command(&r, line, &ctx, &err) < 0)
		abort();
	for (size_t i = 0; i < r.n; i++)
		if (!r.items[i].id || !r.items[i].word || !r.items[i].message)
			abort();
	jp_lint_report_dispose(&r);
	jp_error_dispose(&err);
	free(line);
	return 0;
}
