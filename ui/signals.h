/* The signals that end jobprep — SIGINT (Ctrl-C), SIGTERM, SIGHUP, and for
 * the wizard SIGQUIT — caught the same way by every command and the wizard:
 * the handler runs without SA_RESTART (a blocked read returns, so the work
 * sees the cancel), and the command, once it has removed what was half-made,
 * exits 128 + the signal (130, 143, 129). */
#ifndef JOBPREP_UI_SIGNALS_H
#define JOBPREP_UI_SIGNALS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <signal.h>

#define JP_SIGNALS_MAX 4

struct jp_signals_saved {
	struct sigaction old[JP_SIGNALS_MAX];
	int n;
};

/* Install handler for SIGINT, SIGTERM and SIGHUP (and SIGQUIT with
 * with_quit), keeping the old dispositions in saved. handler NULL: the
 * recording one below. */
void jp_signals_catch(struct jp_signals_saved *saved, void (*handler)(int), bool with_quit);
/* Put back what jp_signals_catch found. */
void jp_signals_restore(const struct jp_signals_saved *saved);
/* For a command with nothing to clean up (check): SIGINT, SIGTERM and
 * SIGHUP end it by their default action, even when it was started with
 * them ignored (a background job of a shell script starts with SIGINT
 * ignored), as they end every other command. */
void jp_signals_default(void);

/* The recording handler's state: the first signal caught (0: none). Work
 * that polls an atomic flag (jp_scan's cancel) is given jp_signals_flag():
 * non-zero once a signal asked to stop. */
int jp_signals_first(void);
atomic_int *jp_signals_flag(void);
/* 128 + the first signal caught; 130 (Ctrl-C) when none was. */
int jp_signals_exit_status(void);

#endif
