/*
 * estimate_sanity.h: what every estimate must satisfy, whatever its config:
 * finite, non-negative, consistent figures, or an error that names its field.
 * Shared by the randomised property test and the fuzz target, so both hold the
 * core to the same promise.
 */
#ifndef TP_ESTIMATE_SANITY_H
#define TP_ESTIMATE_SANITY_H

#include "trainplan.h"

/* Every memory item of every stage finite and non-negative, each total the
 * sum of its items, and the peak the largest stage's total. */
int estimate_memory_sane(const tp_estimate_result *r);

/* The step-time breakdown's items summed: what step_s must equal. */
double estimate_time_items_s(const tp_time *t);

/* Every item of the step-time breakdown and every throughput figure finite
 * and non-negative, the step longer than zero and the items summing to it. */
int estimate_time_sane(const tp_estimate_result *r);

#endif
