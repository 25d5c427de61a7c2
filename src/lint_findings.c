/* The launch lint's findings: one per kind and word, with its check id
 * (launch.download, ...), a warning or a failure, and the report that
 * holds them. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/lint.h"
#include "lint_internal.h"

static const char *kind_id(enum jp_lint_kind k)
{
	switch (k) {
	case JP_LINT_DOWNLOAD: return "launch.download";
	case JP_LINT_INSTALL: return "launch.install";
	case JP_LINT_UNPACK: return "launch.unpack";
	case JP_LINT_EPHEMERAL: return "launch.ephemeral_output";
	case JP_LINT_SCRIPT: return "launch.script";
	case JP_LINT_CD: return "launch.cd";
	case JP_LINT_NOT_SHARED: return "launch.not_shared";
	case JP_LINT_SYNC: return "launch.sync";
	case JP_LINT_SYNTAX: return "launch.syntax";
	case JP_LINT_CLONE_FIRST: return "launch.clone_first";
	case JP_LINT_LAUNCHER: return "launch.launcher";
	case JP_LINT_OUTPUTS: return "launch.outputs";
	case JP_LINT_ENV_PATH: return "launch.env_path";
	case JP_LINT_FILE: return "launch.file";
	case JP_LINT_HUB_DOWNLOAD: return "launch.hub_download";
	case JP_LINT_PROCESSES: return "launch.processes";
	case JP_LINT_NODES: return "launch.nodes";
	case JP_LINT_PROMPT: return "launch.prompt";
	case JP_LINT_DATA: return "launch.data";
	}
	return "launch";
}

static void add_finding(struct lint *L, enum jp_lint_kind kind, bool fails, const char *word,
			const char *path, const char *fmt, va_list ap)
{
	struct jp_lint_report *r = L->out;
	struct jp_lint_finding f = { kind, NULL, NULL, NULL, NULL, kind == JP_LINT_SYNC, fails, 0 };
	char *msg = NULL, *w = NULL;

	if (!word)
		word = "";
	/* in a script: where it is, first */
	if (L->where && asprintf(&w, "%s: %s", L->where, word) < 0) {
		L->oom = 1;
		return;
	}
	/* One finding per kind and word. */
	for (size_t i = 0; i < r->n; i++)
		if (r->items[i].kind == kind && strcmp(r->items[i].word, w ? w : word) == 0) {
			r->items[i].fails |= fails;
			free(w);
			return;
		}
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	if (msg && L->where) {
		if (asprintf(&f.message, "%s: %s", L->where, msg) < 0)
			f.message = NULL;
		free(msg);
	} else {
		f.message = msg;
	}
	f.id = strdup(kind_id(kind));
	f.word = w ? w : strdup(word);
	f.path = path ? strdup(path) : NULL;
	struct jp_lint_finding *g = realloc(r->items, (r->n + 1) * sizeof(*g));
	if (!f.message || !f.id || !f.word || (path && !f.path) || !g) {
		free(f.message);
		free(f.id);
		free(f.word);
		free(f.path);
		if (g)
			r->items = g;
		L->oom = 1;
		return;
	}
	r->items = g;
	r->items[r->n++] = f;
}

void jp_lint_add(struct lint *L, enum jp_lint_kind kind, const char *word, const char *path,
		 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_finding(L, kind, kind == JP_LINT_CLONE_FIRST, word, path, fmt, ap);
	va_end(ap);
}

void jp_lint_fail(struct lint *L, enum jp_lint_kind kind, const char *word, const char *path,
		  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_finding(L, kind, L->certain, word, path, fmt, ap);
	va_end(ap);
}

void jp_lint_report_dispose(struct jp_lint_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		free(r->items[i].id);
		free(r->items[i].word);
		free(r->items[i].message);
		free(r->items[i].path);
	}
	free(r->items);
	r->items = NULL;
	r->n = 0;
	free(r->resume);
	r->resume = NULL;
}
