/* stance/params.h - what gameplay says: an instance's parameters (float,
 * int, bool, trigger), set and read by index (stance_graph_find_param, or
 * the ids `stance gen-header` writes) or by name.
 *
 * Each type has a setter by index and one by name; the by-name form is the
 * by-index one after a name lookup (the same checks, the same result bit
 * for bit). Every setter checks, in this order, and on a refusal changes
 * nothing and writes the message to err (stance/base.h):
 *   instance NULL (or destroyed), name NULL   STANCE_ERR_ARGUMENT
 *   index out of range                        STANCE_ERR_NOT_FOUND
 *   unknown name                              STANCE_ERR_NOT_FOUND, naming the closest known one
 *   the parameter's type is not the setter's  STANCE_ERR_ARGUMENT, naming its type and the setter to use
 *   the value                                 STANCE_ERR_VALUE (below, per setter)
 * Types: set_float and set_int take float and int parameters (a float set
 * on an int parameter is rounded down); set_bool takes bool parameters,
 * set_trigger trigger parameters. */
#ifndef STANCE_PARAMS_H
#define STANCE_PARAMS_H

#include "graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest magnitude an int parameter holds (2^24: every integer up to it
 * is exact in the float the graph compares). */
#define STANCE_PARAM_INT_MAX 16777216

/* value finite; on an int parameter, floor(value) within
 * +-STANCE_PARAM_INT_MAX. A float parameter with damping moves towards it
 * (stance_param_desc.damping); the others take it at once. */
STANCE_API stance_status stance_instance_set_float(stance_instance *inst, int param, float value, stance_error *err);
/* value within +-STANCE_PARAM_INT_MAX. */
STANCE_API stance_status stance_instance_set_int(stance_instance *inst, int param, int value, stance_error *err);
/* value 0 or 1. */
STANCE_API stance_status stance_instance_set_bool(stance_instance *inst, int param, int value, stance_error *err);
/* Sets the trigger; a transition that reads it consumes it. */
STANCE_API stance_status stance_instance_set_trigger(stance_instance *inst, int param, stance_error *err);
/* The value the graph currently sees (after damping; bool and trigger 0 or
 * 1). A query: 0 for a NULL instance or an index out of range. */
STANCE_API float stance_instance_param(const stance_instance *inst, int param);
/* The value set last (stance_instance_set_*): what a damped float parameter
 * moves towards; for the other kinds, and a float without damping, the same
 * as stance_instance_param once an update has run. Replaying an instance's
 * inputs (a rollback, the lab's ghost) sets this. A query: 0 for a NULL
 * instance or an index out of range. */
STANCE_API float stance_instance_param_target(const stance_instance *inst, int param);

STANCE_API stance_status stance_instance_set_float_by_name(stance_instance *inst, const char *name, float value,
                                                stance_error *err);
STANCE_API stance_status stance_instance_set_int_by_name(stance_instance *inst, const char *name, int value, stance_error *err);
STANCE_API stance_status stance_instance_set_bool_by_name(stance_instance *inst, const char *name, int value, stance_error *err);
STANCE_API stance_status stance_instance_set_trigger_by_name(stance_instance *inst, const char *name, stance_error *err);
/* stance_instance_param by name into *value (any type): an unknown name is
 * STANCE_ERR_NOT_FOUND naming the closest known one, a NULL instance, name
 * or value STANCE_ERR_ARGUMENT; *value is written only on success. */
STANCE_API stance_status stance_instance_param_by_name(const stance_instance *inst, const char *name, float *value,
                                            stance_error *err);

#ifdef __cplusplus
}
#endif
#endif
