/* UTF-8 decoding and display widths for the wizard's text. */
#include "config.h"

#include <wchar.h>

#include "tui/utf8.h"

size_t jp_utf8_step(uint32_t *cp, const char *s, size_t len)
{
	size_t n = jp_utf8_decode(cp, s, len);

	return n ? n : len ? 1 : 0;
}

int jp_utf8_cp_width(uint32_t cp)
{
	int w;

	if (cp == 0xFFFD)
		return 1;
	w = wcwidth((wchar_t)cp);
	if (w < 0)
		return 1; /* control or unknown: drawn as one '?' */
	return w > 2 ? 2 : w;
}

int jp_utf8_width(const char *s, size_t len)
{
	size_t i = 0;
	int cols = 0;
	uint32_t cp;

	while (i < len) {
		i += jp_utf8_step(&cp, s + i, len - i);
		cols += jp_utf8_cp_width(cp);
	}
	return cols;
}

int jp_utf8_swidth(const char *s)
{
	size_t len = 0;

	while (s[len])
		len++;
	return jp_utf8_width(s, len);
}

size_t jp_utf8_fit(const char *s, size_t len, int cols, int *used)
{
	size_t i = 0, n;
	int w = 0, cw;
	uint32_t cp;

	while (i < len) {
		n = jp_utf8_step(&cp, s + i, len - i);
		cw = jp_utf8_cp_width(cp);
		if (w + cw > cols)
			break;
		w += cw;
		i += n;
	}
	if (used)
		*used = w;
	return i;
}

size_t jp_utf8_prev(const char *s, size_t pos)
{
	size_t start, back;
	uint32_t cp;

	if (pos == 0)
		return 0;
	/* Step back over continuation bytes, at most 3, then make sure the
	 * sequence found really ends at pos; otherwise it was a stray byte. */
	start = pos - 1;
	back = 0;
	while (start > 0 && back < 3 && ((unsigned char)s[start] & 0xC0) == 0x80) {
		start--;
		back++;
	}
	if (jp_utf8_step(&cp, s + start, pos - start) == pos - start)
		return start;
	return pos - 1;
}

size_t jp_utf8_next(const char *s, size_t len, size_t pos)
{
	uint32_t cp;

	if (pos >= len)
		return len;
	return pos + jp_utf8_step(&cp, s + pos, len - pos);
}

/* Chinese has no spaces between words: a line may break beside any wide
 * character, but not before closing punctuation (，。）...) or after opening
 * punctuation (（「“...), which stay with their text. */
static const uint32_t opening[] = {
	0x2018, 0x201C, 0x3008, 0x300A, 0x300C, 0x300E, 0x3010, 0x3014, 0xFF08, 0xFF3B, 0xFF5B,
}; /* ‘ “ 〈 《 「 『 【 〔 （ ［ ｛ */
static const uint32_t closing[] = {
	0x2019, 0x201D, 0x2026, 0x3001, 0x3002, 0x3009, 0x300B, 0x300D, 0x300F, 0x3011,
	0x3015, 0xFF01, 0xFF09, 0xFF0C, 0xFF1A, 0xFF1B, 0xFF1F, 0xFF3D, 0xFF5D,
}; /* ’ ” … 、 。 〉 》 」 』 】 〕 ！ ） ， ： ； ？ ］ ｝ */

static bool one_of(uint32_t cp, const uint32_t *set, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (set[i] == cp)
			return true;
	return false;
}

#define OPENS(cp) one_of(cp, opening, sizeof(opening) / sizeof(opening[0]))
#define CLOSES(cp) one_of(cp, closing, sizeof(closing) / sizeof(closing[0]))

size_t jp_utf8_line_break(const char *s, size_t len, size_t fit)
{
	size_t i = 0, n, brk = 0;
	uint32_t cp, prev = 0;
	bool prev_wide = false, wide;

	while (i <= fit && i < len) {
		if (s[i] == '\n')
			return i;
		n = jp_utf8_step(&cp, s + i, len - i);
		wide = jp_utf8_cp_width(cp) == 2;
		if (s[i] == ' ')
			brk = i;
		else if (i > 0 && prev != ' ' && (wide || prev_wide) && !CLOSES(cp) && !OPENS(prev))
			brk = i;
		prev = cp;
		prev_wide = wide;
		i += n;
	}
	return brk > 0 ? brk : fit;
}
