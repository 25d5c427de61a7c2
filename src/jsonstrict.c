/* The strict pass over JSON text: grammar (RFC 8259), UTF-8, duplicate keys,
 * NUL in strings, nesting depth, and integers too large for a double.
 * A recursive descent whose depth is bounded by max_depth. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "jobprep/i18n.h"
#include "jsonstrict.h"
#include "jobprep/textquote.h"
#include "jobprep/utf8.h"

/* --- field paths --------------------------------------------------------- */

static int path_reserve(struct jp_json_path *p, size_t extra)
{
	size_t need = p->len + extra + 1;

	if (need > p->cap) {
		size_t cap = p->cap ? p->cap : 64;
		char *grown;

		while (cap < need)
			cap *= 2;
		grown = realloc(p->s, cap);
		if (!grown)
			return JP_ENOMEM;
		p->s = grown;
		p->cap = cap;
	}
	return 0;
}

size_t jp_json_path_push_key(struct jp_json_path *p, const char *key, size_t key_len)
{
	size_t old = p->len;
	const char *nul = memchr(key, '\0', key_len);
	char *raw, *shown = NULL;

	if (nul)
		key_len = (size_t)(nul - key);
	/* A key is a name from the file: a control character in it must not
	 * reach the terminal with the message ("job.env.\"A\\nB\""). */
	if (!(raw = strndup(key, key_len)) || jp_text_quote(&shown, raw, JP_TEXT_QUOTED) < 0) {
		free(raw);
		return old;
	}
	free(raw);
	key_len = strlen(shown);
	if (path_reserve(p, key_len + 1) < 0) {
		free(shown);
		return old;
	}
	if (p->len > 0)
		p->s[p->len++] = '.';
	memcpy(p->s + p->len, shown, key_len);
	p->len += key_len;
	p->s[p->len] = '\0';
	free(shown);
	return old;
}

size_t jp_json_path_push_index(struct jp_json_path *p, size_t index)
{
	size_t old = p->len;
	char num[32];
	int n = snprintf(num, sizeof(num), "[%zu]", index);

	if (path_reserve(p, (size_t)n) < 0)
		return old;
	memcpy(p->s + p->len, num, (size_t)n + 1);
	p->len += (size_t)n;
	return old;
}

void jp_json_path_pop(struct jp_json_path *p, size_t len)
{
	if (len < p->len) {
		p->len = len;
		p->s[len] = '\0';
	}
}

const char *jp_json_path_str(const struct jp_json_path *p)
{
	return p->len > 0 ? p->s : _("(top level)");
}

void jp_json_path_dispose(struct jp_json_path *p)
{
	free(p->s);
	p->s = NULL;
	p->len = p->cap = 0;
}

/* --- a set of keys, to find duplicates in one object --------------------- */

struct keyset {
	char **keys; /* open addressing; each key prefixed by its length */
	size_t cap, n;
};

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

static void keyset_dispose(struct keyset *ks)
{
	for (size_t i = 0; i < ks->cap; i++)
		free(ks->keys[i]);
	free(ks->keys);
}

static bool slot_holds(const char *slot, const char *key, size_t n)
{
	size_t len;

	memcpy(&len, slot, sizeof(len));
	return len == n && memcmp(slot + sizeof(len), key, n) == 0;
}

static size_t slot_find(char **keys, size_t cap, const char *key, size_t n)
{
	size_t i = (size_t)hash_bytes(key, n) & (cap - 1);

	while (keys[i] && !slot_holds(keys[i], key, n))
		i = (i + 1) & (cap - 1);
	return i;
}

/* 1 when key was new and is now in the set, 0 when already there. */
static int keyset_add(struct keyset *ks, const char *key, size_t n)
{
	char *entry;
	size_t i;

	if ((ks->n + 1) * 2 > ks->cap) {
		size_t cap = ks->cap ? ks->cap * 2 : 16;
		char **keys = calloc(cap, sizeof(*keys));

		if (!keys)
			return JP_ENOMEM;
		for (size_t j = 0; j < ks->cap; j++) {
			size_t len;

			if (!ks->keys[j])
				continue;
			memcpy(&len, ks->keys[j], sizeof(len));
			keys[slot_find(keys, cap, ks->keys[j] + sizeof(len), len)] = ks->keys[j];
		}
		free(ks->keys);
		ks->keys = keys;
		ks->cap = cap;
	}
	i = slot_find(ks->keys, ks->cap, key, n);
	if (ks->keys[i])
		return 0;
	entry = malloc(sizeof(n) + n);
	if (!entry)
		return JP_ENOMEM;
	memcpy(entry, &n, sizeof(n));
	memcpy(entry + sizeof(n), key, n);
	ks->keys[i] = entry;
	ks->n++;
	return 1;
}

/* --- the scanner --------------------------------------------------------- */

struct scanner {
	const unsigned char *start, *p, *end;
	const char *origin;
	struct jp_error *err;
	unsigned max_depth;
	struct jp_json_path path;
	struct jp_json_scan *out;
	size_t n_numbers; /* numbers seen so far */
	const unsigned char *where_at; /* the last position located, and where it is */
	size_t where_line, where_col;
	struct jp_buf str; /* the last string, decoded */
	bool str_has_nul;
	bool bad;
	bool oom;
};

/* Line and column (in characters) of `at`. Errors come mostly in text
 * order, so count on from the last one: linear in all, not per error. */
static void where(struct scanner *s, const unsigned char *at, size_t *line, size_t *col)
{
	if (!s->where_at || at < s->where_at) {
		s->where_at = s->start;
		s->where_line = 1;
		s->where_col = 1;
	}
	for (const unsigned char *q = s->where_at; q < at; q++) {
		if (*q == '\n') {
			s->where_line++;
			s->where_col = 1;
		} else if ((*q & 0xC0) != 0x80) {
			s->where_col++;
		}
	}
	s->where_at = at;
	*line = s->where_line;
	*col = s->where_col;
}

/* What sits at `at`, for "got ...". */
static void describe(const struct scanner *s, const unsigned char *at, char *buf, size_t size)
{
	uint32_t cp;
	size_t n;

	if (at >= s->end) {
		snprintf(buf, size, "%s", _("the end of the text"));
		return;
	}
	if (*at > 0x20 && *at < 0x7F) {
		snprintf(buf, size, "'%c'", *at);
		return;
	}
	if (*at < 0x80) {
		snprintf(buf, size, _("the control character U+%04X"), *at);
		if (*at == ' ')
			snprintf(buf, size, "%s", _("a space"));
		return;
	}
	n = jp_utf8_decode(&cp, (const char *)at, (size_t)(s->end - at));
	if (n == 0)
		snprintf(buf, size, _("the byte 0x%02X, which is not UTF-8"), *at);
	else if (cp == 0xFEFF)
		snprintf(buf, size, "%s", _("a byte order mark (U+FEFF)"));
	else
		snprintf(buf, size, "'%.*s' (U+%04" PRIX32 ")", (int)n, (const char *)at, cp);
}

static void report(struct scanner *s, const unsigned char *at, const char *expected,
		   const char *got)
{
	size_t line, col;

	where(s, at, &line, &col);
	s->bad = true;
	jp_error_set(s->err, JP_EFORMAT, _("%s:%zu:%zu: %s: expected %s, got %s"), s->origin, line,
		     col, jp_json_path_str(&s->path), expected, got);
}

/* A syntax error: the text is not JSON; scanning stops. */
static bool syntax(struct scanner *s, const char *expected)
{
	char got[64];

	describe(s, s->p, got, sizeof(got));
	report(s, s->p, expected, got);
	s->out->fatal = true;
	return false;
}

static void skip_ws(struct scanner *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
		s->p++;
}

static bool str_append(struct scanner *s, const void *bytes, size_t n)
{
	if (jp_buf_addn(&s->str, bytes, n) < 0) {
		s->oom = true;
		return false;
	}
	return true;
}

static bool append_cp(struct scanner *s, uint32_t cp)
{
	char b[4];

	return str_append(s, b, jp_utf8_encode(b, cp));
}

static bool hex4(struct scanner *s, uint32_t *out)
{
	uint32_t v = 0;

	for (int i = 0; i < 4; i++, s->p++) {
		unsigned c = s->p < s->end ? *s->p : 0;

		if (c >= '0' && c <= '9')
			v = v * 16 + (c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v * 16 + (c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v = v * 16 + (c - 'A' + 10);
		else
			return syntax(s, _("four hexadecimal digits after \\u"));
	}
	*out = v;
	return true;
}

static bool scan_escape(struct scanner *s)
{
	const unsigned char *esc = s->p;
	uint32_t cp, lo;
	char c;

	s->p++; /* the backslash */
	if (s->p >= s->end)
		return syntax(s, _("an escape sequence"));
	switch (*s->p) {
	case '"': c = '"'; break;
	case '\\': c = '\\'; break;
	case '/': c = '/'; break;
	case 'b': c = '\b'; break;
	case 'f': c = '\f'; break;
	case 'n': c = '\n'; break;
	case 'r': c = '\r'; break;
	case 't': c = '\t'; break;
	case 'u':
		s->p++;
		if (!hex4(s, &cp))
			return false;
		if (cp >= 0xDC00 && cp <= 0xDFFF) {
			s->p = esc;
			return syntax(s, _("a high surrogate (\\uD800-\\uDBFF) before a low one"));
		}
		if (cp >= 0xD800 && cp <= 0xDBFF) {
			if (s->end - s->p < 2 || s->p[0] != '\\' || s->p[1] != 'u')
				return syntax(s, _("a low surrogate (\\uDC00-\\uDFFF) after a high one"));
			s->p += 2;
			if (!hex4(s, &lo))
				return false;
			if (lo < 0xDC00 || lo > 0xDFFF) {
				s->p -= 6;
				return syntax(s, _("a low surrogate (\\uDC00-\\uDFFF) after a high one"));
			}
			cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
		}
		if (cp == 0)
			s->str_has_nul = true; /* kept, so "a\u0000" and "a" differ */
		return append_cp(s, cp);
	default:
		return syntax(s, _("one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX"));
	}
	s->p++;
	return str_append(s, &c, 1);
}

/* A string at s->p (on its opening quote), decoded into s->str. */
static bool scan_string(struct scanner *s)
{
	s->str.len = 0;
	s->str_has_nul = false;
	if (!str_append(s, "", 0))
		return false;
	s->p++;
	for (;;) {
		const unsigned char *run = s->p;
		uint32_t cp;
		size_t n;

		while (s->p < s->end && *s->p >= 0x20 && *s->p < 0x80 && *s->p != '"' &&
		       *s->p != '\\')
			s->p++;
		if (!str_append(s, run, (size_t)(s->p - run)))
			return false;
		if (s->p >= s->end)
			return syntax(s, _("a closing '\"'"));
		if (*s->p == '"') {
			s->p++;
			return true;
		}
		if (*s->p == '\\') {
			if (!scan_escape(s))
				return false;
			continue;
		}
		if (*s->p < 0x20)
			return syntax(s, _("control characters escaped (\\n, \\t, \\u00XX)"));
		n = jp_utf8_decode(&cp, (const char *)s->p, (size_t)(s->end - s->p));
		if (n == 0)
			return syntax(s, _("UTF-8 text"));
		if (!str_append(s, s->p, n))
			return false;
		s->p += n;
	}
}

static void report_nul(struct scanner *s, const unsigned char *at)
{
	report(s, at, _("a string without NUL characters"), _("one containing \\u0000"));
}

static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static bool record_big(struct scanner *s, const unsigned char *from, size_t n)
{
	struct jp_json_big big;
	struct jp_json_big *grown;

	big.ordinal = s->n_numbers - 1;
	big.path = strdup(jp_json_path_str(&s->path));
	big.lexeme = strndup((const char *)from, n);
	grown = realloc(s->out->big, (s->out->n_big + 1) * sizeof(*grown));
	if (!big.path || !big.lexeme || !grown) {
		free(big.path);
		free(big.lexeme);
		if (grown)
			s->out->big = grown;
		s->oom = true;
		return false;
	}
	s->out->big = grown;
	s->out->big[s->out->n_big++] = big;
	return true;
}

/* Where the literal falls for a double: 1 beyond its range (strtod gives
 * inf), -1 so small it reads as 0 though a digit is not 0 (1e-400), else 0. */
static int out_of_range(struct scanner *s, const unsigned char *from, size_t n)
{
	char *copy = strndup((const char *)from, n);
	double d;
	int rc = 0;

	if (!copy) {
		s->oom = true;
		return 0;
	}
	d = strtod(copy, NULL);
	if (isinf(d)) {
		rc = 1;
	} else if (d == 0) {
		for (const char *p = copy; *p && *p != 'e' && *p != 'E'; p++)
			if (*p >= '1' && *p <= '9')
				rc = -1;
	}
	free(copy);
	return rc;
}

static bool scan_number(struct scanner *s)
{
	const unsigned char *from = s->p, *digits;
	bool integer = true;
	size_t n;

	s->n_numbers++;
	if (*s->p == '-')
		s->p++;
	digits = s->p;
	if (s->p >= s->end || !is_digit(*s->p))
		return syntax(s, _("a digit"));
	if (*s->p == '0') {
		s->p++;
		if (s->p < s->end && is_digit(*s->p))
			return syntax(s, _("a number without leading zeros"));
	} else {
		while (s->p < s->end && is_digit(*s->p))
			s->p++;
	}
	n = (size_t)(s->p - digits);
	if (s->p < s->end && *s->p == '.') {
		integer = false;
		s->p++;
		if (s->p >= s->end || !is_digit(*s->p))
			return syntax(s, _("a digit after the decimal point"));
		while (s->p < s->end && is_digit(*s->p))
			s->p++;
	}
	if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
		integer = false;
		s->p++;
		if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
			s->p++;
		if (s->p >= s->end || !is_digit(*s->p))
			return syntax(s, _("a digit in the exponent"));
		while (s->p < s->end && is_digit(*s->p))
			s->p++;
	}
	/* 2^53 = 9007199254740992 has 16 digits. Only integer literals: a
	 * fraction or exponent makes a double, as in Python, and only one
	 * beyond a double's range is lost entirely. */
	if (integer)
		return (n > 16 || (n == 16 && memcmp(digits, "9007199254740992", 16) > 0))
			       ? record_big(s, from, (size_t)(s->p - from))
			       : true;
	switch (out_of_range(s, from, (size_t)(s->p - from))) {
	case 1:
		return record_big(s, from, (size_t)(s->p - from));
	case -1: {
		char got[96];

		snprintf(got, sizeof(got), _("%.*s, which would read as 0"),
			 (int)((s->p - from) > 40 ? 40 : (s->p - from)), (const char *)from);
		report(s, from, _("a number within a double's range"), got);
		return true;
	}
	default:
		return !s->oom;
	}
}

static bool scan_literal(struct scanner *s)
{
	static const char *const words[] = { "true", "false", "null" };

	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(words[i]);

		if ((size_t)(s->end - s->p) >= n && memcmp(s->p, words[i], n) == 0) {
			s->p += n;
			return true;
		}
	}
	return syntax(s, _("a JSON value"));
}

static bool scan_value(struct scanner *s, unsigned depth);

static bool too_deep(struct scanner *s, unsigned depth)
{
	char expected[96];

	if (depth <= s->max_depth)
		return false;
	snprintf(expected, sizeof(expected), _("at most %u levels of nesting"), s->max_depth);
	report(s, s->p, expected, _("deeper nesting"));
	s->out->fatal = true;
	return true;
}

static bool scan_object(struct scanner *s, unsigned depth)
{
	struct keyset keys = { NULL, 0, 0 };
	bool ok = false;

	if (too_deep(s, depth))
		return false;
	s->p++;
	skip_ws(s);
	if (s->p < s->end && *s->p == '}') {
		s->p++;
		return true;
	}
	for (;;) {
		const unsigned char *key_at;
		size_t mark;
		int added;

		skip_ws(s);
		if (s->p >= s->end || *s->p != '"') {
			syntax(s, _("a field name in double quotes"));
			goto out;
		}
		key_at = s->p;
		if (!scan_string(s))
			goto out;
		mark = jp_json_path_push_key(&s->path, s->str.s, s->str.len);
		if (s->str_has_nul)
			report_nul(s, key_at);
		added = keyset_add(&keys, s->str.s, s->str.len);
		if (added < 0) {
			s->oom = true;
			goto out;
		}
		if (added == 0)
			report(s, key_at, _("each field once"), _("it again"));
		skip_ws(s);
		if (s->p >= s->end || *s->p != ':') {
			syntax(s, _("':' after the field name"));
			goto out;
		}
		s->p++;
		if (!scan_value(s, depth))
			goto out;
		jp_json_path_pop(&s->path, mark);
		skip_ws(s);
		if (s->p < s->end && *s->p == ',') {
			s->p++;
			continue;
		}
		if (s->p < s->end && *s->p == '}') {
			s->p++;
			ok = true;
			goto out;
		}
		syntax(s, _("',' or '}'"));
		goto out;
	}
out:
	keyset_dispose(&keys);
	return ok;
}

static bool scan_array(struct scanner *s, unsigned depth)
{
	if (too_deep(s, depth))
		return false;
	s->p++;
	skip_ws(s);
	if (s->p < s->end && *s->p == ']') {
		s->p++;
		return true;
	}
	for (size_t i = 0;; i++) {
		size_t mark = jp_json_path_push_index(&s->path, i);

		if (!scan_value(s, depth))
			return false;
		jp_json_path_pop(&s->path, mark);
		skip_ws(s);
		if (s->p < s->end && *s->p == ',') {
			s->p++;
			continue;
		}
		if (s->p < s->end && *s->p == ']') {
			s->p++;
			return true;
		}
		return syntax(s, _("',' or ']'"));
	}
}

/* A value; `depth` counts the containers around it. */
static bool scan_value(struct scanner *s, unsigned depth)
{
	const unsigned char *at;

	skip_ws(s);
	if (s->p >= s->end)
		return syntax(s, _("a JSON value"));
	at = s->p;
	switch (*s->p) {
	case '{':
		return scan_object(s, depth + 1);
	case '[':
		return scan_array(s, depth + 1);
	case '"':
		if (!scan_string(s))
			return false;
		if (s->str_has_nul)
			report_nul(s, at);
		return true;
	case '-':
	case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		return scan_number(s);
	default:
		return scan_literal(s);
	}
}

int jp_json_scan(struct jp_json_scan *out, const char *text, size_t len, const char *origin,
		 unsigned max_depth, struct jp_error *err)
{
	struct scanner s;

	memset(&s, 0, sizeof(s));
	out->fatal = false;
	out->big = NULL;
	out->n_big = 0;
	s.start = s.p = (const unsigned char *)text;
	s.end = s.start + len;
	s.origin = origin;
	s.err = err;
	s.max_depth = max_depth;
	s.out = out;

	if (scan_value(&s, 0)) {
		skip_ws(&s);
		if (s.p < s.end)
			syntax(&s, _("the end of the text after the JSON value"));
	}
	jp_json_path_dispose(&s.path);
	jp_buf_dispose(&s.str);
	if (s.oom) {
		out->fatal = true;
		return jp_error_oom(err);
	}
	return s.bad ? JP_EFORMAT : 0;
}

void jp_json_scan_dispose(struct jp_json_scan *scan)
{
	for (size_t i = 0; i < scan->n_big; i++) {
		free(scan->big[i].path);
		free(scan->big[i].lexeme);
	}
	free(scan->big);
	scan->big = NULL;
	scan->n_big = 0;
	scan->fatal = false;
}
