/* SPDX-License-Identifier: MIT */
/* The contact graph (contact_graph.c): which contacts each body has, and its
 * bodies' levels, counted up from the static ones. */
#ifndef QPHYS_CONTACT_GRAPH_H
#define QPHYS_CONTACT_GRAPH_H

#include "qphys/world.h"

/* The contact graph's adjacency from the contacts. */
void qp__build_adjacency(qp_world *w);

/* The higher level of c's bodies; its lower body, -1 if both are on one level (inline: the
 * shock pass asks them at every visit). */
static inline int qp__contact_level(const qp_world *w, const qp_contact *c)
{
    int la = w->bodies[c->a].level, lb = w->bodies[c->b].level;
    return la > lb ? la : lb;
}
static inline int qp__contact_lower(const qp_world *w, const qp_contact *c)
{
    int la = w->bodies[c->a].level, lb = w->bodies[c->b].level;
    return la < lb ? c->a : lb < la ? c->b : -1;
}

#endif
