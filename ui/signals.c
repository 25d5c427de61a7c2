/* The signals that end jobprep, caught in one place; see signals.h. */
#include "config.h"

#include <string.h>

#include "signals.h"

static atomic_int first_signal;
static const int sigs[JP_SIGNALS_MAX] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static void record(int sig)
{
	int none = 0;

	/* The first signal is the one the exit status reports. */
	atomic_compare_exchange_strong(&first_signal, &none, sig);
}

void jp_signals_catch(struct jp_signals_saved *saved, void (*handler)(int), bool with_quit)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler ? handler : record;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0; /* no SA_RESTART */
	saved->n = with_quit ? 4 : 3;
	for (int i = 0; i < saved->n; i++)
		sigaction(sigs[i], &sa, &saved->old[i]);
}

void jp_signals_restore(const struct jp_signals_saved *saved)
{
	for (int i = 0; i < saved->n; i++)
		sigaction(sigs[i], &saved->old[i], NULL);
}

void jp_signals_default(void)
{
	/* the first three of sigs: SIGQUIT is the wizard's alone */
	for (int i = 0; i < JP_SIGNALS_MAX - 1; i++)
		signal(sigs[i], SIG_DFL);
}

int jp_signals_first(void)
{
	return atomic_load(&first_signal);
}

atomic_int *jp_signals_flag(void)
{
	return &first_signal;
}

int jp_signals_exit_status(void)
{
	int sig = atomic_load(&first_signal);

	return sig ? 128 + sig : 130;
}
