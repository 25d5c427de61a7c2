/* Drawing helpers on stdscr: clipped UTF-8 text, wrapping, boxes, a
 * progress bar, numbers for people, the too-small notice. Every string
 * is UTF-8; widths are display columns (CJK takes two). */
#ifndef JOBPREP_TUI_DRAW_H
#define JOBPREP_TUI_DRAW_H

#include <stddef.h>
#include <stdint.h>

#include "tui/term.h"

/* Draw s clipped to `width` columns at (y, x); returns the columns used.
 * Control characters and invalid bytes show as '?'. */
int jp_draw_text(int y, int x, int width, enum jp_style style, const char *s);
/* The same for the first len bytes of s. */
int jp_draw_textn(int y, int x, int width, enum jp_style style, const char *s,
		  size_t len);
/* Like jp_draw_text, but text that does not fit ends with an ellipsis
 * (…) in the last column instead of being cut silently; widths are display
 * columns, so CJK counts two. */
int jp_draw_text_fit(int y, int x, int width, enum jp_style style, const char *s);
/* The same for the first len bytes of s. */
int jp_draw_textn_fit(int y, int x, int width, enum jp_style style, const char *s,
		      size_t len);
/* Clipped on the left instead: the end of a long path stays visible, with
 * a marker where text was cut. */
int jp_draw_text_tail(int y, int x, int width, enum jp_style style, const char *s);
/* Blank `width` cells in a style. */
void jp_draw_fill(int y, int x, int width, enum jp_style style);
/* Word-wrap text into `width` columns, at most max_lines lines; returns the
 * lines drawn. When the text needs more lines, the last one drawn ends with
 * an ellipsis (…). With max_lines < 1 nothing is drawn and the lines it would
 * take are returned. */
int jp_draw_wrap(int y, int x, int width, int max_lines, enum jp_style style,
		 const char *text);
/* Wrap text into lines of at most `width` columns (paragraphs split on
 * '\n', empty lines kept) and append them to *out. Returns 0 or JP_ENOMEM. */
struct jp_strv;
int jp_wrap_lines(struct jp_strv *out, const char *text, int width);
/* A frame with an optional title in the top border; clears the inside. */
void jp_draw_box(int y, int x, int h, int w, const char *title);
/* A horizontal separator joining a box's sides (├───┤). */
void jp_draw_separator(int y, int x, int w);
/* A bar `width` cells wide, filled to fraction (0..1), in eighths. */
void jp_draw_bar(int y, int x, int width, double fraction);

/* The notice for a screen below the minimum (jp_term_too_small): its size,
 * the size needed, how to go on; clears the screen first. */
void jp_draw_too_small(void);

/* "401,233" (grouped thousands, as people read them). */
const char *jp_fmt_count(char *buf, size_t len, uint64_t n);

#endif
