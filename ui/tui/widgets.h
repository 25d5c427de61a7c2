/* The widgets, one per file: modal ones run their own small loop through
 * struct jp_ui (so background work keeps moving and resizes redraw the
 * screen under them); inline ones draw into a rectangle and answer keys
 * with the jp_ev bit-set.
 *
 *   modal.c     the modal loop every modal widget reads keys through
 *   confirm.c   yes/no question             secret.c   a prompt that never echoes
 *   help.c      the help overlay (F1 or ?)  browser.c  a directory browser
 *   textfield.c a line editor drawn in a field
 *   radio.c     a radio list                checkbox.c a check box
 *   listbox.c   a list with add/delete      progress.c a progress bar line
 */
#ifndef JOBPREP_TUI_WIDGETS_H
#define JOBPREP_TUI_WIDGETS_H

#include <stdbool.h>
#include <stddef.h>

#include "jobprep/port.h"
#include "tui/keys.h"
#include "tui/lineedit.h"
#include "tui/term.h"

/* --- modal.c: what a modal needs from the screen under it ------------------- */

struct jp_ui {
	/* Draw the whole screen under the modal (no refresh). */
	void (*draw)(void *payload);
	/* Poll background work; return JP_EV_REDRAW when the screen changed. */
	int (*tick)(void *payload);
	void *payload;
};

/* Read the next key for a modal, drawing the screen and then the modal
 * (draw_modal) whenever *redraw is set, a resize came or background work
 * moved. Returns 1 with *key, or 0 when a terminating signal is pending
 * (the caller unwinds). While the terminal is too small only Ctrl-C is
 * passed on. */
int jp_ui_next_key(const struct jp_ui *ui, struct jp_key *key,
		   void (*draw_modal)(void *arg), void *arg, bool *redraw);
/* A centred rectangle of at most w x h inside the screen. */
void jp_ui_center(int *y, int *x, int *h, int *w);

/* --- confirm.c ---------------------------------------------------------- */

/* Ask a yes/no question. Returns 1 yes, 0 no (the no button, n, Ctrl-C),
 * JP_CONFIRM_ESC when dismissed with Esc (dialog's 255: no answer; a
 * caller for which "no" loses something tells them apart), -1 when a
 * terminating signal arrived. `yes`/`no` label the buttons (NULL: Yes/No). */
#define JP_CONFIRM_ESC 2
int jp_confirm(const struct jp_ui *ui, const char *title, const char *text,
	       const char *yes, const char *no, bool default_yes);

/* --- secret.c ----------------------------------------------------------- */

/* Ask for a secret: nothing typed is ever drawn. Returns 0 with buf filled,
 * -1 when declined (Esc, Ctrl-C) or interrupted. */
int jp_secret_prompt(const struct jp_ui *ui, const char *title,
		     const char *prompt, char *buf, size_t len);

/* --- help.c ------------------------------------------------------------- */

/* Show `text` (paragraphs separated by blank lines) and the key table,
 * scrollable, until Esc, Enter, q or F1. */
void jp_help_show(const struct jp_ui *ui, const char *title, const char *text);

/* --- browser.c ---------------------------------------------------------- */

/* Browse directories from `start` (or its nearest existing parent).
 * Returns 1 with *out (caller frees) the chosen directory, 0 cancelled,
 * -1 interrupted. */
int jp_browse_dir(const struct jp_ui *ui, const char *start, char **out);

/* --- textfield.c -------------------------------------------------------- */

/* Draw a line editor in `width` columns at (y, x); returns the screen
 * column where the cursor belongs (the caller moves it there last).
 * secret: draw nothing of the text. */
int jp_textfield_draw(struct jp_lineedit *le, int y, int x, int width,
		       bool focused, bool secret);
/* Apply an editing action or insert a character; returns jp_ev bits. */
int jp_textfield_key(struct jp_lineedit *le, enum jp_act act,
		     const struct jp_key *key);

/* --- radio.c ------------------------------------------------------------ */

struct jp_radio {
	const char *const *labels; /* translated, borrowed */
	size_t n;
	size_t cursor;   /* highlighted */
	size_t selected; /* chosen */
};

/* One line per choice; returns the lines drawn. */
int jp_radio_draw(const struct jp_radio *r, int y, int x, int width, bool focused);
/* Up/Down move (returning JP_EV_IGNORED at the ends so focus can move on),
 * Space chooses. *chosen is set when the selection changed. */
int jp_radio_key(struct jp_radio *r, enum jp_act act, bool *chosen);

/* --- checkbox.c --------------------------------------------------------- */

void jp_checkbox_draw(int y, int x, int width, const char *label, bool checked,
		      bool focused);
/* Space toggles: returns JP_EV_HANDLED|JP_EV_REDRAW and flips *checked. */
int jp_checkbox_key(bool *checked, enum jp_act act);

/* --- listbox.c ---------------------------------------------------------- */

struct jp_listbox {
	size_t n;       /* items; row n is the "add" row */
	size_t cursor;  /* 0..n */
	size_t top;     /* first row shown */
	const char *add_label; /* translated, borrowed: "+ add a data source" */
};

enum jp_listbox_op {
	JP_LISTBOX_NONE = 0,
	JP_LISTBOX_MOVED,
	JP_LISTBOX_ADD,
	JP_LISTBOX_DELETE,
};

/* Draw up to `height` rows; draw_item draws item i in (y, x, width). */
int jp_listbox_draw(struct jp_listbox *lb, int y, int x, int width, int height,
		    bool focused,
		    void (*draw_item)(void *arg, size_t i, int y, int x, int width,
				      bool selected),
		    void *arg);
/* Up/Down/PgUp/PgDn move, a/Insert add, d/Delete delete, Space on the add
 * row adds. Returns jp_ev bits and the operation in *op. */
int jp_listbox_key(struct jp_listbox *lb, enum jp_act act, enum jp_listbox_op *op);

/* --- progress.c --------------------------------------------------------- */

/* "clone  ███████▌   58%  12.4 MiB/s  9,812/16,904 objects" in `width`. */
void jp_progress_draw(int y, int x, int width, const char *label,
		      const struct jp_progress *p);

#endif
