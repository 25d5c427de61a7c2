/* The key table. */
#include "config.h"

#include <curses.h>

#include "jobprep/i18n.h"
#include "tui/keys.h"

#define C(c) JP_KEY_CTRL(c)

static const struct jp_keybinding table[] = {
	/* Everywhere. */
	{ JP_KEYCTX_ANY, true, KEY_ENTER, JP_ACT_ACCEPT, "Enter", N_("accept this step and go on") },
	{ JP_KEYCTX_ANY, false, 27, JP_ACT_BACK, "Esc", N_("back to the previous step") },
	{ JP_KEYCTX_ANY, false, '\t', JP_ACT_FIELD_NEXT, "Tab", N_("next field (in a path: complete it)") },
	{ JP_KEYCTX_ANY, true, KEY_BTAB, JP_ACT_FIELD_PREV, "Shift-Tab", N_("previous field") },
	{ JP_KEYCTX_ANY, true, KEY_UP, JP_ACT_UP, "Up/Down", N_("move in a list, or between fields") },
	{ JP_KEYCTX_ANY, true, KEY_DOWN, JP_ACT_DOWN, NULL, NULL },
	{ JP_KEYCTX_ANY, true, KEY_PPAGE, JP_ACT_PAGE_UP, NULL, NULL },
	{ JP_KEYCTX_ANY, true, KEY_NPAGE, JP_ACT_PAGE_DOWN, NULL, NULL },
	{ JP_KEYCTX_ANY, true, KEY_F(1), JP_ACT_HELP, "F1 ?", N_("help for this step and field") },
	{ JP_KEYCTX_ANY, false, C('c'), JP_ACT_QUIT, "Ctrl-C", N_("quit (asks first when work would be lost)") },
	{ JP_KEYCTX_ANY, true, KEY_F(2), JP_ACT_BROWSE, "F2 Ctrl-O", N_("browse directories for a path field") },
	{ JP_KEYCTX_ANY, false, C('o'), JP_ACT_BROWSE, NULL, NULL },
	{ JP_KEYCTX_ANY, false, C('l'), JP_ACT_REDRAW, "Ctrl-L", N_("redraw the screen") },
	{ JP_KEYCTX_ANY, true, KEY_RESIZE, JP_ACT_RESIZE, NULL, NULL },
	{ JP_KEYCTX_ANY, true, KEY_IC, JP_ACT_ADD, NULL, NULL },

	/* Lists, choices, check boxes. */
	{ JP_KEYCTX_NAV, false, ' ', JP_ACT_TOGGLE, "Space", N_("choose / toggle") },
	{ JP_KEYCTX_NAV, false, '?', JP_ACT_HELP, NULL, NULL },
	{ JP_KEYCTX_NAV, false, 'a', JP_ACT_ADD, "a", N_("add an item to a list") },
	{ JP_KEYCTX_NAV, false, 'd', JP_ACT_DELETE, "d Delete", N_("delete the item in a list") },
	{ JP_KEYCTX_NAV, true, KEY_DC, JP_ACT_DELETE, NULL, NULL },
	{ JP_KEYCTX_NAV, false, 'k', JP_ACT_UP, NULL, NULL },
	{ JP_KEYCTX_NAV, false, 'j', JP_ACT_DOWN, NULL, NULL },

	/* Text fields. */
	{ JP_KEYCTX_TEXT, true, KEY_LEFT, JP_ACT_LEFT, "Left/Right", N_("move the cursor") },
	{ JP_KEYCTX_TEXT, true, KEY_RIGHT, JP_ACT_RIGHT, NULL, NULL },
	{ JP_KEYCTX_TEXT, false, C('b'), JP_ACT_LEFT, NULL, NULL },
	{ JP_KEYCTX_TEXT, false, C('f'), JP_ACT_RIGHT, NULL, NULL },
	{ JP_KEYCTX_TEXT, true, KEY_HOME, JP_ACT_HOME, "Home Ctrl-A", N_("start of the line") },
	{ JP_KEYCTX_TEXT, false, C('a'), JP_ACT_HOME, NULL, NULL },
	{ JP_KEYCTX_TEXT, true, KEY_END, JP_ACT_END, "End Ctrl-E", N_("end of the line") },
	{ JP_KEYCTX_TEXT, false, C('e'), JP_ACT_END, NULL, NULL },
	{ JP_KEYCTX_TEXT, true, KEY_BACKSPACE, JP_ACT_BACKSPACE, "Backspace", N_("delete the character before the cursor") },
	{ JP_KEYCTX_TEXT, false, 127, JP_ACT_BACKSPACE, NULL, NULL },
	{ JP_KEYCTX_TEXT, false, C('h'), JP_ACT_BACKSPACE, NULL, NULL },
	{ JP_KEYCTX_TEXT, true, KEY_DC, JP_ACT_DELETE_CHAR, "Delete Ctrl-D", N_("delete the character under the cursor") },
	{ JP_KEYCTX_TEXT, false, C('d'), JP_ACT_DELETE_CHAR, NULL, NULL },
	{ JP_KEYCTX_TEXT, false, C('u'), JP_ACT_KILL_START, "Ctrl-U", N_("delete to the start of the line") },
	{ JP_KEYCTX_TEXT, false, C('k'), JP_ACT_KILL_END, "Ctrl-K", N_("delete to the end of the line") },
	{ JP_KEYCTX_TEXT, false, C('w'), JP_ACT_KILL_WORD, "Ctrl-W", N_("delete the word (path part) before the cursor") },
	{ JP_KEYCTX_TEXT, false, C('y'), JP_ACT_YANK, "Ctrl-Y", N_("paste what was deleted last") },
	{ JP_KEYCTX_TEXT, true, KEY_SLEFT, JP_ACT_WORD_LEFT, NULL, NULL },
	{ JP_KEYCTX_TEXT, true, KEY_SRIGHT, JP_ACT_WORD_RIGHT, NULL, NULL },
};

enum jp_act jp_keys_lookup(enum jp_keyctx ctx, const struct jp_key *key)
{
	size_t i, n = sizeof(table) / sizeof(table[0]);
	int pass;

	/* The context's own bindings first, then the global ones. */
	for (pass = 0; pass < 2; pass++) {
		enum jp_keyctx want = pass == 0 ? ctx : JP_KEYCTX_ANY;

		if (pass == 0 && ctx == JP_KEYCTX_ANY)
			continue;
		for (i = 0; i < n; i++)
			if (table[i].ctx == want && table[i].fn == key->fn &&
			    table[i].code == key->code)
				return table[i].act;
	}
	if (ctx == JP_KEYCTX_TEXT && !key->fn && key->code >= 0x20 && key->code != 0x7f)
		return JP_ACT_INSERT;
	return JP_ACT_NONE;
}

const struct jp_keybinding *jp_keys_table(size_t *n)
{
	*n = sizeof(table) / sizeof(table[0]);
	return table;
}
