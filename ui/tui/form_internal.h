/* What form.c and form_draw.c share, and nobody else. */
#ifndef JOBPREP_TUI_FORM_INTERNAL_H
#define JOBPREP_TUI_FORM_INTERNAL_H

#include <stddef.h>

#include "tui/form.h"

/* The field's current value as text ("" when it has none); the caller's,
 * free with free(). NULL only when out of memory. */
char *jp_form_value(const struct jp_form *form, const char *key);
/* "data[].path" with index 2 -> "data[2].path"; the caller's. */
char *jp_form_item_key(const char *generic, size_t index);

/* Where each line of s[0..len) word-wrapped into `width` columns starts
 * (a column kept for the cursor; a space ends the line it follows): at most
 * max offsets into starts, their count returned (1 for empty text). */
int jp_form_wrap_starts(size_t *starts, size_t max, const char *s, size_t len, int width);

#endif
