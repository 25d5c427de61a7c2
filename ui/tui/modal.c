/* The modal loop: keys for a modal widget while the screen under it stays
 * alive (background progress, resizes). */
#include "config.h"

#include <curses.h>

#include "tui/draw.h"
#include "tui/widgets.h"

int jp_ui_next_key(const struct jp_ui *ui, struct jp_key *key,
		   void (*draw_modal)(void *arg), void *arg, bool *redraw)
{
	for (;;) {
		if (jp_term_signal())
			return 0;
		if (*redraw) {
			if (jp_term_too_small()) {
				jp_draw_too_small();
			} else {
				erase();
				if (ui && ui->draw)
					ui->draw(ui->payload);
				jp_term_cursor(false);
				draw_modal(arg);
				refresh();
			}
			*redraw = false;
		}
		if (jp_term_read_key(key, 100)) {
			if (key->fn && key->code == KEY_RESIZE) {
				*redraw = true;
				continue;
			}
			if (jp_term_too_small() &&
			    !(!key->fn && key->code == JP_KEY_CTRL('c')))
				continue;
			return 1;
		}
		if (ui && ui->tick && (ui->tick(ui->payload) & JP_EV_REDRAW))
			*redraw = true;
	}
}

void jp_ui_center(int *y, int *x, int *h, int *w)
{
	if (*w > COLS - 2)
		*w = COLS - 2;
	if (*h > LINES - 2)
		*h = LINES - 2;
	if (*w < 4)
		*w = 4;
	if (*h < 3)
		*h = 3;
	*y = (LINES - *h) / 2;
	*x = (COLS - *w) / 2;
}
