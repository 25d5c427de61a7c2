/* Of jobprep/port.h, what no front end calls: the core's own. */
#ifndef JOBPREP_PORT_INTERNAL_H
#define JOBPREP_PORT_INTERNAL_H

#include "jobprep/port.h"

/* Ask port's question: confirm_default when there is one, else confirm,
 * else "no". 1 yes, 0 no. */
int jp_port_confirm(const struct jp_port *port, const char *question, bool default_yes);

#endif
