/* evtab.h - the distinct event ids a trace records (`record EVENT`), each with a 64-bit value.
 *
 * A recorded event can be waited on at any later line, so every id recorded must be remembered
 * to the end. The engine keeps with each id what a wait needs (the stream and position of the
 * id's last record, packed in one word); check and convert only whether it was recorded. One
 * open-addressing table of two arrays (ids, values) with linear probing, doubling when three
 * quarters full: 16 bytes a slot with values, 8 without, so 21 to 43 bytes per distinct id for
 * the engine and 11 to 21 for check and convert (plus, for the moment of a doubling, the old
 * table). No allocation per id. Until 2026-11-27 the engine took 24-byte slots at most half
 * full and check and convert 16-byte ones (about 75 and 50 bytes per id at 1M ids).
 *
 * Zero-initialised is empty. Slots hold id + 1 (0 marks an empty slot); id 2^64 - 1, whose
 * + 1 wraps to 0, is kept aside. */
#ifndef AM_EVTAB_H
#define AM_EVTAB_H

#include <stddef.h>
#include <stdint.h>

typedef struct evtab {
    uint64_t *key;  /* id + 1, 0 empty */
    uint64_t *val;  /* per slot; NULL for a set (evtab_init with values 0) */
    size_t cap, n;  /* slots (a power of two, or 0), ids held */
    int values;     /* the table keeps values */
    int has_top;    /* id UINT64_MAX recorded */
    uint64_t top_val;
} evtab;

/* An empty table; values 0 keeps only the ids (evtab_put's v is ignored, evtab_get's *v 0). */
void evtab_init(evtab *t, int values);
/* Set id's value (inserting the id when new). */
void evtab_put(evtab *t, uint64_t id, uint64_t v);
/* 1 and *v (v may be NULL) when id is in the table, else 0. */
int evtab_get(const evtab *t, uint64_t id, uint64_t *v);
void evtab_free(evtab *t);

#endif
