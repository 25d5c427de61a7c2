/* libFuzzer target: shell quoting. For any text s (up to its first NUL):
 * jp_sh_quote(s) is made only of '...' segments and \' (the grammar of the
 * one quoting POSIX sh, dash, bash, zsh and busybox read alike), and undoing
 * that grammar gives s back byte for byte; the sh splitter reads
 * `export X=<quoted>` as the word X=s; env.sh's line for a variable holding
 * s is exactly `export X=<quoted>`. Build with --enable-fuzzing; replayed
 * over its seeds by `make check` otherwise. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/envsh.h"
#include "jobprep/manifest.h"
#include "manifest_internal.h"
#include "jobprep/shellwords.h"
#include "shellwords_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The inverse of the quoting grammar: NULL when q is not a sequence of
 * '...' (no ' inside) and \' tokens, else what sh makes of it. */
static char *unquote(const char *q)
{
	char *out = malloc(strlen(q) + 1), *o = out;

	if (!out)
		abort();
	if (!*q) {
		free(out);
		return NULL; /* the empty string needs '' */
	}
	while (*q) {
		if (q[0] == '\\' && q[1] == '\'') {
			*o++ = '\'';
			q += 2;
		} else if (q[0] == '\'') {
			const char *close = strchr(q + 1, '\'');

			if (!close) {
				free(out);
				return NULL;
			}
			memcpy(o, q + 1, (size_t)(close - q - 1));
			o += close - q - 1;
			q = close + 1;
		} else {
			free(out);
			return NULL;
		}
	}
	*o = '\0';
	return out;
}

static void check_split(const char *s, const char *q)
{
	struct jp_sh_line sl = JP_SH_LINE_INIT;
	struct jp_error err = JP_ERROR_INIT;
	char *line, *want;

	if (asprintf(&line, "export X=%s", q) < 0 || asprintf(&want, "X=%s", s) < 0)
		abort();
	if (jp_sh_split(&sl, line, &err) < 0)
		abort();
	if (sl.unbalanced || sl.n != 1 || sl.cmds[0].n_words != 2 || sl.cmds[0].n_assigns != 0 ||
	    strcmp(sl.cmds[0].words[0].text, "export") != 0 ||
	    strcmp(sl.cmds[0].words[1].text, want) != 0 || sl.cmds[0].words[1].has_var)
		abort();
	jp_sh_line_dispose(&sl);
	jp_error_dispose(&err);
	free(line);
	free(want);
}

static void check_envsh(const char *s, const char *q)
{
	struct jp_manifest *m = NULL;
	struct jp_error err = JP_ERROR_INIT;
	char *text = NULL, *want;

	if (jp_manifest_new(&m) < 0 || jp_manifest_add_env(m, "X", s) < 0)
		abort();
	if (jp_envsh_render(&text, m, &err) < 0 || asprintf(&want, "export X=%s\n", q) < 0)
		abort();
	if (!strstr(text, want))
		abort();
	free(want);
	free(text);
	jp_manifest_free(m);
	jp_error_dispose(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), *q = NULL, *back;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (jp_sh_quote(&q, s) < 0)
		abort();
	back = unquote(q);
	if (!back || strcmp(back, s) != 0)
		abort();
	free(back);
	check_split(s, q);
	check_envsh(s, q);
	free(q);
	free(s);
	return 0;
}
