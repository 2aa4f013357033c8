/* plan.h - offline placement: with every buffer's lifetime known, give each an address offset
 * so that buffers live at the same time never share bytes, and the height (highest byte used)
 * is small (allocators.md section 5).
 *
 * Pure functions from a buffer list to offsets: no I/O, no traces, no policies. Lifetimes are
 * half-open [start, end) in any integer clock (event indices, CSV ticks); two buffers conflict
 * when their lifetimes intersect. A buffer of size 0 or with an empty lifetime (start >= end)
 * conflicts with nothing and is placed at offset 0. */
#ifndef AM_PLAN_H
#define AM_PLAN_H

#include <stddef.h>
#include <stdint.h>

typedef struct plan_buf {
    uint64_t start, end; /* half-open lifetime [start, end), event index or time */
    uint64_t size;       /* bytes */
    uint64_t offset;     /* bytes from the base of the arena (written by the planners) */
    uint64_t span;       /* with timed: the lifetime's length in trace time (ps), when start
                            and end are event indices (the prepass's clock) */
    int timed;           /* 1: span holds the lifetime in trace time (0 ps included) */
} plan_buf;

/* The lifetime planners order buffers by ("longer lifetime first"): the length the trace
 * itself gives when every live buffer has one (timed), else end - start for all of them (a
 * trace without times has only its event order). Event indices count the other buffers'
 * allocations and frees in between, which is not how long a buffer lives: until 2026-11-27
 * the greedy planner broke size ties by them (the exact search by the times already). */
int plan_timed(const plan_buf *b, size_t n);
static inline uint64_t plan_lifetime(const plan_buf *b, int timed)
{
    return timed ? b->span : b->end - b->start;
}

/* Peak live bytes: the maximum over time of the summed sizes of the buffers live at that time.
 * No placement can be lower, so it is the lower bound every policy is measured against. */
uint64_t plan_peak_live(const plan_buf *b, size_t n);

/* Height of the current offsets: max(offset + size) over buffers that are ever live. */
uint64_t plan_height(const plan_buf *b, size_t n);

/* XLA heap simulator's global decreasing-size best fit: buffers by size descending (ties: longer
 * lifetime first, plan_lifetime, then input order); each goes into the smallest gap, among the
 * buffers already placed that overlap it in time, that fits it (lowest offset among equal gaps),
 * else on top of them. Writes every offset and returns the height. O(n (log n + k log k)) time
 * for buffers overlapping k placed ones in time, O(log n) for a buffer that overlaps every
 * placed one or none outside the placed ones overlapping every unplaced one (plan.c gfast;
 * until 2026-11-27 O(k log k) for those too); O(n) memory. */
uint64_t plan_greedy(plan_buf *b, size_t n);

/* What exact searches may spend (0 for either: no limit): work, counted in buffer visits (each
 * node of the search tree costs one plus the unplaced buffers it scans, building the search's
 * tables one per buffer, section membership and overlapping pair), which stops a search at the
 * same point on every machine; host seconds, which do not. */
typedef struct plan_budget {
    uint64_t work;
    double seconds;
} plan_budget;

/* Exact search for a placement of height <= capacity (MiniMalloc's branch and bound, see
 * plan.c). Returns 1 when found (offsets written, *height set, the placement verified),
 * 0 when proven impossible, -1 when the budget ran out, -2 when the instance is too large for
 * the search's overlap tables. Offsets are untouched unless it returns 1. *spent (when not
 * NULL) is set to the work done, building the tables included. A budget the tables alone would
 * use up is -1 with nothing spent: they are measured first and not built (until 2026-11-27
 * they were built and charged, past the budget). */
int plan_optimal(plan_buf *b, size_t n, uint64_t capacity, plan_budget lim, uint64_t *height,
                 uint64_t *spent);

/* 0 when no two buffers live at the same time share an address and every buffer fits below
 * capacity (UINT64_MAX: no limit); otherwise -1 and the first problem in why (may be NULL).
 * O(n log n) (until 2026-11-27 O(n k) for k buffers live at once). */
int plan_verify(const plan_buf *b, size_t n, uint64_t capacity, char *why, size_t len);

/* The lowest placement found within a budget: the greedy plan first, then exact searches
 * for lower heights: the peak-live bound itself, then (when the best so far exceeds it) the
 * capacity, then bisection between the highest height proven impossible (or given up on) and
 * the best found. Offsets are always written (never worse than greedy). */
typedef struct plan_result {
    uint64_t height;        /* bytes, of the placement written */
    uint64_t peak_live;     /* bytes, the lower bound */
    uint64_t greedy_height; /* bytes */
    int proven_optimal;     /* 1 when no lower height is possible */
    int searches;           /* exact searches run */
    int timed_out;          /* 1 when a search ran out of budget (the result may not be optimal) */
    int stopped_by;         /* with timed_out, what ran out: PLAN_BY_* bits (both when searches
                               stopped at each, none when the set was too large to search) */
    uint64_t work;          /* work done by all searches (plan_budget) */
} plan_result;

/* plan_result.stopped_by: lim.work ran out, lim.seconds did. A caller that names the limit to
 * raise needs to know which one it was. */
enum { PLAN_BY_WORK = 1, PLAN_BY_TIME = 2 };

/* Each search gets a share of what is left of lim: a quarter for the bound, half for the
 * capacity, then an equal part for each bisection step still expected. The search's tables are
 * built once for all of them; each search is charged for them as if it had built its own. When
 * what is left does not pay for them, the searches end (counted in searches, timed_out set)
 * without building them, so work stays within lim.work but for the node a search stops after
 * (at most n + 1); until 2026-11-27 that last search was charged for them past the budget. */
void plan_best(plan_buf *b, size_t n, uint64_t capacity, plan_budget lim, plan_result *r);

/* Bytes the last exact search's levels held at most beyond its tables: the candidate stack
 * (8 candidates of 16 bytes per level) and the member lists of nested partitions (4 bytes a
 * buffer) on the current path. Its tables and scratch are O(n + overlaps); until 2026-11-27 each
 * level also held all its candidates, so this grew with search_budget (hundreds of MB). */
size_t plan_last_search_held(void);

/* Members the last exact search's placements looked at to re-check section floors (their work
 * beyond search_budget's count; tests pin it): until 2026-11-28 a section whose floor rose had all
 * its members looked at, now only those that do not share a section with the placed buffer. */
uint64_t plan_last_search_looked(void);

#endif
