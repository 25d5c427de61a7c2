/* The secret prompt: takes a password or token and never draws it, not
 * even as stars, so its length does not show either. */
#include "config.h"

#include <curses.h>
#include <string.h>

#include "jobprep/i18n.h"
#include "tui/draw.h"
#include "tui/widgets.h"

struct secret {
	const char *title, *prompt;
};

static void draw_secret(void *arg)
{
	struct secret *s = arg;
	int w = 64, h = 7, y, x;

	jp_ui_center(&y, &x, &h, &w);
	jp_draw_box(y, x, h, w, s->title);
	jp_draw_wrap(y + 1, x + 2, w - 4, 2, JP_STYLE_NORMAL, s->prompt);
	jp_draw_text(y + 3, x + 2, w - 4, JP_STYLE_DIM,
		     _("(typing is not shown; Enter to send, Esc to cancel)"));
	jp_draw_fill(y + 4, x + 2, w - 4, JP_STYLE_INPUT);
	move(y + 4, x + 2);
	jp_term_cursor(true);
}

int jp_secret_prompt(const struct jp_ui *ui, const char *title,
		     const char *prompt, char *buf, size_t len)
{
	struct secret s = { title, prompt };
	struct jp_lineedit le = JP_LINEEDIT_INIT;
	struct jp_key key;
	bool redraw = true;
	int rc = -1;

	if (len == 0 || jp_le_init(&le, NULL) < 0)
		return -1;
	while (jp_ui_next_key(ui, &key, draw_secret, &s, &redraw)) {
		enum jp_act act = jp_keys_lookup(JP_KEYCTX_TEXT, &key);

		if (act == JP_ACT_ACCEPT) {
			if (le.len >= len)
				break;
			memcpy(buf, le.buf, le.len + 1);
			rc = 0;
			break;
		}
		if (act == JP_ACT_BACK || act == JP_ACT_QUIT)
			break;
		if (act == JP_ACT_RESIZE || act == JP_ACT_REDRAW) {
			redraw = true;
			continue;
		}
		jp_textfield_key(&le, act, &key);
	}
	jp_le_dispose(&le); /* wipes */
	jp_term_cursor(false);
	return rc;
}
