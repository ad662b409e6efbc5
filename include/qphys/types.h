/* SPDX-License-Identifier: MIT */
/* Results and small types shared by every qphys header. */
#ifndef QPHYS_TYPES_H
#define QPHYS_TYPES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a call that can fail returns. Every failing call leaves the world as it was. */
typedef enum {
    QP_OK = 0,
    QP_ERR_PARAM,       /* a parameter is malformed (zero size, zero axis, null pointer) */
    QP_ERR_RANGE,       /* a number is outside the documented range */
    QP_ERR_FULL,        /* a fixed pool is full */
    QP_ERR_INVALID_ID,  /* a stale or null id */
    QP_ERR_BUFFER,      /* a caller's buffer is too small */
    QP_ERR_PARSE,       /* malformed text (scene files) */
    QP_ERR_CONFIG,      /* the caller was compiled with another layout than the library (config.h) */
    QP_RESULT_COUNT
} qp_result;

/* A short, static English description of a result. */
const char *qp_result_str(qp_result r);

#if defined(__GNUC__)
#define QP_MUST_USE __attribute__((warn_unused_result))
#else
#define QP_MUST_USE
#endif

#ifdef __cplusplus
}
#endif

#endif
