/* The command line's port: progress lines, secrets, questions, signals. */
#include "config.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "jobprep/units.h"
#include "cli.h"
#include "cli_port.h"
#include "signals.h"

static struct jp_signals_saved saved_signals;

bool jp_cli_interrupted(void)
{
	return jp_signals_first() != 0;
}

int jp_cli_exit_interrupted(void)
{
	return jp_signals_exit_status();
}

int jp_cli_port_failed(const char *cmd, int rc, const struct jp_error *err)
{
	bool stopped = rc == JP_ECANCELED && jp_cli_interrupted();
	int status = jp_cli_report(cmd, err);

	return stopped ? jp_cli_exit_interrupted() : status;
}

static int cancelled(void *payload)
{
	(void)payload;
	return jp_cli_interrupted();
}

static int on_progress(const struct jp_progress *p, void *payload)
{
	struct jp_cli_port *cp = payload;

	if (cp->show && p->phase != JP_PHASE_DONE) {
		char bytes[32] = "", rate[40] = "";

		if (p->bytes) {
			jp_units_format_bytes(bytes, sizeof(bytes), p->bytes);
			if (p->rate > 0) {
				jp_units_format_bytes(rate, sizeof(rate) - 3,
						      (uint64_t)(p->rate + 0.5));
				strcat(rate, "/s");
			}
		}
		if (p->total)
			fprintf(stderr, "\r\033[K%s: %" PRIu64 "/%" PRIu64 " (%" PRIu64 "%%) %s %s",
				jp_phase_name(p->phase, false), p->done, p->total, p->done * 100 / p->total,
				bytes, rate);
		else
			fprintf(stderr, "\r\033[K%s %s %s", jp_phase_name(p->phase, false), bytes, rate);
		fflush(stderr);
		cp->shown = true;
	}
	return jp_cli_interrupted() ? -1 : 0;
}

/* A line from the terminal with echo off, or from a non-terminal stdin. */
static int ask_secret(char *buf, size_t len, const char *prompt, void *payload)
{
	struct jp_cli_port *cp = payload;
	struct termios old, quiet;
	bool tty = isatty(STDIN_FILENO);
	int rc = -1;

	if (cp->shown) {
		fprintf(stderr, "\r\033[K");
		cp->shown = false;
	}
	if (len < 2)
		return -1;
	if (tty) {
		fprintf(stderr, "%s: ", prompt);
		fflush(stderr);
		if (tcgetattr(STDIN_FILENO, &old) != 0)
			return -1;
		quiet = old;
		quiet.c_lflag &= ~(tcflag_t)ECHO;
		quiet.c_lflag |= ECHONL;
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
	}
	/* Byte by byte: nothing past the line is consumed (the next secret
	 * is the next line), and no stdio buffer keeps a copy. */
	size_t n = 0;
	for (;;) {
		char c;
		ssize_t r = read(STDIN_FILENO, &c, 1);

		if (r <= 0 || jp_cli_interrupted())
			break;
		if (c == '\n') {
			rc = 0;
			break;
		}
		if (n + 1 < len)
			buf[n++] = c;
	}
	buf[n] = '\0';
	if (n > 0 && buf[n - 1] == '\r')
		buf[--n] = '\0';
	if (tty)
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &old);
	if (rc != 0)
		explicit_bzero(buf, len);
	return rc;
}

static int confirm_default(const char *question, bool default_yes, void *payload)
{
	struct jp_cli_port *cp = payload;
	char line[16];

	if (!isatty(STDIN_FILENO))
		return 0; /* nobody to ask: no */
	if (cp->shown) {
		fprintf(stderr, "\r\033[K");
		cp->shown = false;
	}
	fprintf(stderr, "%s %s ", question, default_yes ? "[Y/n]" : "[y/N]");
	fflush(stderr);
	if (!fgets(line, sizeof(line), stdin))
		return 0;
	if (default_yes && (line[0] == '\n' || line[0] == '\0'))
		return 1;
	return line[0] == 'y' || line[0] == 'Y';
}

static int confirm(const char *question, void *payload)
{
	return confirm_default(question, false, payload);
}

void jp_cli_port_init(struct jp_cli_port *cp, enum jp_cli_progress mode)
{
	memset(cp, 0, sizeof(*cp));
	cp->show = mode == JP_CLI_PROGRESS_ALWAYS ||
		   (mode == JP_CLI_PROGRESS_AUTO && isatty(STDERR_FILENO));
	/* Also when nothing is shown: the callback is how the work hears of
	 * a signal, and leaves nothing half-made behind. */
	cp->port.progress = on_progress;
	cp->port.ask_secret = ask_secret;
	cp->port.confirm = confirm;
	cp->port.confirm_default = confirm_default;
	cp->port.cancelled = cancelled;
	cp->port.payload = cp;
	jp_signals_catch(&saved_signals, NULL, false);
}

void jp_cli_port_finish(struct jp_cli_port *cp)
{
	if (cp->shown) {
		fprintf(stderr, "\r\033[K");
		fflush(stderr);
		cp->shown = false;
	}
	jp_signals_restore(&saved_signals);
}
