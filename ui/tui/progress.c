/* The progress line: label, bar, percentage, rate, counts. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "jobprep/units.h"
#include "tui/draw.h"
#include "tui/utf8.h"
#include "tui/widgets.h"

void jp_progress_draw(int y, int x, int width, const char *label,
		      const struct jp_progress *p)
{
	char tail[160], a[32], b[32], c[32];
	int used, barw, tw;
	double frac = 0;

	jp_draw_fill(y, x, width, JP_STYLE_NORMAL);
	used = jp_draw_text(y, x, width, JP_STYLE_TITLE, label);
	used += jp_draw_text(y, x + used, width - used, JP_STYLE_NORMAL, " ");
	if (p->total)
		frac = (double)p->done / (double)p->total;

	if (p->total)
		snprintf(tail, sizeof(tail), "%3d%%  %s", (int)(frac * 100),
			 jp_phase_name(p->phase, true));
	else
		snprintf(tail, sizeof(tail), "%s", jp_phase_name(p->phase, true));
	if (p->rate > 0) {
		size_t l = strlen(tail);

		snprintf(tail + l, sizeof(tail) - l, "  %s/s",
			 jp_units_format_bytes(a, sizeof(a), (uint64_t)p->rate));
	} else if (p->bytes) {
		size_t l = strlen(tail);

		snprintf(tail + l, sizeof(tail) - l, "  %s",
			 jp_units_format_bytes(a, sizeof(a), p->bytes));
	}
	if (p->total) {
		size_t l = strlen(tail);

		snprintf(tail + l, sizeof(tail) - l, "  %s/%s",
			 jp_fmt_count(b, sizeof(b), p->done),
			 jp_fmt_count(c, sizeof(c), p->total));
	} else if (p->done) {
		size_t l = strlen(tail);

		snprintf(tail + l, sizeof(tail) - l, "  %s",
			 jp_fmt_count(b, sizeof(b), p->done));
	}
	tw = jp_utf8_swidth(tail);
	/* The bar takes what is left, up to 24 cells; at least 6 or none. */
	barw = width - used - tw - 2;
	if (barw > 24)
		barw = 24;
	if (barw >= 6 && p->total) {
		jp_draw_bar(y, x + used, barw, frac);
		used += barw + 1;
	}
	jp_draw_text(y, x + used, width - used, JP_STYLE_NORMAL, tail);
}
