/* The terminal: curses start and stop, colours, glyphs, keys, signals;
 * it draws nothing (the too-small notice is in draw.c).
 * The only file that calls newterm/endwin. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include <curses.h>
#include <term.h>

#include "jobprep/i18n.h"
#include "tui/term.h"
#include "signals.h"

static SCREEN *screen;
static FILE *tty_in, *tty_out; /* /dev/tty, when stdin/stdout are not ttys */
static int tty_fd = -1;    /* where the saved modes are restored */
static struct termios saved_modes;
static bool have_saved_modes;
static bool use_color;
static attr_t styles[JP_STYLE_COUNT];

/* Written back from signal handlers: only async-signal-safe calls there. */
static char restore_seq[256];
static size_t restore_len;
static volatile sig_atomic_t pending_signal;

static struct jp_signals_saved saved_signals; /* SIGINT, SIGTERM, SIGHUP, SIGQUIT */
static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

static const struct jp_glyphs unicode_glyphs = {
	.ok = "\xe2\x9c\x93",       /* ✓ */
	.warn = "!",
	.fail = "\xe2\x9c\x97",     /* ✗ */
	.done = "\xe2\x9c\x93",     /* ✓ */
	.current = "\xe2\x97\x8f",  /* ● */
	.todo = "\xe2\x97\x8b",     /* ○ */
	.radio_on = "(\xe2\x80\xa2)",
	.radio_off = "( )",
	.check_on = "[x]",
	.check_off = "[ ]",
	.bar_full = "\xe2\x96\x88", /* █ */
	.bar_part = { " ", "\xe2\x96\x8f", "\xe2\x96\x8e", "\xe2\x96\x8d",
		      "\xe2\x96\x8c", "\xe2\x96\x8b", "\xe2\x96\x8a", "\xe2\x96\x89" },
	.more_left = "\xe2\x80\xb9",  /* ‹ */
	.more_right = "\xe2\x80\xba", /* › */
	.arrow = "\xe2\x86\x92",      /* → */
	.dot = "\xc2\xb7",            /* · */
	.ellipsis = "\xe2\x80\xa6",  /* … */
	.unicode = true,
};

static const struct jp_glyphs ascii_glyphs = {
	.ok = "+",
	.warn = "!",
	.fail = "x",
	.done = "+",
	.current = "*",
	.todo = "o",
	.radio_on = "(*)",
	.radio_off = "( )",
	.check_on = "[x]",
	.check_off = "[ ]",
	.bar_full = "#",
	.bar_part = { " ", " ", " ", " ", "-", "-", "-", "-" },
	.more_left = "<",
	.more_right = ">",
	.arrow = "->",
	.dot = "|",
	.ellipsis = "~",
	.unicode = false,
};

static const struct jp_glyphs *glyphs = &ascii_glyphs;

const char *jp_term_unusable(void)
{
	const char *term = getenv("TERM");
	int fd;

	if (!term || !term[0])
		return _("jobprep: TERM is not set, so the interactive wizard cannot "
			 "draw its screens; run 'jobprep init --answers FILE' for the "
			 "same flow without a terminal (see 'jobprep --help').");
	if (strcmp(term, "dumb") == 0)
		return _("jobprep: this terminal is 'dumb' (TERM=dumb), so the "
			 "interactive wizard cannot draw its screens; run 'jobprep init "
			 "--answers FILE' for the same flow without a terminal.");
	if (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO))
		return NULL;
	fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return _("jobprep: no terminal to talk to (not run from a terminal); "
			 "run 'jobprep init --answers FILE' for the same flow without "
			 "prompts.");
	close(fd);
	return NULL;
}

static void emergency_restore(void)
{
	ssize_t rc;

	if (tty_fd < 0)
		return;
	if (restore_len)
		rc = write(tty_fd, restore_seq, restore_len);
	if (have_saved_modes)
		tcsetattr(tty_fd, TCSANOW, &saved_modes);
	rc = write(tty_fd, "\r\n", 2);
	(void)rc;
}

static void on_terminate(int sig)
{
	if (pending_signal) {
		/* The loop did not get to it: restore now and leave. */
		emergency_restore();
		_exit(128 + sig);
	}
	pending_signal = sig;
}

static void on_crash(int sig)
{
	sigset_t set;

	emergency_restore();
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
}

static void install_signals(void)
{
	struct sigaction sa;
	size_t i;

	/* the terminating ones as every command catches them (ui/signals.c) */
	jp_signals_catch(&saved_signals, on_terminate, true);
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_crash;
	for (i = 0; i < sizeof(crash_signals) / sizeof(crash_signals[0]); i++)
		sigaction(crash_signals[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static void reset_signals(void)
{
	size_t i;

	jp_signals_restore(&saved_signals);
	for (i = 0; i < sizeof(crash_signals) / sizeof(crash_signals[0]); i++)
		signal(crash_signals[i], SIG_DFL);
}

static void add_cap(const char *name)
{
	char *s = tigetstr(name);
	size_t n;

	if (!s || s == (char *)-1)
		return;
	n = strlen(s);
	if (restore_len + n >= sizeof(restore_seq))
		return;
	memcpy(restore_seq + restore_len, s, n);
	restore_len += n;
}

static bool no_color_requested(void)
{
	const char *nc = getenv("NO_COLOR");

	return nc && nc[0];
}

static void setup_styles(void)
{
	int i;

	for (i = 0; i < JP_STYLE_COUNT; i++)
		styles[i] = A_NORMAL;
	use_color = !no_color_requested() && has_colors() && start_color() == OK;
	if (use_color) {
		use_default_colors();
		init_pair(1, COLOR_CYAN, -1);
		init_pair(2, COLOR_GREEN, -1);
		init_pair(3, COLOR_YELLOW, -1);
		init_pair(4, COLOR_RED, -1);
		init_pair(5, COLOR_BLUE, -1);
		styles[JP_STYLE_FRAME] = COLOR_PAIR(1);
		styles[JP_STYLE_TITLE] = COLOR_PAIR(1) | A_BOLD;
		styles[JP_STYLE_FOCUS] = COLOR_PAIR(1) | A_BOLD;
		styles[JP_STYLE_OK] = COLOR_PAIR(2);
		styles[JP_STYLE_WARN] = COLOR_PAIR(3) | A_BOLD;
		styles[JP_STYLE_FAIL] = COLOR_PAIR(4) | A_BOLD;
		styles[JP_STYLE_KEY] = COLOR_PAIR(1) | A_BOLD;
		styles[JP_STYLE_BAR] = COLOR_PAIR(2);
	} else {
		styles[JP_STYLE_TITLE] = A_BOLD;
		styles[JP_STYLE_FOCUS] = A_BOLD;
		styles[JP_STYLE_WARN] = A_BOLD;
		styles[JP_STYLE_FAIL] = A_BOLD | A_UNDERLINE;
		styles[JP_STYLE_KEY] = A_BOLD;
	}
	styles[JP_STYLE_LABEL] = A_NORMAL;
	styles[JP_STYLE_INPUT] = A_UNDERLINE;
	styles[JP_STYLE_INPUT_FOCUS] = A_UNDERLINE | A_BOLD;
	styles[JP_STYLE_SELECTED] = A_REVERSE;
	styles[JP_STYLE_DIM] = A_DIM;
}

static void close_tty(void)
{
	if (tty_in)
		fclose(tty_in);
	if (tty_out)
		fclose(tty_out);
	tty_in = tty_out = NULL;
}

int jp_term_start(struct jp_error *err)
{
	const char *why = jp_term_unusable();
	const char *cs;
	FILE *in = stdin, *out = stdout;

	if (why)
		return jp_error_set(err, JP_EUSAGE, "%s", why);
	if (screen)
		return 0;

	if (!(isatty(STDIN_FILENO) && isatty(STDOUT_FILENO))) {
		/* Two streams: one FILE both read and written needs a seek
		 * between the two, which curses does not do. */
		tty_in = fopen("/dev/tty", "re");
		tty_out = fopen("/dev/tty", "we");
		if (!tty_in || !tty_out) {
			close_tty();
			return jp_error_set(err, JP_EUSAGE, "%s", jp_term_unusable());
		}
		in = tty_in;
		out = tty_out;
	}
	tty_fd = fileno(in);
	have_saved_modes = tcgetattr(tty_fd, &saved_modes) == 0;

	cs = nl_langinfo(CODESET);
	glyphs = cs && strcmp(cs, "UTF-8") == 0 ? &unicode_glyphs : &ascii_glyphs;
	/* In a UTF-8 locale draw lines as Unicode box characters rather than
	 * through the terminal's alternate character set: curses otherwise
	 * picks one or the other depending on which streams are terminals. */
	if (glyphs->unicode)
		setenv("NCURSES_NO_UTF8_ACS", "1", 0);

	screen = newterm(NULL, out, in);
	if (!screen) {
		close_tty();
		tty_fd = -1;
		return jp_error_set(err, JP_EUSAGE,
				    _("jobprep: cannot use this terminal (TERM=%s is not in "
				      "the terminfo database); set TERM to a known terminal "
				      "such as xterm-256color, or run 'jobprep init --answers "
				      "FILE' for the same flow without a terminal."),
				    getenv("TERM"));
	}
	set_term(screen);
	restore_len = 0;
	add_cap("sgr0");
	add_cap("cnorm");
	add_cap("rmkx");
	add_cap("rmcup");

	raw(); /* Ctrl-C is a key: the wizard asks before losing work */
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	/* Home/End as other terminals (and tmux) send them, whatever the
	 * terminfo entry says. */
	define_key("\033[1~", KEY_HOME);
	define_key("\033[7~", KEY_HOME);
	define_key("\033[H", KEY_HOME);
	define_key("\033OH", KEY_HOME);
	define_key("\033[4~", KEY_END);
	define_key("\033[8~", KEY_END);
	define_key("\033[F", KEY_END);
	define_key("\033OF", KEY_END);
	set_escdelay(25);
	curs_set(0);
	setup_styles();
	install_signals();
	return 0;
}

void jp_term_stop(void)
{
	if (!screen)
		return;
	curs_set(1);
	endwin();
	delscreen(screen);
	screen = NULL;
	/* endwin restores what curses saved; put back exactly what we saw. */
	if (have_saved_modes)
		tcsetattr(tty_fd, TCSADRAIN, &saved_modes);
	reset_signals();
	close_tty();
	tty_fd = -1;
	restore_len = 0;
}

attr_t jp_term_attr(enum jp_style style)
{
	if (style < 0 || style >= JP_STYLE_COUNT)
		return A_NORMAL;
	return styles[style];
}

const struct jp_glyphs *jp_term_glyphs(void)
{
	return glyphs;
}

bool jp_term_too_small(void)
{
	return COLS < JP_TERM_MIN_COLS || LINES < JP_TERM_MIN_LINES;
}

int jp_term_read_key(struct jp_key *key, int timeout_ms)
{
	wint_t wc;
	int rc;

	timeout(timeout_ms);
	rc = wget_wch(stdscr, &wc);
	if (rc == ERR)
		return 0;
	key->fn = rc == KEY_CODE_YES;
	key->code = (uint32_t)wc;
	if (!key->fn && wc == 27) {
		/* A lone Esc is "back". Esc with more bytes already waiting is
		 * a sequence curses did not know (a key this terminfo lacks) or
		 * Alt+key: never let it pass for Esc. */
		wint_t next;

		timeout(0);
		rc = wget_wch(stdscr, &next);
		if (rc == ERR)
			return 1;
		if (rc == OK && (next == 'b' || next == 'f')) {
			key->fn = true;
			key->code = next == 'b' ? KEY_SLEFT : KEY_SRIGHT;
			return 1;
		}
		if (rc == OK && (next == '[' || next == 'O')) {
			/* Skip to the sequence's final byte. */
			int n = 0;

			while (n++ < 16 && wget_wch(stdscr, &next) == OK &&
			       !(next >= 0x40 && next <= 0x7e))
				;
			return 0;
		}
		/* Esc, then another key typed quickly: both count. */
		if (rc == KEY_CODE_YES)
			ungetch((int)next);
		else
			unget_wch((wchar_t)next);
		return 1;
	}
	/* Enter arrives as CR (nonl) or LF; make it one key. */
	if (!key->fn && (wc == '\r' || wc == '\n')) {
		key->fn = true;
		key->code = KEY_ENTER;
	}
	return 1;
}

int jp_term_signal(void)
{
	return pending_signal;
}

void jp_term_cursor(bool visible)
{
	curs_set(visible ? 1 : 0);
}

void jp_term_beep(void)
{
	beep();
}
