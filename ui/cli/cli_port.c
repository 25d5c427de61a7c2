/* The command line's port: progress lines, secrets, questions, signals. */
#include "config.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "jobprep/i18n.h"
#include "jobprep/meter.h"
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

/* Append printf text to line (size n), cut to fit. */
static void __attribute__((format(printf, 3, 4))) add(char *line, size_t n, const char *fmt, ...)
{
	size_t len = strlen(line);
	va_list ap;

	va_start(ap, fmt);
	if (len + 1 < n)
		vsnprintf(line + len, n - len, fmt, ap);
	va_end(ap);
}

/* "12.0 MiB of 200.0 MiB (6%), 5.2 MiB/s, ETA 36s" (rsync's progress2,
 * rclone): the bytes, with their total when known, else the items; then
 * the items too when both are known. */
static void progress_figures(char *line, size_t n, const struct jp_progress *p)
{
	char done[32], total[32], rate[32], eta[32];
	double f = jp_progress_fraction(p);

	line[0] = '\0';
	jp_units_format_bytes(done, sizeof(done), p->bytes);
	jp_units_format_bytes(total, sizeof(total), p->bytes_total);
	jp_units_format_rate(rate, sizeof(rate), p->rate);
	jp_units_format_duration(eta, sizeof(eta), jp_progress_eta(p));
	if (p->bytes_total)
		/* TRANSLATORS: a progress line's bytes done of their total ("12.0 MiB of 200.0 MiB") */
		add(line, n, _("%s of %s"), done, total);
	else if (p->total)
		add(line, n, "%" PRIu64 "/%" PRIu64, p->done, p->total);
	if (f >= 0)
		add(line, n, " (%d%%)", (int)(f * 100));
	if (!p->bytes_total && (p->bytes || !p->total))
		add(line, n, "%s%s", line[0] ? ", " : "", done);
	if (rate[0])
		add(line, n, "%s%s", line[0] ? ", " : "", rate);
	if (eta[0])
		/* TRANSLATORS: before the time a piece of work still needs ("ETA 2m05s") */
		add(line, n, ", %s %s", _("ETA"), eta);
	if (p->bytes_total && p->total)
		add(line, n, ", %" PRIu64 "/%" PRIu64, p->done, p->total);
}

static int on_progress(const struct jp_progress *p, void *payload)
{
	struct jp_cli_port *cp = payload;

	if (cp->show && p->phase != JP_PHASE_DONE) {
		char line[256];

		progress_figures(line, sizeof(line), p);
		fprintf(stderr, "\r\033[K%s: %s", jp_phase_name(p->phase, false), line);
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
