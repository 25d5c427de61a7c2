/* The line editor's logic: text, cursor, kill ring of one, sideways view. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "jobprep/error.h"
#include "tui/lineedit.h"
#include "tui/utf8.h"

static int reserve(struct jp_lineedit *le, size_t need)
{
	size_t cap;
	char *p;

	if (need + 1 <= le->cap)
		return 0;
	cap = le->cap ? le->cap : 32;
	while (cap < need + 1)
		cap *= 2;
	p = malloc(cap);
	if (!p)
		return JP_ENOMEM;
	/* Copy rather than realloc so an old secret does not linger in freed
	 * memory. */
	if (le->buf) {
		memcpy(p, le->buf, le->len + 1);
		memset(le->buf, 0, le->cap);
		free(le->buf);
	} else {
		p[0] = '\0';
	}
	le->buf = p;
	le->cap = cap;
	return 0;
}

int jp_le_init(struct jp_lineedit *le, const char *text)
{
	size_t max = le->max;

	memset(le, 0, sizeof(*le));
	le->max = max;
	if (reserve(le, 0) < 0)
		return JP_ENOMEM;
	return jp_le_set(le, text);
}

void jp_le_dispose(struct jp_lineedit *le)
{
	if (le->buf) {
		memset(le->buf, 0, le->cap);
		free(le->buf);
	}
	if (le->kill) {
		memset(le->kill, 0, strlen(le->kill));
		free(le->kill);
	}
	memset(le, 0, sizeof(*le));
}

int jp_le_set(struct jp_lineedit *le, const char *text)
{
	size_t n = text ? strlen(text) : 0;

	if (reserve(le, n) < 0)
		return JP_ENOMEM;
	if (n)
		memcpy(le->buf, text, n);
	if (le->len > n)
		memset(le->buf + n, 0, le->len - n);
	le->len = n;
	le->buf[n] = '\0';
	le->cursor = n;
	le->scroll = 0;
	return 0;
}

const char *jp_le_text(const struct jp_lineedit *le)
{
	return le->buf ? le->buf : "";
}

/* The character at pos, including the zero-width marks that follow it. */
static size_t cluster_end(const struct jp_lineedit *le, size_t pos)
{
	uint32_t cp;
	size_t n;

	pos = jp_utf8_next(le->buf, le->len, pos);
	while (pos < le->len) {
		n = jp_utf8_step(&cp, le->buf + pos, le->len - pos);
		if (jp_utf8_cp_width(cp) != 0)
			break;
		pos += n;
	}
	return pos;
}

static size_t cluster_start(const struct jp_lineedit *le, size_t pos)
{
	uint32_t cp;
	size_t p;

	while (pos > 0) {
		p = jp_utf8_prev(le->buf, pos);
		jp_utf8_step(&cp, le->buf + p, pos - p);
		pos = p;
		if (jp_utf8_cp_width(cp) != 0)
			break;
	}
	return pos;
}

int jp_le_insert(struct jp_lineedit *le, const char *s, size_t n)
{
	if (n == 0)
		return 0;
	if (le->max && le->len + n > le->max)
		return JP_EUSAGE;
	if (reserve(le, le->len + n) < 0)
		return JP_ENOMEM;
	memmove(le->buf + le->cursor + n, le->buf + le->cursor,
		le->len - le->cursor + 1);
	memcpy(le->buf + le->cursor, s, n);
	le->len += n;
	le->cursor += n;
	return 0;
}

int jp_le_insert_cp(struct jp_lineedit *le, uint32_t cp)
{
	char b[4];
	size_t n = jp_utf8_encode(b, cp);

	if (n == 0 || cp == 0)
		return JP_EUSAGE;
	return jp_le_insert(le, b, n);
}

/* Remove [from, to) and, when `keep` is set, remember it for Ctrl-Y. */
static bool cut(struct jp_lineedit *le, size_t from, size_t to, bool keep)
{
	char *k;

	if (from >= to)
		return false;
	if (keep) {
		k = malloc(to - from + 1);
		if (k) {
			memcpy(k, le->buf + from, to - from);
			k[to - from] = '\0';
			if (le->kill) {
				memset(le->kill, 0, strlen(le->kill));
				free(le->kill);
			}
			le->kill = k;
		}
	}
	memmove(le->buf + from, le->buf + to, le->len - to + 1);
	le->len -= to - from;
	memset(le->buf + le->len + 1, 0, to - from);
	if (le->cursor >= to)
		le->cursor -= to - from;
	else if (le->cursor > from)
		le->cursor = from;
	if (le->scroll > le->cursor)
		le->scroll = le->cursor;
	return true;
}

static bool is_word_byte(char c)
{
	/* Paths are the usual text: '/', space, '-', '.', '_' separate words
	 * for word motions, like Ctrl-W in a shell that treats '/' as one. */
	return !(c == ' ' || c == '/' || c == '\t' || c == '-' || c == '.' ||
		 c == '_' || c == '=' || c == ':' || c == ',');
}

static size_t word_left(const struct jp_lineedit *le, size_t pos)
{
	while (pos > 0 && !is_word_byte(le->buf[pos - 1]))
		pos--;
	while (pos > 0 && is_word_byte(le->buf[pos - 1]))
		pos--;
	return pos;
}

static size_t word_right(const struct jp_lineedit *le, size_t pos)
{
	while (pos < le->len && !is_word_byte(le->buf[pos]))
		pos++;
	while (pos < le->len && is_word_byte(le->buf[pos]))
		pos++;
	return pos;
}

/* Ctrl-W: the word before the cursor plus the separators after it, like
 * readline's unix-filename-rubout ("/mnt/public/" -> "/mnt/"). */
static size_t rubout_start(const struct jp_lineedit *le, size_t pos)
{
	while (pos > 0 && (le->buf[pos - 1] == ' ' || le->buf[pos - 1] == '/'))
		pos--;
	while (pos > 0 && le->buf[pos - 1] != ' ' && le->buf[pos - 1] != '/')
		pos--;
	return pos;
}

bool jp_le_apply(struct jp_lineedit *le, enum jp_le_op op)
{
	size_t old = le->cursor;
	char *k;

	if (!le->buf)
		return false;
	switch (op) {
	case JP_LE_LEFT:
		le->cursor = cluster_start(le, le->cursor);
		break;
	case JP_LE_RIGHT:
		if (le->cursor < le->len)
			le->cursor = cluster_end(le, le->cursor);
		break;
	case JP_LE_HOME:
		le->cursor = 0;
		break;
	case JP_LE_END:
		le->cursor = le->len;
		break;
	case JP_LE_WORD_LEFT:
		le->cursor = word_left(le, le->cursor);
		break;
	case JP_LE_WORD_RIGHT:
		le->cursor = word_right(le, le->cursor);
		break;
	case JP_LE_BACKSPACE:
		return cut(le, cluster_start(le, le->cursor), le->cursor, false);
	case JP_LE_DELETE:
		if (le->cursor >= le->len)
			return false;
		return cut(le, le->cursor, cluster_end(le, le->cursor), false);
	case JP_LE_KILL_START:
		return cut(le, 0, le->cursor, true);
	case JP_LE_KILL_END:
		return cut(le, le->cursor, le->len, true);
	case JP_LE_KILL_WORD:
		return cut(le, rubout_start(le, le->cursor), le->cursor, true);
	case JP_LE_YANK:
		if (!le->kill || !le->kill[0])
			return false;
		k = le->kill;
		return jp_le_insert(le, k, strlen(k)) == 0;
	}
	return le->cursor != old;
}

int jp_le_cursor_col(const struct jp_lineedit *le)
{
	return le->buf ? jp_utf8_width(le->buf, le->cursor) : 0;
}

void jp_le_view(struct jp_lineedit *le, int width, size_t *start,
		size_t *end, int *cursor_col)
{
	int used;

	if (!le->buf || width < 1) {
		*start = *end = 0;
		*cursor_col = 0;
		return;
	}
	if (le->scroll > le->cursor)
		le->scroll = cluster_start(le, le->cursor);
	if (le->scroll > le->len)
		le->scroll = 0;
	/* When the text fits entirely, show it all from the start. */
	if (jp_utf8_width(le->buf, le->len) + 1 <= width)
		le->scroll = 0;
	/* Keep the cursor (and the column it needs) inside the window. */
	while (le->scroll < le->cursor &&
	       jp_utf8_width(le->buf + le->scroll, le->cursor - le->scroll) + 1 > width)
		le->scroll = cluster_end(le, le->scroll);
	*start = le->scroll;
	*end = le->scroll + jp_utf8_fit(le->buf + le->scroll, le->len - le->scroll,
					width, &used);
	*cursor_col = jp_utf8_width(le->buf + le->scroll, le->cursor - le->scroll);
}
