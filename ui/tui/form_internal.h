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

#endif
