/* A radio list: one choice out of a few, drawn one per line. */
#include "config.h"

#include <stdio.h>

#include "tui/draw.h"
#include "tui/widgets.h"

int jp_radio_draw(const struct jp_radio *r, int y, int x, int width, bool focused)
{
	const struct jp_glyphs *g = jp_term_glyphs();
	size_t i;
	int used;

	for (i = 0; i < r->n; i++) {
		bool hl = focused && i == r->cursor;
		enum jp_style st = hl ? JP_STYLE_SELECTED : JP_STYLE_NORMAL;

		used = jp_draw_text(y + (int)i, x, width, st,
				    i == r->selected ? g->radio_on : g->radio_off);
		used += jp_draw_text(y + (int)i, x + used, width - used, st, " ");
		jp_draw_text(y + (int)i, x + used, width - used, st, r->labels[i]);
	}
	return (int)r->n;
}

int jp_radio_key(struct jp_radio *r, enum jp_act act, bool *chosen)
{
	*chosen = false;
	switch (act) {
	case JP_ACT_UP:
		if (r->cursor == 0)
			return JP_EV_IGNORED;
		r->cursor--;
		return JP_EV_HANDLED | JP_EV_REDRAW;
	case JP_ACT_DOWN:
		if (r->cursor + 1 >= r->n)
			return JP_EV_IGNORED;
		r->cursor++;
		return JP_EV_HANDLED | JP_EV_REDRAW;
	case JP_ACT_TOGGLE:
		if (r->selected != r->cursor) {
			r->selected = r->cursor;
			*chosen = true;
		}
		return JP_EV_HANDLED | JP_EV_REDRAW;
	default:
		return JP_EV_IGNORED;
	}
}
