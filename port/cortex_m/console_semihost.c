/* SPDX-License-Identifier: MIT */
/* console_semihost.c - board console through semihosting (SYS_OPEN ":tt" + SYS_WRITE). */
#include "board_console.h"
#include "semihost.h"

static int32_t console_handle = -1;

void board_console_init(void)
{
    /* ":tt" opened with mode 4 ("w") is the debugger's (QEMU's) console output. */
    static const char tt[] = ":tt";
    const uint32_t args[3] = {(uint32_t)tt, 4u, sizeof tt - 1u};
    console_handle = qp_semihost_call(QP_SH_SYS_OPEN, args);
}

void board_console_write(const char *s, unsigned len)
{
    if (len == 0u) {
        return;
    }
    if (console_handle < 0) {
        /* No handle: fall back to SYS_WRITE0, a NUL-terminated chunk at a time. */
        char chunk[64];
        while (len > 0u) {
            unsigned n = len < sizeof chunk - 1u ? len : (unsigned)sizeof chunk - 1u;
            unsigned i;
            for (i = 0; i < n; i++) {
                chunk[i] = s[i];
            }
            chunk[n] = '\0';
            (void)qp_semihost_call(QP_SH_SYS_WRITE0, chunk);
            s += n;
            len -= n;
        }
        return;
    }
    const uint32_t args[3] = {(uint32_t)console_handle, (uint32_t)s, len};
    (void)qp_semihost_call(QP_SH_SYS_WRITE, args);
}
