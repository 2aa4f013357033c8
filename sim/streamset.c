/* streamset.c - the distinct stream numbers a trace names (streamset.h). */
#include "streamset.h"

enum { SS_SLOTS = 2 * SIM_MAX_TRACE_STREAMS };

int streamset_add(streamset *ss, uint32_t key)
{
    if (key == 0) /* TR_ALL: every stream, none in particular */
        return 0;
    uint32_t j = (key * 2654435761u) >> 21; /* Fibonacci hashing to 11 bits */
    _Static_assert(SS_SLOTS == 1u << 11, "the hash's shift matches the table");
    while (ss->key[j] != 0) {
        if (ss->key[j] == key) {
            ss->last = key;
            return 0;
        }
        j = (j + 1) & (SS_SLOTS - 1);
    }
    if (ss->n == SIM_MAX_TRACE_STREAMS)
        return -1;
    ss->key[j] = key;
    ss->n++;
    ss->last = key;
    return 0;
}

int streamset_refuse(const tr_event *ev, const char *file, am_error *err)
{
    return am_fail_at(err, file, ev->line, ev->col,
                      "more than %d distinct streams: stream %u would be the %dth (a trace "
                      "names at most %d stream numbers; traces/FORMAT.md, Limits)",
                      SIM_MAX_TRACE_STREAMS, ev->stream, SIM_MAX_TRACE_STREAMS + 1,
                      SIM_MAX_TRACE_STREAMS);
}
