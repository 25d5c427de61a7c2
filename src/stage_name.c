/* The name a data set staged from a source gets by default, for the
 * wizard's offers ({shared}/datasets/{name}) and the lint's `jobprep stage`
 * line alike. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jobprep/stage.h"
#include "stage_internal.h"

char *jp_stage_suggest_name(const char *source)
{
	const char *p = source, *end, *slash, *suffix;
	char *name;

	if (strncasecmp(p, "http://", 7) == 0 || strncasecmp(p, "https://", 8) == 0) {
		p = strstr(p, "://") + 3;
		p += strcspn(p, "/");
	}
	end = p + strcspn(p, "?#");
	while (end > p && end[-1] == '/')
		end--;
	slash = end;
	while (slash > p && slash[-1] != '/')
		slash--;
	name = strndup(slash, (size_t)(end - slash));
	if (!name)
		return NULL;
	suffix = jp_stage_archive_suffix(name);
	if (suffix && suffix > name)
		name[suffix - name] = '\0';
	/* never a path of its own, never hidden, never percent-encoded */
	if (!name[0] || name[0] == '.' || strchr(name, '%')) {
		free(name);
		name = strdup("data");
	}
	return name;
}
