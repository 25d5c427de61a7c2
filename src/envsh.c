/* Rendering a manifest's environment as POSIX sh export lines. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/envsh.h"
#include "jobprep/i18n.h"
#include "jobprep/shellwords.h"

struct out_buf {
	char *s;
	size_t len, cap;
};

static int buf_add(struct out_buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *grown;

		while (cap < b->len + n + 1)
			cap *= 2;
		grown = realloc(b->s, cap);
		if (!grown)
			return JP_ENOMEM;
		b->s = grown;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
	return 0;
}

static int add_export(struct out_buf *b, const char *field, const char *name, const char *value,
		      struct jp_error *err)
{
	char *quoted = NULL;
	int rc;

	if (!value)
		return 0;
	if (!jp_valid_env_name(name))
		return jp_error_set(err, JP_EFORMAT,
				    _("%s: expected a variable name of letters, digits and '_', not "
				      "starting with a digit, got \"%s\""),
				    field, name);
	rc = jp_sh_quote(&quoted, value);
	if (rc == 0)
		rc = buf_add(b, "export ", 7);
	if (rc == 0)
		rc = buf_add(b, name, strlen(name));
	if (rc == 0)
		rc = buf_add(b, "=", 1);
	if (rc == 0)
		rc = buf_add(b, quoted, strlen(quoted));
	if (rc == 0)
		rc = buf_add(b, "\n", 1);
	free(quoted);
	if (rc < 0)
		return jp_error_set(err, rc, "%s", _("out of memory"));
	return 0;
}

int jp_envsh_render(char **out, const struct jp_manifest *m, struct jp_error *err)
{
	struct out_buf b = { NULL, 0, 0 };
	int rc;

	*out = NULL;
	rc = buf_add(&b, "", 0);
	if (rc < 0) {
		rc = jp_error_set(err, rc, "%s", _("out of memory"));
		goto out;
	}
	if ((rc = add_export(&b, "code.path", "PROJECT_DIR", m->code.path, err)) < 0 ||
	    (rc = add_export(&b, "outputs.output_dir", "OUTPUT_DIR", m->outputs.output_dir, err)) < 0 ||
	    (rc = add_export(&b, "outputs.checkpoint_dir", "CHECKPOINT_DIR",
			     m->outputs.checkpoint_dir, err)) < 0 ||
	    (rc = add_export(&b, "outputs.log_dir", "LOG_DIR", m->outputs.log_dir, err)) < 0 ||
	    (rc = add_export(&b, "data[0].path", "DATA_DIR", m->n_data ? m->data[0].path : NULL,
			     err)) < 0)
		goto out;
	for (size_t i = 0; i < m->job.n_env; i++) {
		char field[64];
		const struct jp_env_var *v = &m->job.env[i];

		snprintf(field, sizeof(field), "job.env[%zu]", i);
		rc = add_export(&b, field, v->name ? v->name : "", v->value ? v->value : "", err);
		if (rc < 0)
			goto out;
	}
	*out = b.s;
	b.s = NULL;
out:
	free(b.s);
	return rc;
}
