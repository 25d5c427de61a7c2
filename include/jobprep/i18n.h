/* Translation of user-facing text: _() marks and translates, N_() only marks. */
#ifndef JOBPREP_I18N_H
#define JOBPREP_I18N_H

#ifdef ENABLE_NLS
#include <libintl.h>
#define _(s) dgettext("jobprep", s)
#else
#define _(s) (s)
#endif
#define N_(s) (s)

#endif
