/* The port: the only way the core reaches a person.
 *
 * A front end fills a struct jp_port with callbacks; the core calls them for
 * progress, secrets and confirmations. Any callback may be NULL: the core then
 * behaves as if nobody is there (no progress shown, secrets fail with
 * JP_ENEEDUSER, confirmations answer "no"). */
#ifndef JOBPREP_PORT_H
#define JOBPREP_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum jp_phase {
	JP_PHASE_CONNECT,  /* reaching a server */
	JP_PHASE_FETCH,    /* receiving objects */
	JP_PHASE_INDEX,    /* resolving deltas */
	JP_PHASE_CHECKOUT, /* writing files */
	JP_PHASE_COPY,     /* copying a finished tree onto shared storage */
	JP_PHASE_SCAN,     /* walking a data set */
	JP_PHASE_DOWNLOAD, /* receiving a file over http(s) */
	JP_PHASE_UNPACK,   /* unpacking an archive */
	JP_PHASE_DONE,
};

/* The phase's name, translated; static. brief: the short word that fits
 * beside a progress bar ("receiving"), else what a progress line says
 * ("receiving objects"). "" for a value outside the enum. */
const char *jp_phase_name(enum jp_phase phase, bool brief);

/* One report; its figures for people (the fraction done, the time to go)
 * come from jobprep/meter.h, the same in every front end. */
struct jp_progress {
	enum jp_phase phase;
	uint64_t done;    /* items done in this phase (objects, files) */
	uint64_t total;   /* items expected, 0 when unknown */
	uint64_t bytes;   /* bytes done so far (a copy's: the files found
			     complete count too; a resumed download's: those
			     kept from the run before) */
	uint64_t bytes_total; /* the bytes that make the whole, 0 when unknown */
	double rate;      /* bytes per second moved over the last few seconds
			     (jp_meter_rate), 0 when unknown */
	const char *what; /* borrowed: a path or URL being worked on, may be NULL */
};

struct jp_port {
	/* Progress; return < 0 to cancel the work (it then fails with
	 * JP_ECANCELED and leaves nothing half-made). Called from the thread
	 * doing the work. */
	int (*progress)(const struct jp_progress *p, void *payload);
	/* Ask for a secret (echo off) into buf; return 0, or < 0 when the person
	 * declines. The core wipes buf after use. */
	int (*ask_secret)(char *buf, size_t len, const char *prompt, void *payload);
	/* Ask a yes/no question; return 1 yes, 0 no. */
	int (*confirm)(const char *question, void *payload);
	void *payload;
	/* Has the person asked to stop? Unlike the others, called from any
	 * thread (a watchdog over a call that blocks where progress cannot be
	 * asked, e.g. inside libssh2); must not block. Non-zero: stop. */
	int (*cancelled)(void *payload);
	/* Ask a yes/no question whose likely answer is known: default_yes is
	 * what Enter answers where a front end offers one (the wizard's
	 * focused button). May be NULL: confirm is asked (jp_port_confirm). */
	int (*confirm_default)(const char *question, bool default_yes, void *payload);
};

#define JP_PORT_INIT { .progress = NULL }

#endif
