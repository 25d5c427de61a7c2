/* Drawing helpers: text that never spills past its width, and the notice
 * for a screen below the minimum (term.c only measures it). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curses.h>

#include "jobprep/error.h"
#include "jobprep/i18n.h"
#include "jobprep/strv.h"
#include "tui/draw.h"
#include "tui/utf8.h"

int jp_draw_textn(int y, int x, int width, enum jp_style style, const char *s,
		  size_t len)
{
	const struct jp_glyphs *g = jp_term_glyphs();
	size_t i = 0, n;
	int used = 0, cw;
	uint32_t cp;

	if (width <= 0 || y < 0 || y >= LINES || x >= COLS)
		return 0;
	if (x + width > COLS)
		width = COLS - x;
	attrset(jp_term_attr(style));
	move(y, x);
	while (i < len && s[i]) {
		n = jp_utf8_step(&cp, s + i, len - i);
		cw = jp_utf8_cp_width(cp);
		if (used + cw > width)
			break;
		if (cp < 0x20 || cp == 0x7f || cp == 0xFFFD || (cp >= 0x80 && cp < 0xa0) ||
		    (cp >= 0x80 && !g->unicode)) {
			addch('?');
			cw = 1;
		} else {
			addnstr(s + i, (int)n);
		}
		used += cw;
		i += n;
	}
	attrset(A_NORMAL);
	return used;
}

int jp_draw_text(int y, int x, int width, enum jp_style style, const char *s)
{
	return jp_draw_textn(y, x, width, style, s, s ? strlen(s) : 0);
}

/* s[0..len) cut to width - 1 columns (trailing blanks dropped), then the
 * ellipsis: for text known to go on. */
static int draw_cut(int y, int x, int width, enum jp_style style, const char *s, size_t len)
{
	size_t fit;
	int used;

	if (width <= 0)
		return 0;
	fit = jp_utf8_fit(s, len, width - 1, NULL);
	while (fit > 0 && s[fit - 1] == ' ')
		fit--;
	used = jp_draw_textn(y, x, width - 1, style, s, fit);
	return used + jp_draw_text(y, x + used, width - used, style, jp_term_glyphs()->ellipsis);
}

int jp_draw_textn_fit(int y, int x, int width, enum jp_style style, const char *s,
		      size_t len)
{
	size_t end = 0;

	if (!s)
		return 0;
	while (end < len && s[end])
		end++;
	if (width <= 0 || jp_utf8_width(s, end) <= width)
		return jp_draw_textn(y, x, width, style, s, end);
	return draw_cut(y, x, width, style, s, end);
}

int jp_draw_text_fit(int y, int x, int width, enum jp_style style, const char *s)
{
	return jp_draw_textn_fit(y, x, width, style, s, s ? strlen(s) : 0);
}

int jp_draw_text_tail(int y, int x, int width, enum jp_style style, const char *s)
{
	size_t len = strlen(s), start = 0;
	int w = jp_utf8_width(s, len), used;

	if (w <= width)
		return jp_draw_text(y, x, width, style, s);
	if (width < 2)
		return 0;
	/* Drop characters from the front until the rest fits after the marker. */
	while (start < len && jp_utf8_width(s + start, len - start) > width - 1)
		start = jp_utf8_next(s, len, start);
	used = jp_draw_text(y, x, 1, JP_STYLE_DIM, jp_term_glyphs()->more_left);
	return used + jp_draw_text(y, x + used, width - used, style, s + start);
}

void jp_draw_fill(int y, int x, int width, enum jp_style style)
{
	if (width <= 0 || y < 0 || y >= LINES)
		return;
	if (x + width > COLS)
		width = COLS - x;
	attrset(jp_term_attr(style));
	mvhline(y, x, ' ', width);
	attrset(A_NORMAL);
}

int jp_draw_wrap(int y, int x, int width, int max_lines, enum jp_style style,
		 const char *text)
{
	size_t len = strlen(text), i = 0, fit, brk, last = 0, last_brk = 0;
	int lines = 0;

	if (width < 1)
		return 0;
	while (i < len) {
		while (i < len && text[i] == ' ')
			i++;
		if (i >= len)
			break;
		fit = jp_utf8_fit(text + i, len - i, width, NULL);
		if (fit == 0)
			fit = jp_utf8_next(text, len, i) - i;
		brk = fit;
		if (i + fit < len) {
			/* A newline first, else the last break that fits. */
			brk = jp_utf8_line_break(text + i, len - i, fit);
		} else {
			size_t j;

			for (j = 0; j < fit; j++)
				if (text[i + j] == '\n') {
					brk = j;
					break;
				}
		}
		if (max_lines >= 1) {
			if (lines >= max_lines) {
				/* More text than lines: the last line says so. */
				jp_draw_fill(y + lines - 1, x, width, style);
				draw_cut(y + lines - 1, x, width, style, text + last, last_brk);
				break;
			}
			jp_draw_textn(y + lines, x, width, style, text + i, brk);
		}
		last = i;
		last_brk = brk;
		lines++;
		i += brk;
		if (i < len && text[i] == '\n')
			i++;
	}
	return lines;
}

int jp_wrap_lines(struct jp_strv *out, const char *text, int width)
{
	size_t len = strlen(text), i = 0, end, fit, brk;
	char *line;
	int rc;

	if (width < 1)
		width = 1;
	while (i <= len) {
		const char *nl = memchr(text + i, '\n', len - i);

		end = nl ? (size_t)(nl - text) : len;
		if (end == i) {
			if (jp_strv_push(out, "") < 0)
				return JP_ENOMEM;
		}
		while (i < end) {
			fit = jp_utf8_fit(text + i, end - i, width, NULL);
			if (fit == 0)
				fit = jp_utf8_next(text, end, i) - i;
			brk = fit;
			if (i + fit < end)
				brk = jp_utf8_line_break(text + i, end - i, fit);
			line = strndup(text + i, brk);
			if (!line)
				return JP_ENOMEM;
			rc = jp_strv_push(out, line);
			free(line);
			if (rc < 0)
				return JP_ENOMEM;
			i += brk;
			while (i < end && text[i] == ' ')
				i++;
		}
		if (!nl)
			break;
		i = end + 1;
	}
	return 0;
}

void jp_draw_box(int y, int x, int h, int w, const char *title)
{
	int i;

	if (h < 2 || w < 2)
		return;
	for (i = 1; i < h - 1; i++)
		jp_draw_fill(y + i, x + 1, w - 2, JP_STYLE_NORMAL);
	attrset(jp_term_attr(JP_STYLE_FRAME));
	mvaddch(y, x, ACS_ULCORNER);
	mvhline(y, x + 1, ACS_HLINE, w - 2);
	mvaddch(y, x + w - 1, ACS_URCORNER);
	mvvline(y + 1, x, ACS_VLINE, h - 2);
	mvvline(y + 1, x + w - 1, ACS_VLINE, h - 2);
	mvaddch(y + h - 1, x, ACS_LLCORNER);
	mvhline(y + h - 1, x + 1, ACS_HLINE, w - 2);
	mvaddch(y + h - 1, x + w - 1, ACS_LRCORNER);
	attrset(A_NORMAL);
	if (title && title[0] && w > 6) {
		int used;

		mvaddch(y, x + 1, ' ');
		used = jp_draw_text(y, x + 2, w - 5, JP_STYLE_TITLE, title);
		mvaddch(y, x + 2 + used, ' ');
	}
}

void jp_draw_separator(int y, int x, int w)
{
	if (w < 2)
		return;
	attrset(jp_term_attr(JP_STYLE_FRAME));
	mvaddch(y, x, ACS_LTEE);
	mvhline(y, x + 1, ACS_HLINE, w - 2);
	mvaddch(y, x + w - 1, ACS_RTEE);
	attrset(A_NORMAL);
}

void jp_draw_bar(int y, int x, int width, double fraction)
{
	const struct jp_glyphs *g = jp_term_glyphs();
	int eighths, full, part, i;

	if (width <= 0)
		return;
	if (fraction < 0)
		fraction = 0;
	if (fraction > 1)
		fraction = 1;
	eighths = (int)(fraction * width * 8 + 0.5);
	full = eighths / 8;
	part = eighths % 8;
	move(y, x);
	attrset(jp_term_attr(JP_STYLE_BAR));
	for (i = 0; i < full && i < width; i++)
		addstr(g->bar_full);
	if (i < width && part) {
		addstr(g->bar_part[part]);
		i++;
	}
	attrset(jp_term_attr(JP_STYLE_DIM));
	for (; i < width; i++)
		addch(g->unicode ? ' ' : '.');
	attrset(A_NORMAL);
}

const char *jp_fmt_count(char *buf, size_t len, uint64_t n)
{
	char digits[32], out[48];
	int nd, i, o = 0;

	nd = snprintf(digits, sizeof(digits), "%llu", (unsigned long long)n);
	for (i = 0; i < nd; i++) {
		if (i > 0 && (nd - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = digits[i];
	}
	out[o] = '\0';
	snprintf(buf, len, "%s", out);
	return buf;
}

void jp_draw_too_small(void)
{
	char msg[256];
	int y;

	erase();
	snprintf(msg, sizeof(msg), _("Terminal too small: %dx%d. jobprep needs at least %dx%d."),
		 COLS, LINES, JP_TERM_MIN_COLS, JP_TERM_MIN_LINES);
	y = LINES > 4 ? LINES / 2 - 2 : 0;
	y += jp_draw_wrap(y, 1, COLS - 2, LINES - y, JP_STYLE_WARN, msg);
	if (y < LINES)
		jp_draw_wrap(y, 1, COLS - 2, LINES - y, JP_STYLE_DIM,
			     _("Enlarge the window, or press Ctrl-C to quit."));
	jp_term_cursor(false);
	refresh();
}
