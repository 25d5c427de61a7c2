/* The launch lint's look for a resume: does the program the command runs
 * start from its checkpoint folder? The forms: nanoGPT's
 * `--init_from=resume` (and `init_from = 'resume'` in the Python configs
 * the command names, or in the script itself), `--resume_from_checkpoint`,
 * `--resume auto`, `resume: true` in a YAML/JSON/TOML config the command
 * names, `resume=true` overrides. Read in the command's order, the last
 * word on a key wins (nanoGPT's configurator: the script's defaults, then
 * each config file, then each --key=value). Files are read bounded
 * (jp_probe_read_file), never run. What says so ends in L->resume;
 * src/resume.c judges it against the earlier runs' checkpoints. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/path.h"
#include "path_internal.h"
#include "jobprep/probe.h"
#include "lint_internal.h"
#include "probe_internal.h"

#define RESUME_CONFIG_BYTES (256 * 1024) /* what is read of a config */

/* What a resume key says: +1 resumes, -1 does not, 0 not a resume key. */
struct said {
	int verdict;
	char *why; /* the word or line that said it last */
};

static bool falsy(const char *v)
{
	static const char *const no[] = { "false", "no", "none", "null", "0", "off", "never",
					  "scratch", "", NULL };

	for (size_t i = 0; no[i]; i++)
		if (strcasecmp(v, no[i]) == 0)
			return true;
	return false;
}

/* key lower-cased, '-' as '_', leading '-' and '+' dropped, into buf. */
static void key_name(char *buf, size_t size, const char *key, size_t len)
{
	size_t n = 0;

	while (len && (*key == '-' || *key == '+')) {
		key++;
		len--;
	}
	for (size_t i = 0; i < len && n + 1 < size; i++)
		buf[n++] = key[i] == '-' ? '_' : (char)tolower((unsigned char)key[i]);
	buf[n] = '\0';
}

static bool resume_key(const char *k)
{
	static const char *const keys[] = { "resume", "auto_resume", "resume_training",
					    "resume_from_checkpoint", "resume_from", "resume_ckpt",
					    "resume_checkpoint", NULL };

	for (size_t i = 0; keys[i]; i++)
		if (strcmp(k, keys[i]) == 0)
			return true;
	return false;
}

/* A path elsewhere than this run's folders: the person chose where from. */
static bool points_elsewhere(const struct lint *L, const char *v)
{
	const struct jp_lint_context *ctx = L->ctx;

	if (v[0] != '/')
		return false;
	return !(ctx->output_dir && jp_path_is_under(v, ctx->output_dir)) &&
	       !(ctx->checkpoint_dir && jp_path_is_under(v, ctx->checkpoint_dir));
}

/* key (len bytes, as written) set to value (NULL: a flag alone). */
static int judge(const struct lint *L, const char *key, size_t len, const char *value)
{
	char k[64];

	key_name(k, sizeof(k), key, len);
	if (strcmp(k, "init_from") == 0)
		return value && strcmp(value, "resume") == 0 ? 1 : value ? -1 : 0;
	if (!resume_key(k))
		return 0;
	if (!value)
		return 1;
	return falsy(value) || points_elsewhere(L, value) ? -1 : 1;
}

static void say(struct lint *L, struct said *s, int verdict, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void say(struct lint *L, struct said *s, int verdict, const char *fmt, ...)
{
	va_list ap;
	char *why = NULL;

	if (!verdict)
		return;
	va_start(ap, fmt);
	if (vasprintf(&why, fmt, ap) < 0) {
		why = NULL;
		L->oom = 1;
	}
	va_end(ap);
	free(s->why);
	s->why = why;
	s->verdict = verdict;
}

/* The value of a config line, unquoted, comment and trailing comma cut,
 * into buf. */
static void line_value(char *buf, size_t size, const char *v, const char *end)
{
	size_t n = 0;
	char quote = 0;

	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	if (v < end && (*v == '\'' || *v == '"'))
		quote = *v++;
	for (; v < end && n + 1 < size; v++) {
		if (quote ? *v == quote : (*v == '#' || *v == ',' || *v == '}' || *v == ']'))
			break;
		buf[n++] = *v;
	}
	while (n && (buf[n - 1] == ' ' || buf[n - 1] == '\t' || buf[n - 1] == '\r'))
		n--;
	buf[n] = '\0';
}

/* A Python value written as a literal: a string, a bool, None, a number. */
static bool literal(const char *v, const char *end, const char *value)
{
	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	if (v < end && (*v == '\'' || *v == '"'))
		return true;
	return strcmp(value, "True") == 0 || strcmp(value, "False") == 0 ||
	       strcmp(value, "None") == 0 || (value[0] >= '0' && value[0] <= '9');
}

/* One line of a config (or of the script: top level only). */
static void config_line(struct lint *L, struct said *s, const char *name, unsigned line_no,
			const char *p, const char *end, bool python)
{
	const char *key, *sep, *from;
	size_t len;
	char value[512];
	int v;

	if (python && (*p == ' ' || *p == '\t'))
		return; /* inside a function or a block: not the config's */
	while (p < end && (*p == ' ' || *p == '\t' || *p == '-'))
		p++;
	from = p;
	if (p < end && *p == '"')
		p++;
	key = p;
	while (p < end && (isalnum((unsigned char)*p) || *p == '_' || *p == '-'))
		p++;
	len = (size_t)(p - key);
	if (p < end && *p == '"')
		p++;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (!len || p >= end || (*p != '=' && *p != ':') || (p + 1 < end && p[1] == '='))
		return;
	sep = p;
	line_value(value, sizeof(value), sep + 1, end);
	if (python && !literal(sep + 1, end, value))
		return; /* resume = args.resume: known when it runs */
	v = judge(L, key, len, value[0] || *sep == '=' ? value : "");
	/* "resume:" opening a block says nothing */
	while (end > sep && strchr(" \t\r,}]", end[-1]))
		end--;
	if (v && !(value[0] == '\0' && *sep == ':'))
		say(L, s, v, "%s:%u: %.*s", name, line_no, (int)(end - from), from);
}

/* The config (or script) at path, its lines judged in order. */
static void read_config(struct lint *L, struct said *s, const char *path)
{
	const char *proj = L->ctx->project_dir;
	const char *name = path, *p, *nl;
	char *text = NULL;
	size_t len = 0;
	unsigned line_no = 1;
	size_t n = strlen(path);
	bool python = n > 3 && strcmp(path + n - 3, ".py") == 0;

	if (L->hung || L->looks >= MAX_LOOKS)
		return;
	L->looks++;
	if (jp_probe_read_file(&text, &len, path, RESUME_CONFIG_BYTES, 0, NULL) < 0) {
		if (errno == ETIMEDOUT) /* no answer: its mount hangs */
			L->hung = true;
		return;
	}
	if (proj && jp_path_is_under(path, proj) && strlen(path) > strlen(proj))
		name = path + strlen(proj) + 1;
	for (p = text; p < text + len && !L->oom; p = nl + 1, line_no++) {
		nl = memchr(p, '\n', (size_t)(text + len - p));
		if (!nl)
			nl = text + len;
		config_line(L, s, name, line_no, p, nl, python);
	}
	free(text);
}

static bool config_file(const char *s)
{
	static const char *const ext[] = { ".py", ".yaml", ".yml", ".json", ".toml", NULL };
	size_t n = strlen(s);

	for (size_t i = 0; ext[i]; i++) {
		size_t e = strlen(ext[i]);
		if (n > e && strcmp(s + n - e, ext[i]) == 0)
			return true;
	}
	return false;
}

/* The file word w names, when it is a config in the code here: read. */
static void maybe_config(struct lint *L, struct said *s, const struct jp_sh_word *w,
			 const char *text)
{
	char *path = NULL;
	const char *dir = jp_lint_dir(L);

	if (!L->ctx->project_is_local || !config_file(text) || strpbrk(text, "$`*?"))
		return;
	if (text[0] == '/')
		path = jp_path_normalize(text);
	else if (dir) {
		char *j = jp_path_join(dir, text);
		path = j ? jp_path_normalize(j) : NULL;
		free(j);
	} else {
		return;
	}
	(void)w;
	if (!path) {
		L->oom = 1;
		return;
	}
	read_config(L, s, path);
	free(path);
}

/* word k of c: --key=value, --key value, --flag, key=value, a config. */
static size_t judge_word(struct lint *L, struct said *s, const struct cmd *c, size_t k)
{
	char *e = jp_lint_expand(L, c->args[k]);
	const char *t = e ? e : c->args[k]->text, *eq = strchr(t, '=');
	size_t used = 1;

	if (t[0] == '-' && t[1]) {
		if (eq) {
			say(L, s, judge(L, t, (size_t)(eq - t), eq + 1), "%s", c->args[k]->text);
			maybe_config(L, s, c->args[k], eq + 1);
		} else if (k + 1 < c->n && !is_option(c->args[k + 1]->text)) {
			char *v = jp_lint_expand(L, c->args[k + 1]);
			const char *vt = v ? v : c->args[k + 1]->text;
			int verdict = judge(L, t, strlen(t), vt);

			if (verdict || strcmp(t, "-c") == 0 || strstr(t, "config") || strstr(t, "cfg")) {
				say(L, s, verdict, "%s %s", c->args[k]->text, c->args[k + 1]->text);
				maybe_config(L, s, c->args[k + 1], vt);
				used = 2;
			}
			free(v);
		} else {
			say(L, s, judge(L, t, strlen(t), NULL), "%s", c->args[k]->text);
		}
	} else if (eq) {
		say(L, s, judge(L, t, (size_t)(eq - t), eq + 1), "%s", c->args[k]->text);
	} else {
		maybe_config(L, s, c->args[k], t);
	}
	free(e);
	return used;
}

void jp_lint_resume(struct lint *L, const struct cmd *c, size_t j)
{
	struct said s = { 0, NULL };

	if (L->resume || j >= c->n)
		return;
	/* the script's own defaults first (a Python file) */
	{
		char *e = jp_lint_expand(L, c->args[j]);
		size_t n = e ? strlen(e) : 0;

		if (e && n > 3 && strcmp(e + n - 3, ".py") == 0)
			maybe_config(L, &s, c->args[j], e);
		free(e);
	}
	for (size_t k = j + 1; k < c->n && !L->oom;)
		k += judge_word(L, &s, c, k);
	if (s.verdict > 0 && !L->oom)
		L->resume = s.why;
	else
		free(s.why);
}
