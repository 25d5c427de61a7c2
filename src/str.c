/* Owned strings. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "jobprep/error.h"
#include "str.h"

int jp_set_str(char **field, const char *value)
{
	char *copy = NULL;

	if (value) {
		copy = strdup(value);
		if (!copy)
			return JP_ENOMEM;
	}
	free(*field);
	*field = copy;
	return 0;
}
