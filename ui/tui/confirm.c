/* The modal yes/no question. */
#include "config.h"

#include <curses.h>
#include <string.h>

#include "jobprep/i18n.h"
#include "tui/draw.h"
#include "tui/utf8.h"
#include "tui/widgets.h"

struct confirm {
	const char *title, *text, *yes, *no;
	bool on_yes;
};

static void draw_button(int y, int x, const char *label, bool focused)
{
	char b[128];

	snprintf(b, sizeof(b), focused ? "[ %s ]" : "  %s  ", label);
	jp_draw_text(y, x, COLS - x, focused ? JP_STYLE_SELECTED : JP_STYLE_NORMAL, b);
}

static void draw_confirm(void *arg)
{
	struct confirm *c = arg;
	int w = 64, h, y, x, lines, bw;

	if (w > COLS - 2)
		w = COLS - 2;
	lines = jp_draw_wrap(0, 0, w - 4, 0, JP_STYLE_NORMAL, c->text);
	h = lines + 4;
	jp_ui_center(&y, &x, &h, &w);
	jp_draw_box(y, x, h, w, c->title);
	jp_draw_wrap(y + 1, x + 2, w - 4, h - 4, JP_STYLE_NORMAL, c->text);
	bw = jp_utf8_swidth(c->yes) + jp_utf8_swidth(c->no) + 10;
	draw_button(y + h - 2, x + (w - bw) / 2, c->yes, c->on_yes);
	draw_button(y + h - 2, x + (w - bw) / 2 + jp_utf8_swidth(c->yes) + 6, c->no,
		    !c->on_yes);
}

int jp_confirm(const struct jp_ui *ui, const char *title, const char *text,
	       const char *yes, const char *no, bool default_yes)
{
	struct confirm c = { title, text, yes ? yes : _("Yes"), no ? no : _("No"),
			     default_yes };
	struct jp_key key;
	bool redraw = true;

	while (jp_ui_next_key(ui, &key, draw_confirm, &c, &redraw)) {
		if (key.fn && key.code == KEY_ENTER)
			return c.on_yes ? 1 : 0;
		if (!key.fn && key.code == 27)
			return JP_CONFIRM_ESC;
		if (!key.fn && key.code == JP_KEY_CTRL('c'))
			return 0;
		if (!key.fn && (key.code == 'y' || key.code == 'Y'))
			return 1;
		if (!key.fn && (key.code == 'n' || key.code == 'N'))
			return 0;
		if ((key.fn && (key.code == KEY_LEFT || key.code == KEY_RIGHT ||
				key.code == KEY_BTAB)) ||
		    (!key.fn && key.code == '\t')) {
			c.on_yes = !c.on_yes;
			redraw = true;
		}
	}
	return -1;
}
