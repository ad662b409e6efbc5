/* Snapshot and restore (docs/design.md §8): the whole qp_world copied into a
 * caller's buffer and back, for rollback. qp_world_init zeroes every byte of
 * the world and every later write is field by field, so the copy holds no
 * uninitialised padding and two snapshots of equal states are equal bytes.
 *
 * Layout (native byte order; a snapshot is for the build that wrote it):
 *   word 0  QP_SNAPSHOT_MAGIC ("QPSN")
 *   word 1  QP_SNAPSHOT_FORMAT (layout version of this file)
 *   word 2  sizeof(qp_world)
 *   word 3  fingerprint of the pool sizes (QP_CFG_MAX_*) and QP_CFG_LOW_RAM
 *   then    the qp_world, byte for byte (QP_SNAPSHOT_HEADER bytes in)
 * Restore rejects (QP_ERR_BUFFER) a buffer of the wrong size, a header that
 * does not match this build, or counts that are out of their pools' range,
 * and then leaves the world untouched.
 */
#include <stddef.h>
#include <string.h>
#include "world_internal.h"

#define QP_SNAPSHOT_MAGIC  UINT32_C(0x4E535051)   /* "QPSN" little-endian */
#define QP_SNAPSHOT_FORMAT UINT32_C(2)
#define QP_SNAPSHOT_HEADER 16u

static uint32_t fingerprint(void)
{
    uint32_t h = UINT32_C(2166136261);
    const uint32_t v[7] = { QP_CFG_MAX_BODIES, QP_CFG_MAX_SHAPES, QP_CFG_MAX_BODY_SHAPES,
                            QP_CFG_MAX_PAIRS, QP_CFG_MAX_CONTACTS, QP_MAX_MANIFOLD_POINTS, QP_CFG_LOW_RAM };
    for (int i = 0; i < 7; i++) {
        h ^= v[i];
        h *= UINT32_C(16777619);
    }
    return h;
}

_Static_assert(QP_SNAPSHOT_SIZE == sizeof(qp_world) + QP_SNAPSHOT_HEADER,
               "QP_SNAPSHOT_SIZE in world.h must be sizeof(qp_world) + the 16-byte header of snapshot.c");

unsigned long qp_world_snapshot(const qp_world *w, void *buf, unsigned long size)
{
    if (!w || !buf || size < QP_SNAPSHOT_SIZE) return QP_SNAPSHOT_SIZE;
    const uint32_t head[4] = { QP_SNAPSHOT_MAGIC, QP_SNAPSHOT_FORMAT, (uint32_t)sizeof(qp_world), fingerprint() };
    unsigned char *out = (unsigned char *)buf;
    memcpy(out, head, sizeof head);
    memcpy(out + QP_SNAPSHOT_HEADER, w, sizeof *w);
    return QP_SNAPSHOT_SIZE;
}

/* An int field of the world inside the buffer (which may be unaligned). */
static int read_int(const unsigned char *world_bytes, size_t offset)
{
    int v;
    memcpy(&v, world_bytes + offset, sizeof v);
    return v;
}

qp_result qp_world_restore_checked(qp_world *w, const void *buf, unsigned long size, uint32_t config_signature,
                                  unsigned long world_size)
{
    if (!qp__config_ok(config_signature, world_size)) return QP_ERR_CONFIG;
    if (!w || !buf) return QP_ERR_PARAM;
    if (size != QP_SNAPSHOT_SIZE) return QP_ERR_BUFFER;
    const unsigned char *in = (const unsigned char *)buf;
    uint32_t head[4];
    memcpy(head, in, sizeof head);
    if (head[0] != QP_SNAPSHOT_MAGIC || head[1] != QP_SNAPSHOT_FORMAT || head[2] != (uint32_t)sizeof(qp_world) ||
        head[3] != fingerprint())
        return QP_ERR_BUFFER;
    const unsigned char *wb = in + QP_SNAPSHOT_HEADER;
    int body_high = read_int(wb, offsetof(qp_world, body_high));
    int sap = read_int(wb, offsetof(qp_world, sap_count));
    int pairs = read_int(wb, offsetof(qp_world, pair_count));
    int contacts = read_int(wb, offsetof(qp_world, contact_count));
    if (body_high < 0 || body_high > QP_CFG_MAX_BODIES || sap < 0 || sap > QP_CFG_MAX_SHAPES || pairs < 0 ||
        pairs > QP_CFG_MAX_PAIRS || contacts < 0 || contacts > QP_CFG_MAX_CONTACTS)
        return QP_ERR_BUFFER;
    memcpy(w, wb, sizeof *w);
    return QP_OK;
}
