/* SPDX-License-Identifier: MIT */
/* board_peer.c - the lockstep demo's board peer (make BOARD=qemu-mps2-an386 APP=lockstep).
 *
 * Peer 1 of the game, in plain lockstep: it sends its input of a frame, waits for the other
 * peer's input of that frame, simulates it, and compares the hashes of the frames both have
 * confirmed. The link is the board's UART0 (a CMSDK APB UART on the MPS2 boards; under QEMU
 * `-serial` makes it a TCP socket to the host peer, `build/host/lockstep --board ELF`), as a
 * byte stream of proto.h packets; the console (semihosting) says what happened. The number
 * of frames comes in every packet of the host. Exit status: 0 every frame compared equal,
 * 1 a desync, 2 a protocol or internal failure, 3 nothing heard from the host for 15 s.
 */
#include <stdint.h>
#include "game.h"
#include "peer.h"
#include "proto.h"
#include "qp_fmt.h"
#include "qp_port.h"

/* CMSDK APB UART0 of the MPS2 FPGA images (AN385, AN386, AN500). */
#define UART0_BASE 0x40004000u
#define UART_REG(off) (*(volatile uint32_t *)(UART0_BASE + (off)))
#define UART_DATA UART_REG(0x00u)
#define UART_STATE UART_REG(0x04u)     /* bit 0 TX buffer full, bit 1 RX buffer full */
#define UART_CTRL UART_REG(0x08u)      /* bit 0 TX enable, bit 1 RX enable */
#define UART_BAUDDIV UART_REG(0x10u)
#define STATE_TX_FULL 1u
#define STATE_RX_FULL 2u

static void uart_init(void)
{
    UART_BAUDDIV = 25000000u / 115200u; /* 115200 baud from the 25 MHz APB clock */
    UART_CTRL = 3u;
}

static void uart_write(const uint8_t *b, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        while ((UART_STATE & STATE_TX_FULL) != 0u) {
        }
        UART_DATA = b[i];
    }
}

static qp_world world;
static ls_peer peer;
static ls_framer framer;

static void put_u(uint32_t v)
{
    char buf[QP_FMT_BUF];
    qp_port_write(buf, qp_fmt_u32(buf, v));
}

static void put_hex(uint32_t v)
{
    char buf[QP_FMT_BUF];
    qp_port_write(buf, qp_fmt_hex32(buf, v));
}

static QP_PORT_NORETURN void fail(int code, const char *what, const char *why)
{
    qp_port_puts("board: ");
    qp_port_puts(what);
    if (why) {
        qp_port_puts(": ");
        qp_port_puts(why);
    }
    qp_port_puts("\n");
    qp_port_exit(code);
}

int main(void)
{
    qp_port_init();
    uart_init();
    if (ls_peer_init(&peer, &world, 1, 0, false, 0, 0) != QP_OK)
        fail(2, "the demo world does not fit this board's pools", 0);
    peer.clock = qp_port_ticks64;
    ls_framer_init(&framer);
    const uint64_t quiet_limit = 15ull * qp_port_tick_hz();
    uint64_t last_rx = qp_port_ticks64(), finished_at = 0;
    uint32_t packets_out = 0, bytes_out = 0;
    ls_packet pk;
    uint8_t b[LS_PACKET_MAX];
    for (;;) {
        if (ls_peer_wants_input(&peer)) ls_peer_local_input(&peer, ls_bot_input(1, peer.local_count));
        while (ls_peer_packet(&peer, &pk, true)) {
            const unsigned n = ls_packet_encode(&pk, b, sizeof b);
            if (n == 0u) fail(2, "could not encode a packet", 0);
            uart_write(b, n);
            packets_out++;
            bytes_out += n;
        }
        /* Finished (every frame compared, or a desync): stay until the host says it is done
         * too, so that it has read what we sent last. QEMU exits with the host's latest bytes
         * unread, which resets the connection, and the host's socket drops what it had not
         * read yet: our last packet, with the hash the host needs to see a desync itself. */
        if (ls_peer_finished(&peer)) {
            if (finished_at == 0u) finished_at = qp_port_ticks64() | 1u;
            if ((peer.peer_flags & (LS_FLAG_DONE | LS_FLAG_DESYNC)) != 0u ||
                qp_port_ticks64() - finished_at > 2u * qp_port_tick_hz())
                break;
        }
        while ((UART_STATE & STATE_RX_FULL) != 0u) {
            last_rx = qp_port_ticks64();
            ls_framer_put(&framer, (uint8_t)UART_DATA);
            while (ls_framer_get(&framer, &pk)) {
                /* The serial line loses nothing, so a refused packet is a broken protocol. */
                const char *why = ls_peer_receive(&peer, &pk);
                if (why) fail(2, "refused a packet", why);
            }
        }
        if (!ls_peer_update(&peer)) fail(2, "failed", peer.error);
        if (ls_peer_advance(&peer) && !ls_peer_update(&peer)) fail(2, "failed", peer.error);
        if (qp_port_ticks64() - last_rx > quiet_limit) fail(3, "nothing from the host for 15 s", 0);
    }

    qp_port_puts("board: peer 1 (lockstep over UART0): ");
    put_u(peer.frame);
    qp_port_puts(" frames, ");
    put_u(peer.compared);
    qp_port_puts(" compared; ");
    put_u(peer.stats.packets_in);
    qp_port_puts(" packets in, ");
    put_u(framer.skipped);
    qp_port_puts(" bytes skipped; ");
    put_u(packets_out);
    qp_port_puts(" packets out (");
    put_u(bytes_out);
    qp_port_puts(" bytes)\n");
    if (peer.desync_frame >= 0) {
        qp_port_puts("board: DESYNC at frame ");
        put_u((uint32_t)peer.desync_frame);
        qp_port_puts(": my hash ");
        put_hex(peer.desync_mine);
        qp_port_puts(", the other's ");
        put_hex(peer.desync_theirs);
        qp_port_puts("\n");
        qp_port_exit(1);
    }
    if (peer.remote_desync_frame >= 0) {
        qp_port_puts("board: stopped: the host reports a desync at frame ");
        put_u((uint32_t)peer.remote_desync_frame);
        qp_port_puts("\n");
        qp_port_exit(1);
    }
    qp_port_puts("board: final hash ");
    put_hex(peer.hash[(peer.compared - 1u) & (LS_RING - 1u)]);
    qp_port_puts(" at frame ");
    put_u(peer.compared - 1u);
    qp_port_puts(", every frame equal\n");
    qp_port_exit(0);
}
