/* The command line's port (jobprep/port.h): progress on stderr when it is a
 * terminal, secrets from the terminal with echo off (or one line each from
 * a non-terminal stdin), and SIGINT/SIGTERM/SIGHUP turned into a clean
 * cancel. */
#ifndef JOBPREP_UI_CLI_PORT_H
#define JOBPREP_UI_CLI_PORT_H

#include <stdbool.h>

#include "jobprep/port.h"

enum jp_cli_progress {
	JP_CLI_PROGRESS_AUTO = 0, /* shown when stderr is a terminal */
	JP_CLI_PROGRESS_ALWAYS,   /* shown on stderr whatever it is */
	JP_CLI_PROGRESS_NEVER,    /* never shown (signals still cancel) */
};

struct jp_cli_port {
	struct jp_port port;
	bool show;  /* print progress */
	bool shown; /* a progress line is on screen */
};

/* Fill cp and install the signal handlers (without SA_RESTART, so a
 * blocked read returns and the work sees the cancel). */
void jp_cli_port_init(struct jp_cli_port *cp, enum jp_cli_progress mode);
/* Clear the progress line and restore the signal handlers. */
void jp_cli_port_finish(struct jp_cli_port *cp);
/* A signal asked to stop. */
bool jp_cli_interrupted(void);
/* The exit status for work a signal stopped: 128 + the first signal
 * (130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP); 130 when none was seen. */
int jp_cli_exit_interrupted(void);
/* The exit status of work that failed with rc: err is reported (each line
 * after "jobprep CMD: ", as jp_cli_report), and
 * when a signal canceled the work, 128 + that signal (jp_signals.h). */
int jp_cli_port_failed(const char *cmd, int rc, const struct jp_error *err);

#endif
