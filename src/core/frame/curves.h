/* src/core/frame/curves.h - curves at run time (curves.c): a curve's value
 * blended over what the instance plays, and the drives that set parameters,
 * layer weights and IK weights from curves and parameters. Not public. */
#ifndef STANCE_CURVES_H
#define STANCE_CURVES_H

#include "core/frame/instance_internal.h"

/* stance_instance.requests' bit for a graph with drives (set at reset; the
 * advance stage runs cv_drive under the play requests' test, so a graph
 * without drives pays nothing). */
#define CV_DRIVES 2

/* Curve c's value now (stance_instance_curve). */
float cv_value(const stance_instance *inst, int c);
/* The graph's drives, in order (graph->curves->drives). */
void cv_drive(stance_instance *inst);

#endif
