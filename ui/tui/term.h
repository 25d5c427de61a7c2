/* The terminal: the only place that starts and ends curses, owns colours,
 * glyphs, the minimum size (draw.c draws the notice: this file draws
 * nothing), key reading and signals.
 *
 * Every way out restores the terminal: jp_term_stop on a normal exit; on
 * SIGINT/SIGTERM/SIGHUP/SIGQUIT the wizard's loop sees jp_term_signal() and
 * leaves through jp_term_stop (a second such signal restores at once and
 * exits); on SIGSEGV/SIGBUS/SIGFPE/SIGILL/SIGABRT the terminal's saved modes
 * are written back from the handler and the signal is raised again. */
#ifndef JOBPREP_TUI_TERM_H
#define JOBPREP_TUI_TERM_H

#include <stdbool.h>
#include <stdint.h>

#include <curses.h>

#include "jobprep/error.h"

/* Below this the wizard shows a "too small" notice instead of its screens. */
#define JP_TERM_MIN_COLS 50
#define JP_TERM_MIN_LINES 16

/* What the screens draw with. Colour where the terminal has it and
 * NO_COLOR is not set; attributes only otherwise. */
enum jp_style {
	JP_STYLE_NORMAL = 0,
	JP_STYLE_FRAME,    /* borders and separators */
	JP_STYLE_TITLE,    /* the frame's title, the current step */
	JP_STYLE_LABEL,    /* a field's label */
	JP_STYLE_FOCUS,    /* the label of the field in focus */
	JP_STYLE_INPUT,    /* an editable value */
	JP_STYLE_INPUT_FOCUS,
	JP_STYLE_SELECTED, /* the highlighted row of a list */
	JP_STYLE_OK,
	JP_STYLE_WARN,
	JP_STYLE_FAIL,
	JP_STYLE_DIM,      /* hints, defaults, help text */
	JP_STYLE_KEY,      /* key names in the hint line */
	JP_STYLE_BAR,      /* the filled part of a progress bar */
	JP_STYLE_COUNT,
};

/* Symbols, UTF-8 when the locale is, ASCII otherwise. Static strings. */
struct jp_glyphs {
	const char *ok, *warn, *fail;     /* ✓ ! ✗ */
	const char *done, *current, *todo; /* step bar: ✓ ● ○ */
	const char *radio_on, *radio_off;  /* (•) ( ) */
	const char *check_on, *check_off;  /* [x] [ ] */
	const char *bar_full;              /* █ */
	const char *bar_part[8];           /* ▏▎▍▌▋▊▉ partial cells, [0] = " " */
	const char *more_left, *more_right; /* text scrolled out of view */
	const char *arrow;                 /* → */
	const char *dot;                   /* · between hints */
	const char *ellipsis;              /* … where text was cut */
	bool unicode;
};

/* Why the wizard cannot run here, or NULL when it can: TERM unset or dumb,
 * no terminal to talk to. The message names `jobprep init`. Static. */
const char *jp_term_unusable(void);
/* Start curses on the terminal (stdin/stdout when both are terminals,
 * else /dev/tty). Installs the signal handlers. On failure err says why,
 * pointing to `jobprep init`. */
int jp_term_start(struct jp_error *err);
/* Restore the terminal exactly as it was. Safe to call twice. */
void jp_term_stop(void);

attr_t jp_term_attr(enum jp_style style);
const struct jp_glyphs *jp_term_glyphs(void);

/* The screen is below the minimum: the caller draws the notice
 * (jp_draw_too_small) instead of its own screen. */
bool jp_term_too_small(void);

/* A key as read: a character (fn false, code = code point) or a function key
 * (fn true, code = KEY_*). */
struct jp_key {
	bool fn;
	uint32_t code;
};

#define JP_KEY_CTRL(c) ((uint32_t)((c) & 0x1f))

/* Wait at most timeout_ms (< 0: forever) for a key. Returns 1 with *key set,
 * 0 on timeout (or an interrupted wait). A resize comes back as the
 * function key KEY_RESIZE. */
int jp_term_read_key(struct jp_key *key, int timeout_ms);

/* The pending terminating signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT), 0 if
 * none. The loop that sees it cleans up and leaves with 128 + signal. */
int jp_term_signal(void);

/* Show or hide the cursor (it is shown only in a text field). */
void jp_term_cursor(bool visible);
/* Ring the bell, or flash when NO_COLOR/quiet. */
void jp_term_beep(void);

#endif
