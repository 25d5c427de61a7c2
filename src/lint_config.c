/* The launch lint's reader of the config files a command names, without
 * running them: a Python config's top-level `name = 'value'` lines
 * (nanoGPT's config/train_shakespeare_char.py), YAML `key: value` lines,
 * JSON's leaves, TOML/INI `key = value` lines; and the command's own
 * `key=value` / `--key=value` overrides. Only simple values are kept: a
 * string, a number, true/false; an expression is left out. Usable from any
 * core file (jp_lint_config_parse works on text alone). */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jobprep/i18n.h"
#include "jobprep/path.h"
#include "lint_internal.h"

#define MAX_ITEMS 512

static int push(struct jp_lint_config *c, const char *key, size_t klen, const char *value,
		size_t vlen, unsigned line)
{
	struct jp_lint_kv *g;

	if (c->n >= MAX_ITEMS)
		return 0;
	g = realloc(c->items, (c->n + 1) * sizeof(*g));
	if (!g)
		return -1;
	c->items = g;
	g[c->n].key = strndup(key, klen);
	g[c->n].value = strndup(value, vlen);
	g[c->n].line = line;
	if (!g[c->n].key || !g[c->n].value) {
		free(g[c->n].key);
		free(g[c->n].value);
		return -1;
	}
	c->n++;
	return 0;
}

static bool ident_char(char ch)
{
	return isalnum((unsigned char)ch) || ch == '_' || ch == '-' || ch == '.';
}

/* A simple value at v (up to end): a quoted string's contents, or a bare
 * word up to a comment; *out and *len; false for anything else (an
 * expression, a list, an f-string). */
static bool simple_value(const char *v, const char *end, bool python, const char **out,
			 size_t *len)
{
	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	if (v >= end)
		return false;
	if (*v == '"' || *v == '\'') {
		const char *q = memchr(v + 1, *v, (size_t)(end - v - 1));
		const char *rest = q ? q + 1 : NULL;

		if (!q || memchr(v + 1, '\\', (size_t)(q - v - 1)))
			return false;
		while (rest && rest < end && (*rest == ' ' || *rest == '\t'))
			rest++;
		if (rest < end && *rest != '#' && *rest != ',')
			return false; /* 'a' + b */
		*out = v + 1;
		*len = (size_t)(q - v - 1);
		return true;
	}
	const char *e = v;
	while (e < end && *e != '#' && !(python && (*e == '(' || *e == '[' || *e == '{' || *e == '+')))
		e++;
	if (e < end && *e != '#')
		return false;
	while (e > v && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	if (e == v || *v == '[' || *v == '{' || *v == '|' || *v == '>' || *v == '&' || *v == '*')
		return false;
	*out = v;
	*len = (size_t)(e - v);
	return true;
}

/* Lines of `key SEP value`: Python and TOML/INI (=, at the line's start
 * for Python), YAML (:, any indentation, the leaf key). */
static int parse_lines(struct jp_lint_config *c, const char *text, size_t n, char sep,
		       bool python)
{
	const char *p = text, *end = text + n;
	unsigned line = 0;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *k = p, *v, *val;
		size_t vlen;

		if (!eol)
			eol = end;
		line++;
		if (!python)
			while (k < eol && (*k == ' ' || *k == '\t' || *k == '-'))
				k++;
		const char *ke = k;
		while (ke < eol && ident_char(*ke))
			ke++;
		v = ke;
		while (v < eol && (*v == ' ' || *v == '\t'))
			v++;
		if (ke > k && isalpha((unsigned char)*k) == 0 && *k != '_')
			ke = k;
		if (ke > k && v < eol && *v == sep && (sep != '=' || v + 1 >= eol || v[1] != '=') &&
		    simple_value(v + 1, eol, python, &val, &vlen) &&
		    push(c, k, (size_t)(ke - k), val, vlen, line) < 0)
			return -1;
		p = eol + (eol < end);
	}
	return 0;
}

static int walk_json(struct jp_lint_config *c, const cJSON *j, int depth)
{
	char num[64];

	if (depth > 16)
		return 0;
	for (const cJSON *e = j ? j->child : NULL; e; e = e->next) {
		const char *v = NULL;

		if (cJSON_IsString(e))
			v = e->valuestring;
		else if (cJSON_IsBool(e))
			v = cJSON_IsTrue(e) ? "true" : "false";
		else if (cJSON_IsNumber(e) && snprintf(num, sizeof(num), "%.17g", e->valuedouble) > 0)
			v = num;
		if (v && e->string && push(c, e->string, strlen(e->string), v, strlen(v), 0) < 0)
			return -1;
		if ((cJSON_IsObject(e) || cJSON_IsArray(e)) && walk_json(c, e, depth + 1) < 0)
			return -1;
	}
	return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n > k && strcmp(s + n - k, suffix) == 0;
}

int jp_lint_config_parse(struct jp_lint_config *out, const char *path, const char *text, size_t n)
{
	int rc = 0;

	if (ends_with(path, ".json")) {
		cJSON *j = cJSON_ParseWithLength(text, n);

		rc = j ? walk_json(out, j, 0) : 0;
		cJSON_Delete(j);
	} else if (ends_with(path, ".yaml") || ends_with(path, ".yml")) {
		rc = parse_lines(out, text, n, ':', false);
	} else if (ends_with(path, ".py")) {
		rc = parse_lines(out, text, n, '=', true);
	} else {
		rc = parse_lines(out, text, n, '=', false);
	}
	return rc;
}

int jp_lint_config_override(struct jp_lint_config *out, const char *word)
{
	const char *k = word, *eq = strchr(word, '=');

	while (*k == '-')
		k++;
	if (!eq || eq == k || !isalpha((unsigned char)*k))
		return 0;
	for (const char *p = k; p < eq; p++)
		if (!ident_char(*p) && *p != '+')
			return 0;
	if (*k == '+')
		k++;
	return push(out, k, (size_t)(eq - k), eq + 1, strlen(eq + 1), 0);
}

const char *jp_lint_config_get(const struct jp_lint_config *c, const char *key)
{
	for (size_t i = c->n; i-- > 0;) {
		const char *k = c->items[i].key, *dot = strrchr(k, '.');

		if (strcmp(k, key) == 0 || (dot && strcmp(dot + 1, key) == 0))
			return c->items[i].value;
	}
	return NULL;
}

void jp_lint_config_dispose(struct jp_lint_config *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->items[i].key);
		free(c->items[i].value);
	}
	free(c->items);
	c->items = NULL;
	c->n = 0;
}

/* Keys that name what the job reads, not where it writes. */
static bool input_key(const char *key)
{
	static const char *const parts[] = { "data", "input", "init", "load", "resume",
					     "pretrained", "model_name", "tokenizer", "train_file",
					     "valid", "eval_file", "config", NULL };

	for (size_t i = 0; parts[i]; i++)
		if (strstr(key, parts[i]))
			return true;
	return false;
}

/* Where the job writes, as the key says: out_dir, output_dir, save_path, ... */
static bool output_key(const char *key)
{
	return !input_key(key) && jp_lint_output_option(key, strlen(key)) &&
	       (strstr(key, "dir") || strstr(key, "out") || strstr(key, "path") ||
		strstr(key, "save") || strstr(key, "ckpt") || strstr(key, "checkpoint"));
}

static void judge_outputs(struct lint *L, const struct lint_config_file *f)
{
	for (size_t i = 0; i < f->c.n && !L->oom; i++) {
		const struct jp_lint_kv *kv = &f->c.items[i];
		const char *key = strrchr(kv->key, '.') ? strrchr(kv->key, '.') + 1 : kv->key;
		char *path = NULL, *label = NULL;
		const char *root;

		if (!output_key(key) || !kv->value[0] || strcmp(kv->value, "None") == 0 ||
		    strcmp(kv->value, "null") == 0)
			continue;
		if (kv->line ? asprintf(&label, "%s:%u: %s = '%s'", f->name, kv->line, kv->key, kv->value) < 0
			     : asprintf(&label, "%s: %s = '%s'", f->name, kv->key, kv->value) < 0) {
			L->oom = 1;
			return;
		}
		if (!L->config_out_label) {
			L->config_out_label = strdup(label);
			L->config_out_value = strdup(kv->value);
			L->config_out_key = strdup(kv->key);
			L->oom |= !L->config_out_label || !L->config_out_value || !L->config_out_key;
		}
		if (kv->value[0] == '/' && (path = jp_path_normalize(kv->value))) {
			jp_lint_written(L, path);
			if ((root = jp_lint_ephemeral_root(L, path)))
				jp_lint_fail(L, JP_LINT_EPHEMERAL, label, path,
				    _("%s, which the launch command names, sends the job's output to %s, "
				      "under %s, which is wiped when the job ends: set it under %s instead "
				      "(e.g. \"$CHECKPOINT_DIR\", or pass --%s=\"$CHECKPOINT_DIR\")"),
				    label, path, root, jp_lint_shared_root(L), kv->key);
		}
		free(path);
		free(label);
	}
}

void jp_lint_read_config(struct lint *L, const char *path, const char *name)
{
	struct lint_config_file *g;
	char *text;

	for (size_t i = 0; i < L->n_configs; i++)
		if (strcmp(L->configs[i].path, path) == 0)
			return;
	if (!(text = jp_lint_read_text(L, path, MAX_SCRIPT_BYTES)))
		return;
	g = realloc(L->configs, (L->n_configs + 1) * sizeof(*g));
	if (!g) {
		free(text);
		L->oom = 1;
		return;
	}
	L->configs = g;
	g = &L->configs[L->n_configs];
	*g = (struct lint_config_file){ strdup(path), strdup(name), JP_LINT_CONFIG_INIT };
	if (!g->path || !g->name || jp_lint_config_parse(&g->c, path, text, strlen(text)) < 0) {
		free(g->path);
		free(g->name);
		jp_lint_config_dispose(&g->c);
		free(text);
		L->oom = 1;
		return;
	}
	L->n_configs++;
	free(text);
	judge_outputs(L, g);
}

const char *jp_lint_config_value(const struct lint *L, const char *key, const char **from)
{
	const char *v = jp_lint_config_get(&L->overrides, key);

	if (v) {
		if (from)
			*from = NULL;
		return v;
	}
	for (size_t i = L->n_configs; i-- > 0;)
		if ((v = jp_lint_config_get(&L->configs[i].c, key))) {
			if (from)
				*from = L->configs[i].name;
			return v;
		}
	return NULL;
}
