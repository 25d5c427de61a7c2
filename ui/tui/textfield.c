/* A line editor drawn in a field, scrolled sideways to keep the cursor in
 * view; markers show text cut off on either side. */
#include "config.h"

#include <curses.h>

#include "tui/draw.h"
#include "tui/utf8.h"
#include "tui/widgets.h"

int jp_textfield_draw(struct jp_lineedit *le, int y, int x, int width,
		       bool focused, bool secret)
{
	const struct jp_glyphs *g = jp_term_glyphs();
	enum jp_style st = focused ? JP_STYLE_INPUT_FOCUS : JP_STYLE_INPUT;
	size_t start, end;
	int col, inner, used;

	if (width < 3)
		return x;
	jp_draw_fill(y, x, width, st);
	if (secret)
		return x;
	/* One column on the left for the "more" marker once scrolled. */
	inner = width - 1;
	jp_le_view(le, inner, &start, &end, &col);
	if (start > 0) {
		jp_draw_text(y, x, 1, JP_STYLE_DIM, g->more_left);
		jp_le_view(le, inner - 1, &start, &end, &col);
		used = 1 + jp_draw_textn(y, x + 1, inner - 1, st, le->buf + start, end - start);
		col += 1;
	} else {
		used = jp_draw_textn(y, x, inner, st, le->buf + start, end - start);
	}
	(void)used;
	if (end < le->len)
		jp_draw_text(y, x + width - 1, 1, JP_STYLE_DIM, g->more_right);
	(void)focused;
	return x + col;
}

int jp_textfield_key(struct jp_lineedit *le, enum jp_act act,
		     const struct jp_key *key)
{
	static const struct {
		enum jp_act act;
		enum jp_le_op op;
	} ops[] = {
		{ JP_ACT_LEFT, JP_LE_LEFT },
		{ JP_ACT_RIGHT, JP_LE_RIGHT },
		{ JP_ACT_HOME, JP_LE_HOME },
		{ JP_ACT_END, JP_LE_END },
		{ JP_ACT_WORD_LEFT, JP_LE_WORD_LEFT },
		{ JP_ACT_WORD_RIGHT, JP_LE_WORD_RIGHT },
		{ JP_ACT_BACKSPACE, JP_LE_BACKSPACE },
		{ JP_ACT_DELETE_CHAR, JP_LE_DELETE },
		{ JP_ACT_KILL_START, JP_LE_KILL_START },
		{ JP_ACT_KILL_END, JP_LE_KILL_END },
		{ JP_ACT_KILL_WORD, JP_LE_KILL_WORD },
		{ JP_ACT_YANK, JP_LE_YANK },
	};
	size_t i;

	if (act == JP_ACT_INSERT) {
		if (jp_le_insert_cp(le, key->code) < 0) {
			jp_term_beep();
			return JP_EV_HANDLED;
		}
		return JP_EV_HANDLED | JP_EV_REDRAW;
	}
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (ops[i].act == act)
			return JP_EV_HANDLED |
			       (jp_le_apply(le, ops[i].op) ? JP_EV_REDRAW : 0);
	return JP_EV_IGNORED;
}
