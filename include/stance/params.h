/* stance/params.h - what gameplay says: an instance's parameters (float,
 * int, bool, trigger), by index (stance_graph_find_param) or by name. */
#ifndef STANCE_PARAMS_H
#define STANCE_PARAMS_H

#include "graph.h"

#ifdef __cplusplus
extern "C" {
#endif

stance_status stance_instance_set_float(stance_instance *inst, int param, float value, stance_error *err);
stance_status stance_instance_set_int(stance_instance *inst, int param, int value, stance_error *err);
stance_status stance_instance_set_bool(stance_instance *inst, int param, int value, stance_error *err);
stance_status stance_instance_set_trigger(stance_instance *inst, int param, stance_error *err);
/* By name: an unknown name is an error naming the closest known one. */
stance_status stance_instance_set_float_by_name(stance_instance *inst, const char *name, float value, stance_error *err);
stance_status stance_instance_set_trigger_by_name(stance_instance *inst, const char *name, stance_error *err);
/* The value the graph currently sees (after damping). */
float stance_instance_param(const stance_instance *inst, int param);

#ifdef __cplusplus
}
#endif
#endif
