/* A list with add and delete: items drawn by the owner, plus an "add" row
 * at the end so adding is reachable with arrows and Space alone. */
#include "config.h"

#include "tui/draw.h"
#include "tui/widgets.h"

int jp_listbox_draw(struct jp_listbox *lb, int y, int x, int width, int height,
		    bool focused,
		    void (*draw_item)(void *arg, size_t i, int y, int x, int width,
				      bool selected),
		    void *arg)
{
	size_t rows = lb->n + 1, i;
	int drawn = 0;

	if (height < 1)
		return 0;
	if (lb->cursor > lb->n)
		lb->cursor = lb->n;
	if (lb->cursor < lb->top)
		lb->top = lb->cursor;
	if (lb->cursor >= lb->top + (size_t)height)
		lb->top = lb->cursor - (size_t)height + 1;
	if (lb->top + (size_t)height > rows)
		lb->top = rows > (size_t)height ? rows - (size_t)height : 0;
	for (i = lb->top; i < rows && drawn < height; i++, drawn++) {
		bool sel = focused && i == lb->cursor;

		if (sel)
			jp_draw_fill(y + drawn, x, width, JP_STYLE_SELECTED);
		if (i < lb->n)
			draw_item(arg, i, y + drawn, x, width, sel);
		else
			jp_draw_text(y + drawn, x, width,
				     sel ? JP_STYLE_SELECTED : JP_STYLE_DIM,
				     lb->add_label);
	}
	return drawn;
}

int jp_listbox_key(struct jp_listbox *lb, enum jp_act act, enum jp_listbox_op *op)
{
	*op = JP_LISTBOX_NONE;
	switch (act) {
	case JP_ACT_UP:
		if (lb->cursor == 0)
			return JP_EV_IGNORED;
		lb->cursor--;
		*op = JP_LISTBOX_MOVED;
		return JP_EV_HANDLED | JP_EV_REDRAW;
	case JP_ACT_DOWN:
		if (lb->cursor >= lb->n)
			return JP_EV_IGNORED;
		lb->cursor++;
		*op = JP_LISTBOX_MOVED;
		return JP_EV_HANDLED | JP_EV_REDRAW;
	case JP_ACT_PAGE_UP:
		lb->cursor = lb->cursor > 5 ? lb->cursor - 5 : 0;
		*op = JP_LISTBOX_MOVED;
		return JP_EV_HANDLED | JP_EV_REDRAW;
	case JP_ACT_PAGE_DOWN:
		lb->cursor = lb->cursor + 5 < lb->n ? lb->cursor + 5 : lb->n;
		*op = JP_LISTBOX_MOVED;
		return JP_EV_HANDLED | JP_EV_REDRAW;
	case JP_ACT_ADD:
		*op = JP_LISTBOX_ADD;
		return JP_EV_HANDLED | JP_EV_REDRAW;
	case JP_ACT_TOGGLE:
		if (lb->cursor != lb->n)
			return JP_EV_IGNORED;
		*op = JP_LISTBOX_ADD;
		return JP_EV_HANDLED | JP_EV_REDRAW;
	case JP_ACT_DELETE:
		if (lb->cursor >= lb->n)
			return JP_EV_HANDLED;
		*op = JP_LISTBOX_DELETE;
		return JP_EV_HANDLED | JP_EV_REDRAW;
	default:
		return JP_EV_IGNORED;
	}
}
