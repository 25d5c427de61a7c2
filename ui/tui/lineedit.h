/* The line editor: one line of UTF-8 text with a cursor, edited the way
 * readline does (Home/End, Ctrl-A/E/U/W/K/Y), shown through a window of a
 * given width that scrolls sideways to keep the cursor in view.
 *
 * Pure logic, no curses: the widget that draws it lives in field drawing
 * code; tests drive this directly. The cursor is a byte offset that always
 * sits on a character boundary; wide characters take two columns and
 * combining marks move with the character they follow. */
#ifndef JOBPREP_TUI_LINEEDIT_H
#define JOBPREP_TUI_LINEEDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum jp_le_op {
	JP_LE_LEFT,
	JP_LE_RIGHT,
	JP_LE_HOME,       /* Home, Ctrl-A */
	JP_LE_END,        /* End, Ctrl-E */
	JP_LE_WORD_LEFT,  /* Alt-B, Ctrl-Left */
	JP_LE_WORD_RIGHT, /* Alt-F, Ctrl-Right */
	JP_LE_BACKSPACE,
	JP_LE_DELETE,
	JP_LE_KILL_START, /* Ctrl-U: delete to the start */
	JP_LE_KILL_END,   /* Ctrl-K: delete to the end */
	JP_LE_KILL_WORD,  /* Ctrl-W: delete the word before the cursor */
	JP_LE_YANK,       /* Ctrl-Y: insert what was killed last */
};

struct jp_lineedit {
	char *buf;     /* owned, NUL-terminated UTF-8 */
	size_t len;    /* bytes, without the NUL */
	size_t cap;
	size_t cursor; /* byte offset */
	size_t scroll; /* byte offset of the first character shown */
	size_t max;    /* largest len accepted, 0 = no limit */
	char *kill;    /* owned: last killed text, for Ctrl-Y */
};

#define JP_LINEEDIT_INIT { .buf = NULL }

/* Set up with a copy of text (NULL = empty), cursor at the end. Returns 0 or
 * JP_ENOMEM. */
int jp_le_init(struct jp_lineedit *le, const char *text);
/* Wipes the text (it may have been a secret) and frees it. */
void jp_le_dispose(struct jp_lineedit *le);
/* Replace the text, cursor at the end. */
int jp_le_set(struct jp_lineedit *le, const char *text);
/* Borrowed, valid until the next change. */
const char *jp_le_text(const struct jp_lineedit *le);

/* Insert bytes at the cursor (whole characters expected). Returns 0,
 * JP_ENOMEM, or JP_EUSAGE when the result would exceed le->max. */
int jp_le_insert(struct jp_lineedit *le, const char *s, size_t n);
/* Insert one code point. */
int jp_le_insert_cp(struct jp_lineedit *le, uint32_t cp);
/* Apply an editing operation; returns true when text or cursor changed. */
bool jp_le_apply(struct jp_lineedit *le, enum jp_le_op op);

/* Columns from the start of the text to the cursor. */
int jp_le_cursor_col(const struct jp_lineedit *le);

/* Fit the view into `width` columns: adjusts le->scroll so the cursor is
 * visible (with one column for it at the end of the text), and reports
 * the byte range [*start, *end) to draw and the cursor's column in the
 * view. Text before the view is marked by the caller (e.g. with '<'). */
void jp_le_view(struct jp_lineedit *le, int width, size_t *start,
		size_t *end, int *cursor_col);

#endif
