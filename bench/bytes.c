/* SPDX-License-Identifier: MIT */
/* The bytes of bench/bytes.h as constants, for bench/run.sh to read from the assembly a
 * board's compiler makes of this file with the board's flags and pools (never linked). */
#include "bytes.h"

const unsigned long qpb_bytes_body = QPB_BYTES_BODY;
const unsigned long qpb_bytes_contact = QPB_BYTES_CONTACT;
const unsigned long qpb_bytes_shape = QPB_BYTES_SHAPE;
const unsigned long qpb_bytes_pair = QPB_BYTES_PAIR;
const unsigned long qpb_bytes_world = sizeof(qp_world);
const unsigned long qpb_state_body = QPB_STATE_BODY;
const unsigned long qpb_state_contact = QPB_STATE_CONTACT;
const unsigned long qpb_state_shape = QPB_STATE_SHAPE;
