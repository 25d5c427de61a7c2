/* The progress line: label, bar, percentage, bytes of their total, rate,
 * time to go, counts (the figures of jobprep/meter.h, as the command
 * line's). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "jobprep/i18n.h"
#include "jobprep/meter.h"
#include "jobprep/units.h"
#include "tui/draw.h"
#include "tui/utf8.h"
#include "tui/widgets.h"

/* Append printf text to tail (size n), cut to fit. */
static void __attribute__((format(printf, 3, 4))) add(char *tail, size_t n, const char *fmt, ...)
{
	size_t len = strlen(tail);
	va_list ap;

	va_start(ap, fmt);
	if (len + 1 < n)
		vsnprintf(tail + len, n - len, fmt, ap);
	va_end(ap);
}

void jp_progress_draw(int y, int x, int width, const char *label,
		      const struct jp_progress *p)
{
	char tail[200], a[32], b[32], c[32];
	int used, barw, tw;
	double frac = jp_progress_fraction(p);

	jp_draw_fill(y, x, width, JP_STYLE_NORMAL);
	used = jp_draw_text(y, x, width, JP_STYLE_TITLE, label);
	used += jp_draw_text(y, x + used, width - used, JP_STYLE_NORMAL, " ");
	tail[0] = '\0';
	if (frac >= 0)
		add(tail, sizeof(tail), "%3d%%  ", (int)(frac * 100));
	add(tail, sizeof(tail), "%s", jp_phase_name(p->phase, true));
	if (p->bytes_total)
		add(tail, sizeof(tail), "  %s/%s", jp_units_format_bytes(a, sizeof(a), p->bytes),
		    jp_units_format_bytes(b, sizeof(b), p->bytes_total));
	else if (p->bytes)
		add(tail, sizeof(tail), "  %s", jp_units_format_bytes(a, sizeof(a), p->bytes));
	if (p->rate > 0)
		add(tail, sizeof(tail), "  %s", jp_units_format_rate(a, sizeof(a), p->rate));
	if (jp_progress_eta(p) >= 0)
		add(tail, sizeof(tail), "  %s %s", _("ETA"),
		    jp_units_format_duration(a, sizeof(a), jp_progress_eta(p)));
	if (p->total)
		add(tail, sizeof(tail), "  %s/%s", jp_fmt_count(b, sizeof(b), p->done),
		    jp_fmt_count(c, sizeof(c), p->total));
	else if (p->done)
		add(tail, sizeof(tail), "  %s", jp_fmt_count(b, sizeof(b), p->done));
	tw = jp_utf8_swidth(tail);
	/* The bar takes what is left, up to 24 cells; at least 6 or none. */
	barw = width - used - tw - 2;
	if (barw > 24)
		barw = 24;
	if (barw >= 6 && frac >= 0) {
		jp_draw_bar(y, x + used, barw, frac);
		used += barw + 1;
	}
	jp_draw_text(y, x + used, width - used, JP_STYLE_NORMAL, tail);
}
