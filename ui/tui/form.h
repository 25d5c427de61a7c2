/* A form: one step's fields from the flow's table, drawn as rows with their
 * widgets (line editor, radio list, check box, list with add/delete) and an
 * inline verdict (✓ / ! / ✗ and the check's message) under each value.
 *
 * The form adds no rules: what a field is, its default, whether it applies
 * and whether its value is good all come from jobprep/flow.h. The form only
 * decides when to ask: a value is validated as it is typed (when the keys
 * pause) and stored when the focus leaves the field or the step is
 * accepted. A field the user never edits keeps following its default. */
#ifndef JOBPREP_TUI_FORM_H
#define JOBPREP_TUI_FORM_H

#include <stdbool.h>
#include <stddef.h>

#include "jobprep/flow.h"
#include "tui/complete.h"
#include "tui/keys.h"
#include "tui/lineedit.h"
#include "tui/widgets.h"

struct jp_form_row {
	char *key;                    /* owned: "job.name", "data[1].path", "data" */
	const struct jp_field *field; /* static */
	int depth;                    /* 1: a field of the selected list item */
	struct jp_lineedit le;        /* text, path and integer fields */
	bool edited;                  /* typed since it was last stored */
	bool check_pending;           /* validate when the keys pause */
	bool rejected;                /* the flow refused the text (not stored) */
	struct jp_verdict verdict;
	struct jp_flow_check *check;  /* owned: the verdict being worked out off
				       * this thread ("checking..." until then) */
	bool remote_miss;             /* the verdict fails for what only the
				       * off-thread look learnt (a ref the
				       * remote does not have): Enter refuses */
	struct jp_radio radio;        /* choice fields */
	const char **labels;          /* owned array of translated labels */
	bool checked;                 /* bool fields */
	struct jp_listbox lb;         /* list fields */
	int y, h;                     /* layout of the last draw, form-relative */
	int edit_w;                   /* a multi-line editor's width, as drawn */
};

struct jp_form {
	struct jp_flow *flow;   /* borrowed */
	const struct jp_ui *ui; /* borrowed: for the browser */
	enum jp_step step;
	struct jp_form_row *rows;
	size_t n;
	size_t focus;
	int scroll;
	size_t list_cursor;     /* selected item of the step's list (n = add row) */
	enum jp_check_status *item_status; /* per list item, from the last build */
	size_t n_items;

	/* Tab completion: a second Tab with nothing to add lists candidates. */
	bool tab_armed;
	char *tab_done;         /* owned: the text a unique completion gave
				 * (Tab on it again moves on) */
	struct jp_completion comp;
	bool comp_shown;

	/* Drawn in the bottom area above the field's help (owned), e.g. the
	 * data step's note about archives. */
	char *note;
	enum jp_check_status note_status;

	/* The list's item row, drawn by the step (NULL: "name  value"). */
	void (*draw_item)(void *arg, const char *list_key, size_t i, int y, int x,
			  int width, bool selected);
	void *item_arg;

	/* Enter was refused on this step: empty fields show their ✗ now
	 * (before, a field nobody typed in shows no verdict). */
	bool accept_tried;

	/* Drawn without a focused row (the focus is elsewhere on screen). */
	bool inactive;
	/* Lines of the rows' area as last drawn: the launch command's findings
	 * are wrapped whole while they fit it, else one line each. */
	int rows_room;
	/* Where the cursor goes after drawing (a focused text field). */
	bool cursor_on;
	int cursor_y, cursor_x;
	/* Set when a stored value changed the flow (for the draft). */
	bool changed;
	/* Why the last Enter was refused (owned; NULL: it was not): the
	 * failing field's key and what is wrong with it, also when that
	 * field has no row of its own to focus. */
	char *refused_key;
	char *refused_msg;
};

int jp_form_init(struct jp_form *form, struct jp_flow *flow, enum jp_step step,
		 const struct jp_ui *ui);
void jp_form_dispose(struct jp_form *form);
/* Rebuild the rows from the flow (after a change elsewhere): keeps the
 * focus, the list selection and text still being edited. */
int jp_form_build(struct jp_form *form);

/* Draw in the rectangle; the bottom lines hold the note, the focused
 * field's help or the completion candidates. */
void jp_form_draw(struct jp_form *form, int y, int x, int h, int w);
/* Lines the rows take in `w` columns (without the help area). */
int jp_form_rows_height(const struct jp_form *form, int w);
/* Place the cursor where the focused text field wants it (call last). */
void jp_form_place_cursor(const struct jp_form *form);

/* What a key means here: text when a text field has the focus. */
enum jp_keyctx jp_form_keyctx(const struct jp_form *form);
/* Handle an action; JP_EV_IGNORED for what the step or wizard handles
 * (Enter, Esc, Ctrl-C, F1). */
int jp_form_key(struct jp_form *form, enum jp_act act, const struct jp_key *key);
/* Work to do when the keys pause (validation as typed); jp_ev bits. */
int jp_form_idle(struct jp_form *form);

/* Store every edited field. Returns 0, or JP_EUSAGE when a value was
 * refused (the focus moves to it). */
int jp_form_commit(struct jp_form *form);
/* Enter: store, then ask the flow for the step's verdict. Returns 0 when
 * the step may be left (warnings allowed), JP_ECHECK with the focus on the
 * failing field (when it has a row) and refused_key/refused_msg set
 * otherwise. */
int jp_form_accept(struct jp_form *form);
/* Put the focus on a field by key ("data[1].path" selects item 1). */
bool jp_form_focus_key(struct jp_form *form, const char *key);
/* What a field shows now: the text in its editor while it is being edited
 * (a list's row follows the item's fields as they are typed, not one edit
 * behind), else the flow's value; never NULL but out of memory; free(). */
char *jp_form_shown_value(const struct jp_form *form, const char *key);
/* The focused row, or NULL. */
struct jp_form_row *jp_form_focused(struct jp_form *form);

#endif
