/* The names of the work's phases, one list for every front end. */
#include "config.h"

#include "jobprep/i18n.h"
#include "jobprep/port.h"
#include "port_internal.h"

/* What a progress line says (the command line's "receiving objects 12/40"),
 * and the word that fits beside a bar in the wizard ("receiving"). */
static const struct {
	const char *text;
	const char *brief;
} phases[] = {
	[JP_PHASE_CONNECT] = { N_("connecting"), N_("connecting") },
	[JP_PHASE_FETCH] = { N_("receiving objects"), N_("receiving") },
	[JP_PHASE_INDEX] = { N_("resolving deltas"), N_("resolving") },
	[JP_PHASE_CHECKOUT] = { N_("checking out"), N_("checking out") },
	/* (not "to shared storage": a stage may go anywhere, warned of) */
	[JP_PHASE_COPY] = { N_("copying"), N_("copying") },
	[JP_PHASE_SCAN] = { N_("scanning"), N_("scanning") },
	[JP_PHASE_DOWNLOAD] = { N_("downloading"), N_("downloading") },
	[JP_PHASE_UNPACK] = { N_("unpacking"), N_("unpacking") },
	[JP_PHASE_DONE] = { N_("done"), N_("done") },
};

_Static_assert(sizeof(phases) / sizeof(phases[0]) == JP_PHASE_DONE + 1,
	       "every phase has its names");

const char *jp_phase_name(enum jp_phase phase, bool brief)
{
	if ((unsigned)phase > JP_PHASE_DONE)
		return "";
	return _(brief ? phases[phase].brief : phases[phase].text);
}

int jp_port_confirm(const struct jp_port *port, const char *question, bool default_yes)
{
	if (port && port->confirm_default)
		return port->confirm_default(question, default_yes, port->payload) == 1;
	if (port && port->confirm)
		return port->confirm(question, port->payload) == 1;
	return 0;
}
