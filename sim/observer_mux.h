/* observer_mux.h - several engine observers behind one (engine.h takes a single observer). */
#ifndef AM_OBSERVER_MUX_H
#define AM_OBSERVER_MUX_H

#include "engine.h"

#define OBS_MUX_MAX 8

typedef struct obs_mux {
    sim_observer obs;                   /* the chained observer */
    const sim_observer *to[OBS_MUX_MAX];
    int n;
} obs_mux;

/* Chain the non-NULL entries of list[0..n) (at most OBS_MUX_MAX) in order: NULL when there
 * are none, the observer itself when there is one, else &m->obs (m must outlive the run). */
const sim_observer *obs_mux_init(obs_mux *m, const sim_observer *const *list, int n);

#endif
