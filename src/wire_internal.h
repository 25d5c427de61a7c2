/* The wire codec of the process boundary (src/helper.c): a request's inputs
 * and its answer as bytes (struct probe_bytes), written by one side and read
 * back field by field, in the same order, by the other. A reader that runs
 * past the end, or a writer out of memory, sets bad; every get after that
 * reads zeros (NULL for a string), so a caller checks bad once, at the end.
 * An error crosses whole (probe_bytes_put_error): its code and every line.
 * A struct that crosses is best listed once, field by field, in one
 * function both sides call (probe_bytes_field and its kin below). */
#ifndef JOBPREP_WIRE_INTERNAL_H
#define JOBPREP_WIRE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "jobprep/error.h"

/* A request's inputs or its answer, as bytes. */
struct probe_bytes {
	char *p;
	size_t n, cap;
	size_t off; /* reading */
	bool bad;   /* out of memory, or read past the end */
	/* being read: what the boundary hands over (a request's inputs in
	 * the helper, its answer in the caller); else being written */
	bool reading;
};

void probe_bytes_put(struct probe_bytes *b, const void *data, size_t n);
void probe_bytes_put_str(struct probe_bytes *b, const char *s);
void probe_bytes_get(struct probe_bytes *b, void *out, size_t n);
char *probe_bytes_get_str(struct probe_bytes *b); /* malloc'd; NULL for NULL */

/* A struct's fields listed once, for both sides: one function of the
 * request's file gives each field, in order, to these, which put it while
 * b is written and get it while b is read (b->reading). A string read
 * back is malloc'd (NULL for NULL), the reader's to free. So the two sides
 * cannot drift apart field by field. */
void probe_bytes_field(struct probe_bytes *b, void *v, size_t n);
void probe_bytes_field_str(struct probe_bytes *b, char **s);
/* n strings at *v (read back: *v and its strings malloc'd, *n of them) */
void probe_bytes_field_strv(struct probe_bytes *b, char ***v, size_t *n);
/* an error whole, as probe_bytes_put_error and probe_bytes_get_error */
void probe_bytes_field_error(struct probe_bytes *b, struct jp_error *e, int rc);
#define PROBE_FIELD(b, x) probe_bytes_field((b), &(x), sizeof(x))
/* A profile (NULL: none) as its JSON text; read back into *out (NULL for
 * none), the caller's to free; < 0 when the bytes do not hold one. Defined
 * in profile.c, with the profile's JSON: the codec itself uses no other
 * file. */
struct jp_profile;
void probe_bytes_put_profile(struct probe_bytes *b, const struct jp_profile *profile);
int probe_bytes_get_profile(struct jp_profile **out, struct probe_bytes *b, struct jp_error *err);

/* An error whole: its code and every line (e NULL or empty: none). Read
 * back, its lines are recorded in err (may be NULL) with its code, or with
 * rc when it has none; none and rc non-zero: rc's description. Returns the
 * code so recorded (0 for none), or 0 with b->bad set when the bytes do not
 * hold a whole error (then nothing is recorded). */
void probe_bytes_put_error(struct probe_bytes *b, const struct jp_error *e);
int probe_bytes_get_error(struct probe_bytes *b, struct jp_error *err, int rc);

#endif
