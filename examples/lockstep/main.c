/* SPDX-License-Identifier: MIT */
/* main.c - build/host/lockstep: two qphys worlds kept in lockstep over a lossy network.
 *
 *   lockstep --frames N [--loss PCT] [--delay FRAMES] [--reorder] [--corrupt PCT]
 *            [--desync-at F] [--seed S] [--frame-us US] [--timeout S]
 *       two peers, two processes, UDP on 127.0.0.1 (free ports); loss, delay, reordering and
 *       corruption are injected by each sender, from a seeded generator
 *   lockstep --board ELF --frames N [--desync-at F] [--qemu CMD] [--machine M]
 *       peer 0 here, peer 1 the board app (examples/lockstep/board_peer.c) under QEMU, over
 *       the board's UART as a TCP socket
 *   lockstep --reference --frames N
 *       both players' inputs in one world, no network: the hash the peers must end with
 *
 * Prints what each peer did, then the figures (bytes per frame, snapshot size, rollback
 * cost), and ends with one line "N frames, R rollbacks, D desyncs". Exit status: 0 when
 * every frame was confirmed and compared equal on both peers, 1 otherwise (a desync, a
 * timeout, a peer's failure), 2 for bad usage.
 */
#define _DEFAULT_SOURCE
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "game.h"
#include "peer.h"
#include "proto.h"

#define QUEUE 128                 /* packets a sender holds back for delay and reordering */

typedef struct {
    long frames;
    int loss, delay, reorder, corrupt;
    long desync_at;
    unsigned seed;
    long frame_us;
    long timeout_s;
    const char *board_elf, *qemu, *machine;
    int reference;
    uint64_t t0;                  /* when both peers start ticking (CLOCK_MONOTONIC ns) */
} options;

/* What a peer reports to the parent (through a pipe) when it ends. */
typedef struct {
    int me, status;             /* status: 0 done, 1 desync, 2 failure */
    ls_peer_stats st;
    uint32_t frame, confirmed, compared, final_hash;
    int32_t desync_frame, remote_desync_frame;
    uint32_t desync_mine, desync_theirs;
    int desync_commitment;
    uint64_t bytes_out, elapsed_ns;
    uint32_t packets_out, dropped, reordered, corrupted, undecodable, refused, ticks;
    char error[120];
} peer_result;

/* One end of a link: a UDP socket (with the injected damage) or a TCP stream. */
typedef struct {
    int fd;
    int stream;
    ls_framer framer;
    uint32_t rng;
    const options *o;
    struct {
        uint32_t due;
        unsigned len;
        uint8_t b[LS_PACKET_MAX];
    } q[QUEUE];
    int qn;
    int closed;
} link_end;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The costs (snapshot, rollback) in CPU time of this thread: on a shared machine wall time
 * would count other programs' turns too. */
static uint64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t t)
{
    struct timespec ts = { (time_t)(t / 1000000000u), (long)(t % 1000000000u) };
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

static uint32_t rnd(link_end *l)
{
    uint32_t x = l->rng; /* xorshift32 */
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return l->rng = x;
}

static int write_all(int fd, const uint8_t *b, unsigned n)
{
    while (n > 0) {
        ssize_t k = write(fd, b, n);
        if (k < 0 && (errno == EINTR || errno == EAGAIN)) {
            struct pollfd pf = { fd, POLLOUT, 0 };
            (void)poll(&pf, 1, 100);
            continue;
        }
        if (k <= 0) return -1;
        b += k;
        n -= (unsigned)k;
    }
    return 0;
}

/* Send one encoded packet: on a stream as it is; as a datagram through the damage the
 * options ask for (loss, corruption, delay, reordering), decided by this sender's generator. */
static void link_send(link_end *l, peer_result *res, const uint8_t *b, unsigned n, uint32_t tick)
{
    res->packets_out++;
    res->bytes_out += n;
    if (l->stream) {
        if (write_all(l->fd, b, n) != 0) l->closed = 1;
        return;
    }
    if ((int)(rnd(l) % 100u) < l->o->loss) {
        res->dropped++;
        return;
    }
    uint32_t due = tick + (uint32_t)l->o->delay;
    if (l->o->reorder && rnd(l) % 100u < 25u) {
        due += 1u + rnd(l) % 3u; /* held 1..3 frames longer: later packets overtake it */
        res->reordered++;
    }
    if (l->qn == QUEUE) {
        res->dropped++;
        return;
    }
    l->q[l->qn].due = due;
    l->q[l->qn].len = n;
    memcpy(l->q[l->qn].b, b, n);
    if ((int)(rnd(l) % 100u) < l->o->corrupt) {
        const uint32_t bit = rnd(l) % (n * 8u);
        l->q[l->qn].b[bit / 8u] ^= (uint8_t)(1u << (bit % 8u));
        res->corrupted++;
    }
    l->qn++;
}

/* Datagrams whose time has come go out, oldest first. */
static void link_flush(link_end *l, uint32_t tick)
{
    int k = 0;
    for (int i = 0; i < l->qn; i++) {
        if (l->q[i].due <= tick) {
            (void)send(l->fd, l->q[i].b, l->q[i].len, 0); /* loopback; a failure is a loss */
        } else {
            if (k != i) l->q[k] = l->q[i];
            k++;
        }
    }
    l->qn = k;
}

static void note_refusal(peer_result *res, const char *why)
{
    res->refused++;
    if (res->refused <= 3) fprintf(stderr, "peer %d: refused a packet: %s\n", res->me, why);
}

/* Everything the link has for us now. Returns the number of sound packets. */
static int link_receive(link_end *l, ls_peer *p, peer_result *res)
{
    int got = 0;
    uint8_t buf[2048];
    ls_packet pk;
    for (int round = 0; round < 256; round++) {
        ssize_t n = recv(l->fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNREFUSED) l->closed = 1;
            break;
        }
        if (n == 0 && l->stream) {
            l->closed = 1;
            break;
        }
        if (l->stream) {
            for (ssize_t i = 0; i < n; i++) {
                ls_framer_put(&l->framer, buf[i]);
                while (ls_framer_get(&l->framer, &pk)) {
                    const char *why = ls_peer_receive(p, &pk);
                    if (why) note_refusal(res, why);
                    else got++;
                }
            }
        } else {
            ls_packet_result r = ls_packet_decode(buf, (unsigned)n, &pk);
            if (r != LS_PACKET_OK) {
                res->undecodable++;
                continue;
            }
            const char *why = ls_peer_receive(p, &pk);
            if (why) note_refusal(res, why);
            else got++;
        }
    }
    if (l->stream) res->undecodable = l->framer.skipped;
    return got;
}

static qp_world world;
static ls_peer peer;
static uint8_t snaps[LS_SNAP_RING][LS_SNAP_SLOT];

/* One peer's whole run: a tick every frame_us, at most one new frame per tick. */
static void run_peer(int me, link_end *l, const options *o, int nudge, peer_result *res)
{
    memset(res, 0, sizeof *res);
    res->me = me;
    res->desync_frame = res->remote_desync_frame = -1;
    res->status = 2;
    if (ls_peer_init(&peer, &world, me, (uint32_t)o->frames, true, &snaps[0][0], LS_SNAP_SLOT) != QP_OK) {
        snprintf(res->error, sizeof res->error, "the demo world does not fit this build's pools");
        return;
    }
    if (nudge) peer.nudge_at = (int32_t)o->desync_at;
    peer.clock = cpu_ns;
    /* Both peers tick on one clock from one start, so neither drifts ahead of the other
     * (over a real network this is the job of a time-sync exchange). */
    const uint64_t t0 = o->t0 ? o->t0 : now_ns(), period = (uint64_t)o->frame_us * 1000u;
    const uint64_t limit = (uint64_t)o->timeout_s * 1000000000u;
    const uint32_t linger = 2u * ((uint32_t)o->delay + 4u) + 10u;
    uint32_t tick = 0, last_rx = 0, done_at = 0, peer_done_at = 0;
    int done = 0, peer_done = 0;
    uint8_t b[LS_PACKET_MAX];
    ls_packet pk;
    for (;; tick++) {
        sleep_until(t0 + tick * period);
        if (now_ns() - t0 > limit) {
            snprintf(res->error, sizeof res->error, "timed out after %ld s at frame %u (%u confirmed, %u compared)",
                     o->timeout_s, peer.frame, peer.confirmed, peer.compared);
            break;
        }
        if (link_receive(l, &peer, res) > 0) last_rx = tick;
        if (!ls_peer_update(&peer)) break;
        if (ls_peer_wants_input(&peer)) ls_peer_local_input(&peer, ls_bot_input(me, peer.local_count));
        if (ls_peer_advance(&peer) && !ls_peer_update(&peer)) break;
        if (l->stream) {
            while (ls_peer_packet(&peer, &pk, true)) {
                unsigned n = ls_packet_encode(&pk, b, sizeof b);
                if (n) link_send(l, res, b, n, tick);
            }
        } else {
            if (ls_peer_packet(&peer, &pk, false)) {
                unsigned n = ls_packet_encode(&pk, b, sizeof b);
                if (n) link_send(l, res, b, n, tick);
            }
            link_flush(l, tick);
        }
        if (!done && ls_peer_finished(&peer)) {
            done = 1;
            done_at = tick;
        }
        if (!peer_done && (peer.peer_flags & LS_FLAG_DONE)) {
            peer_done = 1;
            peer_done_at = tick;
        }
        /* A board ends by itself once it has compared everything; a UDP peer lingers until
         * the other has said it is done too (and a little longer, so it hears that we are). */
        if (done && l->stream) break;
        if (done && peer_done && tick >= (done_at > peer_done_at ? done_at : peer_done_at) + linger) break;
        if (done && tick - last_rx > 4u * linger + 200u) break; /* the other is gone */
        if (peer.stopped && !done && peer_done && tick >= peer_done_at + 8u * linger) break;
        if (l->closed && !done) {
            snprintf(res->error, sizeof res->error, "the link closed at frame %u", peer.frame);
            break;
        }
    }
    res->ticks = tick;
    res->elapsed_ns = now_ns() - t0;
    res->st = peer.stats;
    res->frame = peer.frame;
    res->confirmed = peer.confirmed;
    res->compared = peer.compared;
    res->final_hash = peer.compared > 0 ? peer.hash[(peer.compared - 1u) & (LS_RING - 1u)] : 0;
    res->desync_frame = peer.desync_frame;
    res->remote_desync_frame = peer.remote_desync_frame;
    res->desync_mine = peer.desync_mine;
    res->desync_theirs = peer.desync_theirs;
    res->desync_commitment = peer.desync_commitment;
    if (peer.error) snprintf(res->error, sizeof res->error, "%s", peer.error);
    if (res->error[0]) res->status = 2;
    else if (peer.desync_frame >= 0 || peer.stopped) res->status = 1;
    else if (peer.compared == (uint32_t)o->frames) res->status = 0;
    else snprintf(res->error, sizeof res->error, "ended at frame %u with %u compared", peer.frame, peer.compared);
}

/* ---- reporting ------------------------------------------------------------------------ */

static double us(uint64_t ns) { return (double)ns / 1000.0; }

static void print_peer(const peer_result *r, const char *how)
{
    const ls_peer_stats *s = &r->st;
    printf("peer %d (%s): %u frames, %u confirmed, %u compared; %u rollbacks (%u mispredicted inputs), "
           "%u frames re-simulated, longest %u; %u packets out (%u dropped, %u delayed out of order, %u corrupted), "
           "%u packets in, %u undecodable, %u refused\n",
           r->me, how, r->frame, r->confirmed, r->compared, s->rollbacks, s->mispredicted, s->resim_steps, s->longest,
           r->packets_out, r->dropped, r->reordered, r->corrupted, s->packets_in, r->undecodable, r->refused);
    if (r->desync_frame >= 0)
        printf("peer %d: DESYNC at frame %d: my hash %08x, the other's %08x%s\n", r->me, (int)r->desync_frame,
               (unsigned)r->desync_mine, (unsigned)r->desync_theirs,
               r->desync_commitment ? " (not the hash it committed to: it did not simulate that frame)" : "");
    if (r->remote_desync_frame >= 0)
        printf("peer %d: stopped: the other peer reports a desync at frame %d\n", r->me, (int)r->remote_desync_frame);
    if (r->error[0]) printf("peer %d: FAILED: %s\n", r->me, r->error);
}

/* The figures, over the peers given (a host peer's only in board mode), per frame simulated. */
static void print_figures(const peer_result *r, int n, int serial)
{
    uint64_t bytes = 0, rb_ns = 0, fr_ns = 0, sn_ns = 0, sn_bytes = 0, rs_ns = 0;
    uint32_t packets = 0, rollbacks = 0, steps = 0, longest = 0, snaps_n = 0, sn_max = 0, simulated = 0;
    for (int i = 0; i < n; i++) {
        bytes += r[i].bytes_out;
        packets += r[i].packets_out;
        rollbacks += r[i].st.rollbacks;
        steps += r[i].st.resim_steps;
        if (r[i].st.longest > longest) longest = r[i].st.longest;
        rb_ns += r[i].st.rollback_ticks; /* host ticks are nanoseconds */
        rs_ns += r[i].st.restore_ticks;
        fr_ns += r[i].st.frame_ticks;
        simulated += r[i].st.frames;
        sn_ns += r[i].st.snapshot_ticks;
        sn_bytes += r[i].st.snapshot_bytes;
        snaps_n += r[i].st.snapshots;
        if (r[i].st.snapshot_max > sn_max) sn_max = r[i].st.snapshot_max;
    }
    const double per = simulated > 0 ? (double)simulated : 1.0;
    if (serial)
        printf("wire: %.1f bytes per frame from the host (serial bytes), %.2f packets per frame\n", (double)bytes / per,
               (double)packets / per);
    else
        printf("wire: %.1f bytes per frame per peer (packet payload; %.1f with IPv4+UDP headers), %.2f packets per "
               "frame\n",
               (double)bytes / per, ((double)bytes + 28.0 * packets) / per, (double)packets / per);
    if (snaps_n)
        printf("snapshot: %.0f bytes on average, %u largest; %.1f us to save; a frame with its snapshot %.1f us\n",
               (double)sn_bytes / snaps_n, sn_max, us(sn_ns) / snaps_n, simulated ? us(fr_ns) / simulated : 0.0);
    if (rollbacks)
        printf("rollback: %u rollbacks, %u frames re-simulated (%.1f per rollback), longest %u frames; "
               "%.0f us per rollback (restore %.1f us), %.1f us per re-simulated frame\n",
               rollbacks, steps, (double)steps / rollbacks, longest, us(rb_ns) / rollbacks, us(rs_ns) / rollbacks,
               steps ? us(rb_ns - rs_ns) / steps : 0.0);
    else
        printf("rollback: none\n");
}

/* ---- modes ------------------------------------------------------------------------------ */

static int reference(const options *o)
{
    if (ls_game_init(&world) != QP_OK) {
        fprintf(stderr, "lockstep: the demo world does not fit this build's pools\n");
        return 1;
    }
    uint32_t h = 0;
    for (long f = 0; f < o->frames; f++) {
        ls_input in[LS_PLAYERS] = { ls_bot_input(0, (uint32_t)f), ls_bot_input(1, (uint32_t)f) };
        ls_game_frame(&world, (uint32_t)f, in);
        h = qp_world_hash(&world);
    }
    printf("reference: %ld frames, final hash %08x\n", o->frames, (unsigned)h);
    return 0;
}

static int udp_socket(struct sockaddr_in *a)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0) return -1;
    memset(a, 0, sizeof *a);
    a->sin_family = AF_INET;
    a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a->sin_port = 0; /* the kernel picks a free port */
    socklen_t len = sizeof *a;
    if (bind(fd, (struct sockaddr *)a, sizeof *a) != 0 || getsockname(fd, (struct sockaddr *)a, &len) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Collect both peers' reports. A peer that fails ends its run, and the other would wait for
 * it until its own timeout: give it 3 s more, then stop it (our own child, by its id). */
static void collect(const int fd[2], const pid_t pid[2], peer_result r[2], const options *o)
{
    size_t got[2] = { 0, 0 };
    uint64_t deadline[2];
    deadline[0] = deadline[1] = now_ns() + (uint64_t)(o->timeout_s + 5) * 1000000000u;
    int open_n = 2, live[2] = { 1, 1 };
    while (open_n > 0) {
        struct pollfd pf[2];
        int map[2], n = 0;
        uint64_t first = UINT64_MAX;
        for (int i = 0; i < 2; i++)
            if (live[i]) {
                pf[n].fd = fd[i];
                pf[n].events = POLLIN;
                pf[n].revents = 0;
                map[n++] = i;
                if (deadline[i] < first) first = deadline[i];
            }
        const uint64_t t = now_ns();
        int k = t < first ? poll(pf, (nfds_t)n, (int)((first - t) / 1000000u) + 1) : 0;
        if (k < 0 && errno == EINTR) continue;
        for (int j = 0; j < n; j++) {
            const int i = map[j];
            if (pf[j].revents) {
                ssize_t m = read(fd[i], (char *)&r[i] + got[i], sizeof r[i] - got[i]);
                if (m > 0) got[i] += (size_t)m;
                if (m > 0 && got[i] < sizeof r[i]) continue;
                live[i] = 0;
                open_n--;
                if (got[i] == sizeof r[i] && r[i].status == 2) {
                    const uint64_t grace = now_ns() + 3000000000u;
                    if (deadline[1 - i] > grace) deadline[1 - i] = grace;
                }
            } else if (now_ns() >= deadline[i]) {
                live[i] = 0;
                open_n--;
            }
        }
    }
    for (int i = 0; i < 2; i++) {
        if (got[i] != sizeof r[i]) {
            kill(pid[i], SIGKILL);
            memset(&r[i], 0, sizeof r[i]);
            r[i].me = i;
            r[i].status = 2;
            r[i].desync_frame = r[i].remote_desync_frame = -1;
            snprintf(r[i].error, sizeof r[i].error, "no report (stopped)");
        }
        waitpid(pid[i], NULL, 0);
    }
}

static void end_line(long frames, uint32_t rollbacks, int desyncs)
{
    printf("%ld frames, %u rollbacks, %d desyncs\n", frames, rollbacks, desyncs);
}

static int two_peers(const options *o)
{
    struct sockaddr_in a[2];
    int fd[2] = { udp_socket(&a[0]), udp_socket(&a[1]) };
    if (fd[0] < 0 || fd[1] < 0) {
        perror("lockstep: UDP socket on 127.0.0.1");
        return 1;
    }
    if (connect(fd[0], (struct sockaddr *)&a[1], sizeof a[1]) != 0 ||
        connect(fd[1], (struct sockaddr *)&a[0], sizeof a[0]) != 0) {
        perror("lockstep: connect");
        return 1;
    }
    printf("lockstep: peers 0 and 1 over UDP, 127.0.0.1:%u <-> 127.0.0.1:%u; %ld frames, loss %d%%, delay %d "
           "frames%s, corruption %d%%, seed %u\n",
           ntohs(a[0].sin_port), ntohs(a[1].sin_port), o->frames, o->loss, o->delay, o->reorder ? ", reordering" : "",
           o->corrupt, o->seed);
    if (o->desync_at >= 0) printf("lockstep: peer 1 nudges a body by 1/65536 m at frame %ld\n", o->desync_at);
    fflush(stdout);

    options oo = *o;
    oo.t0 = now_ns() + 100000000u; /* after both forks */
    o = &oo;
    int pipes[2][2];
    pid_t pid[2];
    for (int me = 0; me < 2; me++) {
        if (pipe(pipes[me]) != 0) {
            perror("lockstep: pipe");
            return 1;
        }
        pid[me] = fork();
        if (pid[me] < 0) {
            perror("lockstep: fork");
            return 1;
        }
        if (pid[me] == 0) {
            close(fd[1 - me]);
            close(pipes[me][0]);
            static link_end l;
            memset(&l, 0, sizeof l);
            l.fd = fd[me];
            l.o = o;
            l.rng = (o->seed * 2654435761u) ^ (0x9e3779b9u * (uint32_t)(me + 1));
            if (l.rng == 0) l.rng = 1;
            peer_result r;
            run_peer(me, &l, o, me == 1 && o->desync_at >= 0, &r);
            (void)write_all(pipes[me][1], (const uint8_t *)&r, sizeof r);
            _exit(r.status);
        }
        close(pipes[me][1]);
    }
    close(fd[0]);
    close(fd[1]);

    peer_result r[2];
    const int rfd[2] = { pipes[0][0], pipes[1][0] };
    collect(rfd, pid, r, o);
    close(rfd[0]);
    close(rfd[1]);

    for (int me = 0; me < 2; me++) print_peer(&r[me], "UDP, predicts and rolls back");
    print_figures(r, 2, 0);
    int desyncs = 0;
    if (r[0].desync_frame >= 0 || r[1].desync_frame >= 0) desyncs = 1;
    if (r[0].desync_frame >= 0 && r[1].desync_frame >= 0 && r[0].desync_frame != r[1].desync_frame) desyncs = 2;
    const uint32_t both = r[0].compared < r[1].compared ? r[0].compared : r[1].compared;
    if (both == (uint32_t)o->frames && !desyncs)
        printf("final hash %08x at frame %ld on both peers\n", (unsigned)r[0].final_hash, o->frames - 1);
    end_line((long)both, r[0].st.rollbacks + r[1].st.rollbacks, desyncs);
    return r[0].status == 0 && r[1].status == 0 && r[0].final_hash == r[1].final_hash ? 0 : 1;
}

static int board_mode(const options *o)
{
    struct sockaddr_in a;
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof a) != 0 || listen(lfd, 1) != 0 ||
        getsockname(lfd, (struct sockaddr *)&a, &len) != 0) {
        perror("lockstep: TCP listen on 127.0.0.1");
        return 1;
    }
    char link_arg[96], kernel[1024];
    snprintf(link_arg, sizeof link_arg, "socket,id=link,host=127.0.0.1,port=%u,nodelay=on", ntohs(a.sin_port));
    snprintf(kernel, sizeof kernel, "%s", o->board_elf);
    printf("lockstep: peer 0 here (predicts and rolls back), peer 1 on %s under %s -M %s (lockstep), "
           "over its UART as tcp 127.0.0.1:%u; %ld frames%s\n",
           o->board_elf, o->qemu, o->machine, ntohs(a.sin_port), o->frames,
           o->desync_at >= 0 ? ", peer 0 perturbs its world" : "");
    if (o->desync_at >= 0) printf("lockstep: peer 0 nudges a body by 1/65536 m at frame %ld\n", o->desync_at);
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        perror("lockstep: fork");
        return 1;
    }
    if (pid == 0) {
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0) dup2(null, 0);
        close(lfd);
        execlp(o->qemu, o->qemu, "-M", o->machine, "-display", "none", "-monitor", "none", "-chardev", link_arg,
               "-serial", "chardev:link", "-chardev", "stdio,id=con,signal=off", "-semihosting-config",
               "enable=on,target=native,chardev=con", "-kernel", kernel, (char *)NULL);
        fprintf(stderr, "lockstep: cannot run %s: %s\n", o->qemu, strerror(errno));
        _exit(127);
    }
    /* QEMU connects as it starts. */
    struct pollfd pf = { lfd, POLLIN, 0 };
    int cfd = -1;
    if (poll(&pf, 1, 20000) == 1) cfd = accept(lfd, NULL, NULL);
    close(lfd);
    peer_result r;
    if (cfd < 0) {
        fprintf(stderr, "lockstep: QEMU did not connect to the serial socket within 20 s\n");
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        return 1;
    }
    int one = 1;
    (void)setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    (void)fcntl(cfd, F_SETFL, fcntl(cfd, F_GETFL) | O_NONBLOCK);
    static link_end l;
    memset(&l, 0, sizeof l);
    l.fd = cfd;
    l.stream = 1;
    l.o = o;
    ls_framer_init(&l.framer);
    run_peer(0, &l, o, o->desync_at >= 0, &r);

    /* The board ends by itself when it has compared every frame (or found a desync). */
    int status = -1;
    const uint64_t deadline = now_ns() + 20000000000u;
    while (now_ns() < deadline) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) break;
        struct timespec ts = { 0, 10000000 };
        nanosleep(&ts, NULL);
        status = -1;
    }
    if (status == -1) {
        kill(pid, SIGKILL); /* our own child, by its id */
        waitpid(pid, NULL, 0);
    }
    close(cfd);
    fflush(stdout);
    const int board_rc = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    print_peer(&r, "TCP serial link, predicts and rolls back");
    printf("peer 1 (the board): %s\n", board_rc == 0   ? "exit 0: every frame compared equal"
                                        : board_rc == 1 ? "exit 1: a desync"
                                        : board_rc == -1 ? "did not end within 20 s (killed)"
                                                         : "failed (exit code above 1)");
    print_figures(&r, 1, 1);
    const int desyncs = r.desync_frame >= 0 || board_rc == 1;
    if (r.status == 0 && board_rc == 0)
        printf("final hash %08x at frame %ld on both peers\n", (unsigned)r.final_hash, o->frames - 1);
    end_line((long)r.compared, r.st.rollbacks, desyncs);
    return r.status == 0 && board_rc == 0 ? 0 : 1;
}

/* ---- arguments ------------------------------------------------------------------------ */

static int usage(const char *why)
{
    fprintf(stderr,
            "lockstep: %s\n"
            "usage: lockstep [--frames N] [--loss PCT] [--delay FRAMES] [--reorder] [--corrupt PCT]\n"
            "                [--desync-at F] [--seed S] [--frame-us US] [--timeout S]\n"
            "       lockstep --board ELF [--frames N] [--desync-at F] [--qemu CMD] [--machine M]\n"
            "       lockstep --reference [--frames N]\n",
            why);
    return 2;
}

static int number(const char *s, long lo, long hi, long *out)
{
    char *e;
    errno = 0;
    long v = strtol(s, &e, 10);
    if (errno || e == s || *e || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int main(int argc, char **argv)
{
    options o = { 600, 0, 0, 0, 0, -1, 1, 2000, 60, NULL, "qemu-system-arm", "mps2-an386", 0, 0 };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        long v;
        int has = i + 1 < argc;
#define NUM(name, lo, hi, dst)                                                                \
    if (strcmp(a, name) == 0) {                                                               \
        if (!has || number(argv[++i], lo, hi, &v) != 0)                                       \
            return usage(name " needs a whole number in " #lo ".." #hi);                      \
        dst = v;                                                                              \
        continue;                                                                             \
    }
        NUM("--frames", 1, (long)LS_MAX_FRAMES, o.frames)
        NUM("--loss", 0, 90, o.loss)
        NUM("--delay", 0, 30, o.delay)
        NUM("--corrupt", 0, 90, o.corrupt)
        NUM("--desync-at", 0, (long)LS_MAX_FRAMES - 1, o.desync_at)
        NUM("--seed", 0, 2147483647L, o.seed)
        NUM("--frame-us", 0, 1000000, o.frame_us)
        NUM("--timeout", 1, 3600, o.timeout_s)
#undef NUM
        if (strcmp(a, "--reorder") == 0) { o.reorder = 1; continue; }
        if (strcmp(a, "--reference") == 0) { o.reference = 1; continue; }
        if (strcmp(a, "--board") == 0 && has) { o.board_elf = argv[++i]; continue; }
        if (strcmp(a, "--qemu") == 0 && has) { o.qemu = argv[++i]; continue; }
        if (strcmp(a, "--machine") == 0 && has) { o.machine = argv[++i]; continue; }
        return usage(a[0] == '-' ? "unknown option or missing value" : "unexpected argument");
    }
    if (o.desync_at >= o.frames) return usage("--desync-at must be below --frames");
    signal(SIGPIPE, SIG_IGN);
    if (o.reference) return reference(&o);
    if (o.board_elf) return board_mode(&o);
    return two_peers(&o);
}
