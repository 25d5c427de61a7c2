/* Of jobprep/meter.h, what no front end calls: the core's own. */
#ifndef JOBPREP_METER_INTERNAL_H
#define JOBPREP_METER_INTERNAL_H

#include "jobprep/meter.h"

/* bytes moved so far at now_ns (jp_now_ns's clock): the rate in bytes per
 * second over the last 2 to 4 s (a sample kept every half second), over
 * all the samples before that; 0 until half a second has gone by. The
 * first call sets the start: bytes there already (a resumed download)
 * make no rate. */
double jp_meter_rate(struct jp_meter *m, uint64_t now_ns, uint64_t bytes);

#endif
