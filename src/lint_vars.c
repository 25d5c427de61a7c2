/* The launch lint's variables: what the command assigns and exports as it
 * goes (and the job's own, from env.sh), and a word expanded with them. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/shellwords.h"
#include "lint_internal.h"

static const char *var_get(const struct lint *L, const char *name, size_t len)
{
	for (size_t i = L->n_vars; i-- > 0;)
		if (strlen(L->vars[i].name) == len && strncmp(L->vars[i].name, name, len) == 0)
			return L->vars[i].value;
	return NULL;
}

void jp_lint_var_set(struct lint *L, const char *name, size_t len, const char *value)
{
	struct var *g = realloc(L->vars, (L->n_vars + 1) * sizeof(*g));
	if (!g) {
		L->oom = 1;
		return;
	}
	L->vars = g;
	g[L->n_vars].name = strndup(name, len);
	g[L->n_vars].value = value ? strdup(value) : NULL;
	if (!g[L->n_vars].name || (value && !g[L->n_vars].value)) {
		free(g[L->n_vars].name);
		free(g[L->n_vars].value);
		L->oom = 1;
		return;
	}
	L->n_vars++;
}

/* How a script names its own folder: "$(dirname "$0")" and the like, at s;
 * its length, 0 if none. */
static size_t script_dir_idiom(const char *s)
{
	static const char *const forms[] = {
		"$(dirname \"$0\")", "$(dirname $0)", "$(dirname \"${BASH_SOURCE[0]}\")",
		"$(dirname ${BASH_SOURCE[0]})", "$(cd \"$(dirname \"$0\")\" && pwd)",
		"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")\" && pwd)", "$(cd $(dirname $0) && pwd)",
		"$(dirname \"$(realpath \"$0\")\")", "$(dirname \"$(readlink -f \"$0\")\")", NULL
	};

	for (size_t i = 0; forms[i]; i++)
		if (strncmp(s, forms[i], strlen(forms[i])) == 0)
			return strlen(forms[i]);
	return 0;
}

/* The word's text with $NAME / ${NAME} replaced by what we know; NULL when
 * it holds anything we cannot know (an unknown variable, a substitution). */
char *jp_lint_expand(const struct lint *L, const struct jp_sh_word *w)
{
	const char *s = w->text;
	char *out = NULL;
	size_t n = 0;
	FILE *f;

	if (!w->has_var)
		return strdup(s);
	f = open_memstream(&out, &n);
	if (!f)
		return NULL;
	while (*s) {
		if (*s != '$') {
			fputc(*s++, f);
			continue;
		}
		const char *name = s + 1;
		size_t len = 0;
		size_t idiom = script_dir_idiom(s);
		if (idiom && L->reading.n > 0) {
			/* "$(dirname "$0")" in a script: the folder it is in */
			const char *path = L->reading.v[L->reading.n - 1];
			fwrite(path, 1, (size_t)(strrchr(path, '/') - path), f);
			s += idiom;
			continue;
		}
		if (*name == '{') {
			name++;
			while (name[len] && (isalnum((unsigned char)name[len]) || name[len] == '_'))
				len++;
			if (name[len] != '}')
				goto unknown;
			s = name + len + 1;
		} else {
			while (isalnum((unsigned char)name[len]) || name[len] == '_')
				len++;
			if (len == 0) {
				fputc(*s++, f);
				continue;
			}
			s = name + len;
		}
		const char *v = var_get(L, name, len);
		if (!v)
			goto unknown;
		fputs(v, f);
	}
	fclose(f);
	return out;
unknown:
	fclose(f);
	free(out);
	return NULL;
}
