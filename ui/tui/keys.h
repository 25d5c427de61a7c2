/* Keys are data: one table maps a key, in a context, to an action. Screens
 * switch on the action, never on the key; the help overlay and the hint
 * line are written from the same table. */
#ifndef JOBPREP_TUI_KEYS_H
#define JOBPREP_TUI_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include "tui/term.h"

/* Where the focus is decides what a key means. */
enum jp_keyctx {
	JP_KEYCTX_ANY = 0, /* everywhere (looked up last) */
	JP_KEYCTX_TEXT,    /* a text field: printable keys type */
	JP_KEYCTX_NAV,     /* lists, choices, check boxes */
};

enum jp_act {
	JP_ACT_NONE = 0,
	JP_ACT_INSERT,     /* a printable character (text fields) */
	JP_ACT_ACCEPT,     /* Enter: accept the step and go on */
	JP_ACT_BACK,       /* Esc: the previous step */
	JP_ACT_FIELD_NEXT, /* Tab (a path field completes first) */
	JP_ACT_FIELD_PREV, /* Shift-Tab */
	JP_ACT_UP,
	JP_ACT_DOWN,
	JP_ACT_PAGE_UP,
	JP_ACT_PAGE_DOWN,
	JP_ACT_TOGGLE,     /* Space */
	JP_ACT_HELP,       /* F1, ? */
	JP_ACT_QUIT,       /* Ctrl-C */
	JP_ACT_ADD,        /* a, Insert */
	JP_ACT_DELETE,     /* d, Delete */
	JP_ACT_BROWSE,     /* F2, Ctrl-O: the directory browser */
	JP_ACT_REDRAW,     /* Ctrl-L */
	JP_ACT_RESIZE,
	/* line editing */
	JP_ACT_LEFT,
	JP_ACT_RIGHT,
	JP_ACT_HOME,
	JP_ACT_END,
	JP_ACT_WORD_LEFT,
	JP_ACT_WORD_RIGHT,
	JP_ACT_BACKSPACE,
	JP_ACT_DELETE_CHAR,
	JP_ACT_KILL_START,
	JP_ACT_KILL_END,
	JP_ACT_KILL_WORD,
	JP_ACT_YANK,
};

/* Event handlers answer with a bit-set, like htop's. */
enum jp_ev {
	JP_EV_IGNORED = 0,
	JP_EV_HANDLED = 1 << 0,
	JP_EV_REDRAW = 1 << 1,
	JP_EV_BREAK = 1 << 2, /* leave the loop (the screen is done) */
};

struct jp_keybinding {
	enum jp_keyctx ctx;
	bool fn;
	unsigned code;     /* a KEY_* (fn) or a character */
	enum jp_act act;
	const char *name;  /* shown in help, e.g. "Ctrl-U"; NULL: not shown */
	const char *help;  /* N_() text */
};

/* The action for a key in a context (JP_ACT_INSERT for printable text in
 * JP_KEYCTX_TEXT, JP_ACT_NONE when unbound). */
enum jp_act jp_keys_lookup(enum jp_keyctx ctx, const struct jp_key *key);
/* The whole table, for the help overlay; *n gets its length. Static. */
const struct jp_keybinding *jp_keys_table(size_t *n);

#endif
