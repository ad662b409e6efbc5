/* SPDX-License-Identifier: MIT */
/* qemu_insns.c - a QEMU TCG plugin that counts the guest instructions a program executes
 * and prints "insns N" at its exit: an exact count for a target emulated by qemu-user
 * (Debian's qemu has plugin support but ships no counting plugin, nor qemu-plugin.h).
 *
 *   gcc -shared -fPIC -O2 tools/qemu_insns.c -o build/qemu_insns.so
 *   qemu-aarch64 -plugin build/qemu_insns.so -d plugin PROGRAM ARGS...   (the count on stderr)
 *
 * bench/qemu-insns.sh builds it and prints instructions per step of scenes.
 *
 * Each translated block adds its length to one counter each time it runs (an inline add,
 * no call). The declarations are those of QEMU's plugin interface, version 1 (as Debian 12's QEMU
 * 7.2 takes it). */
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
typedef struct qemu_info_t qemu_info_t;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
                                           void (*cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb));
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op, void *ptr,
                                              uint64_t imm);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, void (*cb)(qemu_plugin_id_t id, void *data), void *data);
void qemu_plugin_outs(const char *string);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static uint64_t insns;   /* one vCPU: qemu-user runs the programs here single-threaded */

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &insns, qemu_plugin_tb_n_insns(tb));
}

static void on_exit(qemu_plugin_id_t id, void *data)
{
    (void)id;
    (void)data;
    char line[64];
    snprintf(line, sizeof line, "insns %" PRIu64 "\n", insns);
    qemu_plugin_outs(line);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                                                               char **argv)
{
    (void)info;
    (void)argc;
    (void)argv;
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, on_exit, NULL);
    return 0;
}
