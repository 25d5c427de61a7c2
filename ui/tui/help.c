/* The help overlay: what this step and field are about, then every key
 * from the key table. A line starting with '#' is a heading. */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/i18n.h"
#include "jobprep/strv.h"
#include "tui/draw.h"
#include "tui/utf8.h"
#include "tui/widgets.h"

struct help {
	const char *title;
	char *text;
	struct jp_strv lines; /* wrapped for `wrapped_at` columns */
	int wrapped_at;
	int top;
	int page;
};

static void draw_help(void *arg)
{
	struct help *hp = arg;
	int w = 78, h = LINES - 2, y, x, i, n;

	jp_ui_center(&y, &x, &h, &w);
	jp_draw_box(y, x, h, w, hp->title);
	if (hp->wrapped_at != w - 4) {
		jp_strv_dispose(&hp->lines);
		jp_wrap_lines(&hp->lines, hp->text, w - 4);
		hp->wrapped_at = w - 4;
	}
	hp->page = h - 3;
	n = (int)hp->lines.n;
	if (hp->top > n - hp->page)
		hp->top = n - hp->page;
	if (hp->top < 0)
		hp->top = 0;
	for (i = 0; i < hp->page && hp->top + i < n; i++) {
		const char *l = hp->lines.v[hp->top + i];

		if (l[0] == '#')
			jp_draw_text(y + 1 + i, x + 2, w - 4, JP_STYLE_TITLE, l + 1);
		else
			jp_draw_text(y + 1 + i, x + 2, w - 4, JP_STYLE_NORMAL, l);
	}
	jp_draw_text(y + h - 2, x + 2, w - 4, JP_STYLE_DIM,
		     n > hp->page ? _("Up/Down scroll · Esc or Enter close")
				  : _("Esc or Enter close"));
}

static char *build_text(const char *text)
{
	const struct jp_keybinding *t;
	size_t n, i, len, cap;
	char *s, line[256];
	int keyw = 0;

	t = jp_keys_table(&n);
	cap = strlen(text ? text : "") + 64 + n * 200;
	s = malloc(cap);
	if (!s)
		return NULL;
	snprintf(s, cap, "%s\n\n#%s\n", text ? text : "", _("Keys"));
	len = strlen(s);
	/* The key column is as wide as its widest key, in display columns. */
	for (i = 0; i < n; i++)
		if (t[i].name && t[i].help && jp_utf8_swidth(t[i].name) > keyw)
			keyw = jp_utf8_swidth(t[i].name);
	for (i = 0; i < n; i++) {
		if (!t[i].name || !t[i].help)
			continue;
		snprintf(line, sizeof(line), "  %s%*s %s\n", t[i].name,
			 keyw - jp_utf8_swidth(t[i].name), "", _(t[i].help));
		if (len + strlen(line) + 1 > cap)
			break;
		strcpy(s + len, line);
		len += strlen(line);
	}
	return s;
}

void jp_help_show(const struct jp_ui *ui, const char *title, const char *text)
{
	struct help hp;
	struct jp_key key;
	bool redraw = true;

	memset(&hp, 0, sizeof(hp));
	hp.title = title;
	hp.page = 10;
	hp.text = build_text(text);
	if (!hp.text)
		return;
	while (jp_ui_next_key(ui, &key, draw_help, &hp, &redraw)) {
		if (key.fn && key.code == KEY_UP) {
			hp.top--;
		} else if (key.fn && key.code == KEY_DOWN) {
			hp.top++;
		} else if (key.fn && key.code == KEY_PPAGE) {
			hp.top -= hp.page;
		} else if ((key.fn && key.code == KEY_NPAGE) || (!key.fn && key.code == ' ')) {
			hp.top += hp.page;
		} else if ((key.fn && (key.code == KEY_ENTER || key.code == KEY_F(1))) ||
			   (!key.fn && (key.code == 27 || key.code == 'q' ||
					key.code == '?' || key.code == JP_KEY_CTRL('c')))) {
			break;
		} else {
			continue;
		}
		redraw = true;
	}
	jp_strv_dispose(&hp.lines);
	free(hp.text);
}
