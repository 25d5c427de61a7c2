/* A port across the process boundary: in a helper, progress goes to the
 * caller as reports and a cancel is the caller's stop; in the caller, those
 * reports come back as progress for the front end's port, and say whether
 * the work moved on (a sign of life for the watch). One wire format for
 * every watched request that shows progress (stage, scan, ssh git). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "helper_internal.h"

struct wire_progress {
	uint32_t phase;
	uint64_t done, total, bytes, bytes_total;
	double rate;
};

void jp_progress_put(struct probe_bytes *b, const struct jp_progress *p)
{
	struct wire_progress w;

	memset(&w, 0, sizeof(w)); /* its padding too: the bytes go out as they are */
	w.phase = (uint32_t)p->phase;
	w.done = p->done;
	w.total = p->total;
	w.bytes = p->bytes;
	w.bytes_total = p->bytes_total;
	w.rate = p->rate;
	probe_bytes_put(b, &w, sizeof(w));
	probe_bytes_put_str(b, p->what);
}

static int send_progress(const struct jp_progress *p, void *payload)
{
	struct probe_bytes b = {NULL, 0, 0, 0, false, false};
	const char *kind = payload;

	if (kind)
		probe_bytes_put(&b, kind, 1);
	jp_progress_put(&b, p);
	if (!b.bad)
		jp_watch_send(b.p, b.n);
	free(b.p);
	return jp_watch_stop_asked() ? -1 : 0;
}

static int stop_asked(void *payload)
{
	(void)payload;
	return jp_watch_stop_asked();
}

struct jp_port jp_helper_port(const char *kind)
{
	struct jp_port port = JP_PORT_INIT;

	port.progress = send_progress;
	port.cancelled = stop_asked;
	port.payload = (void *)kind;
	return port;
}

int jp_progress_relay(struct jp_progress_relay *r, struct probe_bytes *in)
{
	struct wire_progress w;
	struct jp_progress p;
	char *what;
	int moved, rc = 0;

	probe_bytes_get(in, &w, sizeof(w));
	what = probe_bytes_get_str(in);
	if (in->bad) {
		free(what);
		return 0;
	}
	p.phase = (enum jp_phase)w.phase;
	p.done = w.done;
	p.total = w.total;
	p.bytes = w.bytes;
	p.bytes_total = w.bytes_total;
	p.rate = w.rate;
	p.what = what;
	moved = !r->seen || p.phase != r->last.phase || p.done != r->last.done ||
		p.total != r->last.total || p.bytes != r->last.bytes;
	r->last = p;
	r->last.what = NULL;
	r->seen = true;
	if (r->show && r->show(&p, r->payload) < 0)
		rc = -1;
	free(what);
	return rc < 0 ? rc : moved;
}
