/* SPDX-License-Identifier: MIT */
/* Events (events.c): raised where they happen, read after the step. */
#ifndef QPHYS_EVENTS_H
#define QPHYS_EVENTS_H

#include "qphys/world.h"

void qp__event_contact(qp_world *w, int kind, int a, int b, int sa, int sb, qp_vec3 point, qp_vec3 normal,
                       fix16_t impulse);
void qp__event_contact_end(qp_world *w, const qp_contact *c);   /* from a contact as it is */
void qp__event_sensor(qp_world *w, int kind, const qp_pair *p);
void qp__event_body(qp_world *w, int kind, int body);
void qp__event_joint(qp_world *w, int index, fix16_t load);  /* joint slot index broke */

#endif
