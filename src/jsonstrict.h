/* A strict pass over JSON text before cJSON parses it.
 *
 * cJSON accepts duplicate keys, invalid UTF-8, "\u0000" (cutting the string
 * short), trailing text, numbers like "+1" or "01", raw control characters
 * and loses integers beyond 2^53 silently. jp_json_scan refuses exactly what
 * RFC 8259 and Python's json module refuse, plus duplicate keys, NUL in
 * strings, lone surrogates and nesting deeper than asked, and reports each as
 * "ORIGIN:LINE:COLUMN: field.path: expected X, got Y". */
#ifndef JOBPREP_JSONSTRICT_H
#define JOBPREP_JSONSTRICT_H

#include <stdbool.h>
#include <stddef.h>

#include "jobprep/error.h"

/* Largest integer a JSON number carries exactly (2^53). */
#define JP_JSON_MAX_EXACT 9007199254740992.0

/* A field path as messages print it: "job.env.HOME", "data[0].path"; the
 * document itself is "(top level)". Start with JP_JSON_PATH_INIT, release
 * with jp_json_path_dispose. */
struct jp_json_path {
	char *s;
	size_t len, cap;
};

#define JP_JSON_PATH_INIT { NULL, 0, 0 }

/* Each push returns the length to give jp_json_path_pop to undo it. A push
 * that runs out of memory leaves the path unchanged. */
size_t jp_json_path_push_key(struct jp_json_path *p, const char *key, size_t key_len);
size_t jp_json_path_push_index(struct jp_json_path *p, size_t index);
void jp_json_path_pop(struct jp_json_path *p, size_t len);
/* Borrowed: valid until the path changes. */
const char *jp_json_path_str(const struct jp_json_path *p);
void jp_json_path_dispose(struct jp_json_path *p);

/* A number a double cannot hold: an integer literal of magnitude above 2^53,
 * or any literal beyond a double's range. */
struct jp_json_big {
	char *path;   /* as jp_json_path_str prints it */
	char *lexeme; /* the literal as written */
	size_t ordinal; /* its place among all numbers, in document order */
};

struct jp_json_scan {
	/* The text is not JSON (syntax, encoding, nesting): do not parse it. */
	bool fatal;
	/* Numbers a double cannot hold, in document order, left for the reader
	 * to refuse with the field's own message (not errors in themselves). */
	struct jp_json_big *big;
	size_t n_big;
};

#define JP_JSON_SCAN_INIT { false, NULL, 0 }

/* Scan `len` bytes of `text` (need not be NUL-terminated). Returns 0 when
 * nothing is wrong, JP_EFORMAT after recording every problem in err
 * (JP_ENOMEM when out of memory). `out` is filled either way; release it
 * with jp_json_scan_dispose. */
int jp_json_scan(struct jp_json_scan *out, const char *text, size_t len, const char *origin,
		 unsigned max_depth, struct jp_error *err);
void jp_json_scan_dispose(struct jp_json_scan *scan);

#endif
