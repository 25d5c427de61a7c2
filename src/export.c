/* Exporting a manifest: the choice of engine, and what the engines share. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/envsh.h"
#include "jobprep/export.h"
#include "jobprep/i18n.h"
#include "export_internal.h"

static const char *const target_names[] = {
	[JP_EXPORT_SLURM] = "slurm",
	[JP_EXPORT_PYTORCHJOB] = "pytorchjob",
};

const char *jp_export_target_name(enum jp_export_target target)
{
	if ((size_t)target >= sizeof(target_names) / sizeof(target_names[0]))
		return NULL;
	return target_names[target];
}

int jp_export_target_from_name(enum jp_export_target *out, const char *name)
{
	for (size_t i = 0; i < sizeof(target_names) / sizeof(target_names[0]); i++) {
		if (name && strcmp(name, target_names[i]) == 0) {
			*out = (enum jp_export_target)i;
			return 0;
		}
	}
	return JP_EUSAGE;
}

unsigned jp_export_file_mode(enum jp_export_target target)
{
	return target == JP_EXPORT_SLURM ? 0755 : 0644;
}

int jp_export_render(char **out, unsigned *notes, const struct jp_manifest *m,
		     enum jp_export_target target, const char *origin, struct jp_error *err)
{
	int rc;

	*out = NULL;
	if (notes)
		*notes = 0;
	rc = jp_manifest_validate(m, origin ? origin : "manifest", err);
	if (rc < 0)
		return rc;
	switch (target) {
	case JP_EXPORT_SLURM:
		return jp_export_slurm(out, m, origin, err);
	case JP_EXPORT_PYTORCHJOB:
		return jp_export_pytorchjob(out, notes, m, origin, err);
	}
	return jp_error_set(err, JP_EUSAGE, _("unknown export target %d"), (int)target);
}

int export_error(struct jp_error *err, int code, const char *origin, const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		return jp_error_set(err, JP_ENOMEM, "%s", _("out of memory"));
	jp_error_set(err, code, "%s: %s", origin ? origin : "manifest", msg);
	free(msg);
	return code;
}

static int buf_reserve(struct export_buf *b, size_t n)
{
	size_t cap;
	char *grown;

	if (b->rc < 0)
		return b->rc;
	if (b->len + n + 1 <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 1024;
	while (cap < b->len + n + 1)
		cap *= 2;
	grown = realloc(b->s, cap);
	if (!grown) {
		b->rc = JP_ENOMEM;
		return b->rc;
	}
	b->s = grown;
	b->cap = cap;
	return 0;
}

void export_buf_addn(struct export_buf *b, const char *s, size_t n)
{
	if (buf_reserve(b, n) < 0)
		return;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void export_buf_add(struct export_buf *b, const char *s)
{
	export_buf_addn(b, s, strlen(s));
}

void export_buf_addf(struct export_buf *b, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		if (b->rc == 0)
			b->rc = JP_ENOMEM;
		return;
	}
	export_buf_addn(b, s, (size_t)n);
	free(s);
}

int export_buf_finish(char **out, struct export_buf *b, struct jp_error *err)
{
	int rc = b->rc;

	*out = NULL;
	if (rc == 0 && !b->s) {
		export_buf_add(b, "");
		rc = b->rc;
	}
	if (rc < 0) {
		free(b->s);
		b->s = NULL;
		return jp_error_set(err, rc, "%s", _("out of memory"));
	}
	*out = b->s;
	b->s = NULL;
	return 0;
}

int export_prelude(char **out, const struct jp_manifest *m, struct jp_error *err)
{
	struct export_buf b = EXPORT_BUF_INIT;
	char *env = NULL;
	int rc;

	*out = NULL;
	rc = jp_envsh_render(&env, m, err);
	if (rc < 0)
		return rc;
	export_buf_add(&b, env);
	/* A new run's directories may not exist yet; a job that cannot make
	 * them stops before it trains, not when it first saves. */
	export_buf_add(&b, "mkdir -p \"$CHECKPOINT_DIR\" \"$LOG_DIR\" || exit 1\n");
	free(env);
	return export_buf_finish(out, &b, err);
}

const char *export_workdir(const struct jp_manifest *m)
{
	if (m->code.source == JP_CODE_LAUNCH_CLONE)
		return m->outputs.output_dir;
	return m->code.path;
}
