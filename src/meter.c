/* The figures of a progress report: a smoothed rate, the fraction done,
 * the time to go. */
#include "config.h"

#include "jobprep/meter.h"
#include "meter_internal.h"

#define SLOT_NS 500000000ULL /* a sample every half second */

double jp_meter_rate(struct jp_meter *m, uint64_t now_ns, uint64_t bytes)
{
	unsigned first;
	uint64_t dt;

	if (m->n > 0 && bytes < m->b[m->last])
		m->n = 0; /* started again (a download the server sent whole) */
	if (m->n == 0 || now_ns - m->t[m->last] >= SLOT_NS) {
		m->last = m->n == 0 ? 0 : (m->last + 1) % JP_METER_SLOTS;
		m->t[m->last] = now_ns;
		m->b[m->last] = bytes;
		if (m->n < JP_METER_SLOTS)
			m->n++;
	}
	/* the oldest sample kept: the rate over the window since then */
	first = m->n < JP_METER_SLOTS ? 0 : (m->last + 1) % JP_METER_SLOTS;
	dt = now_ns - m->t[first];
	if (dt < SLOT_NS || bytes < m->b[first])
		return 0;
	return (double)(bytes - m->b[first]) * 1e9 / (double)dt;
}

double jp_progress_fraction(const struct jp_progress *p)
{
	double f;

	if (p->bytes_total)
		f = (double)p->bytes / (double)p->bytes_total;
	else if (p->total)
		f = (double)p->done / (double)p->total;
	else
		return -1;
	return f > 1 ? 1 : f;
}

double jp_progress_eta(const struct jp_progress *p)
{
	if (!p->bytes_total || !(p->rate > 0))
		return -1;
	if (p->bytes >= p->bytes_total)
		return 0;
	return (double)(p->bytes_total - p->bytes) / p->rate;
}
