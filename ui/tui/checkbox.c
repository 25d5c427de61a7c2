/* A check box: one yes/no answer, Space toggles. */
#include "config.h"

#include "tui/draw.h"
#include "tui/widgets.h"

void jp_checkbox_draw(int y, int x, int width, const char *label, bool checked,
		      bool focused)
{
	const struct jp_glyphs *g = jp_term_glyphs();
	enum jp_style st = focused ? JP_STYLE_SELECTED : JP_STYLE_NORMAL;
	int used;

	used = jp_draw_text(y, x, width, st, checked ? g->check_on : g->check_off);
	if (label && label[0]) {
		used += jp_draw_text(y, x + used, width - used, JP_STYLE_NORMAL, " ");
		jp_draw_text(y, x + used, width - used, JP_STYLE_NORMAL, label);
	}
}

int jp_checkbox_key(bool *checked, enum jp_act act)
{
	if (act != JP_ACT_TOGGLE)
		return JP_EV_IGNORED;
	*checked = !*checked;
	return JP_EV_HANDLED | JP_EV_REDRAW;
}
