/* SPDX-License-Identifier: MIT */
/* qphys verify PATH... [-j N] [--junit FILE]: every recording under the paths, verified by N
 * worker processes (docs/scale.md).
 *
 * Recordings: regular files named *.replay (replay files) and *.qpin (a snapshot's inputs,
 * verified from the NAME.qps beside it), found by walking directories recursively (symbolic
 * links to directories are not followed); a file named on the command line is verified
 * whatever its name. The list is sorted by bytes, so the report's order never depends on the
 * directory order or on which worker finished first.
 *
 * Workers are forked processes, each with its own world, handed one file at a time through
 * a pipe (so a slow file never holds up the others); each answers with the fixed-size
 * verify_result. A worker that dies (a signal) costs one file, reported damaged, and is
 * replaced. Where there is no fork (WASI), the files are verified in this process.
 *
 * Output: one line per file (verify_line), then "N files: A matched, B diverged, C damaged,
 * D of another version"; on stderr the time taken and the workers' CPU time, in all and in
 * the busiest one (which is the wall time when every worker has a core of its own). Exit 0
 * when every file matched, 1 when one diverged, 2 when one is damaged or of another version
 * (or on a usage error).
 */
#define _DEFAULT_SOURCE      /* wait4: each worker's CPU time */
#define _FILE_OFFSET_BITS 64 /* stat on 32-bit hosts: 64-bit inode numbers */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#ifndef __wasi__
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#endif

#include "verify.h"

int qphys_verify(int argc, char **argv, qp_world *w);

typedef struct {
    char **v;
    size_t n, cap;
} path_list;

static void fatal(const char *fmt, const char *arg)
{
    fprintf(stderr, "qphys: verify: ");
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    exit(2);
}

static void add_path(path_list *l, const char *p)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        char **v = realloc(l->v, l->cap * sizeof *v);
        if (!v) fatal("%s", "out of memory");
        l->v = v;
    }
    size_t n = strlen(p);
    l->v[l->n] = malloc(n + 1);
    if (!l->v[l->n]) fatal("%s", "out of memory");
    memcpy(l->v[l->n++], p, n + 1);
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n > k && strcmp(s + n - k, tail) == 0;
}

/* Every *.replay and *.qpin under dir (depth bounded by the paths the system allows). */
static void walk(const char *dir, path_list *out)
{
    DIR *d = opendir(dir);
    if (!d) fatal("cannot read directory %s", dir);
    size_t dn = strlen(dir);
    int slash = dn > 0 && dir[dn - 1] == '/';
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        size_t n = dn + 1 + strlen(e->d_name) + 1;
        char *p = malloc(n);
        if (!p) fatal("%s", "out of memory");
        snprintf(p, n, "%s%s%s", dir, slash ? "" : "/", e->d_name);
        /* Directories (not links to them) are walked; regular files (or links to them) are
         * taken by their name: a FIFO or a device would never end. */
        struct stat ls, st;
        if (lstat(p, &ls) == 0) {
            if (S_ISDIR(ls.st_mode)) walk(p, out);
            else if (stat(p, &st) == 0 && S_ISREG(st.st_mode) && (ends_with(p, ".replay") || ends_with(p, ".qpin")))
                add_path(out, p);
        }
        free(p);
    }
    closedir(d);
}

static int by_bytes(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* ---- verifying --------------------------------------------------------------------------- */

/* The verdicts so far, printed in the files' order as soon as each one and those before it
 * are in. */
typedef struct {
    char **files;
    size_t n;
    verify_result *res;
    char *done;
    size_t printed;
    int count[4];                 /* by status */
} report;

static void print_ready(report *rep)
{
    for (; rep->printed < rep->n && rep->done[rep->printed]; rep->printed++) {
        char line[1024];
        verify_line(&rep->res[rep->printed], rep->files[rep->printed], line, sizeof line);
        puts(line);
        int s = rep->res[rep->printed].status;
        rep->count[s >= 0 && s < 4 ? s : VERIFY_DAMAGED]++;
    }
    fflush(stdout);
}

#ifndef __wasi__
typedef struct {
    pid_t pid;
    int to, from;                 /* job indices out, results in */
    long job;                     /* the file it holds, -1: none */
    double cpu;                   /* CPU seconds of the processes that held this place */
} worker;

static worker *workers;
static int n_workers;

static int write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t k = write(fd, c, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        c += k;
        n -= (size_t)k;
    }
    return 0;
}

/* n bytes, or fewer at the end of the stream (the count read). */
static size_t read_all(int fd, void *p, size_t n)
{
    char *c = p;
    size_t got = 0;
    while (got < n) {
        ssize_t k = read(fd, c + got, n - got);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        got += (size_t)k;
    }
    return got;
}

static void worker_loop(int in, int out, char **files, qp_world *w)
{
    uint32_t job;
    while (read_all(in, &job, sizeof job) == sizeof job) {
        verify_result r;
        verify_file(w, files[job], &r);
        if (write_all(out, &r, sizeof r) != 0) break;
    }
    _exit(0);
}

static void spawn(int k, char **files, qp_world *w)
{
    int to[2], from[2];
    if (pipe(to) != 0 || pipe(from) != 0) fatal("%s", "cannot create a pipe");
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) fatal("%s", "cannot fork a worker");
    if (pid == 0) {
        /* Only its own pipe ends: another worker's must see its end of file. */
        for (int i = 0; i < n_workers; i++)
            if (i != k && workers[i].pid > 0) {
                close(workers[i].to);
                close(workers[i].from);
            }
        close(to[1]);
        close(from[0]);
        signal(SIGPIPE, SIG_DFL);
        worker_loop(to[0], from[1], files, w);
    }
    close(to[0]);
    close(from[1]);
    workers[k].pid = pid;
    workers[k].to = to[1];
    workers[k].from = from[0];
    workers[k].job = -1;
}

/* Wait for a worker; the CPU seconds (user and system) it used. */
static double reap(pid_t pid, int *status)
{
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    if (wait4(pid, status, 0, &ru) < 0) return 0.0;
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* Verify rep's files on procs forked workers, handing out one file at a time. */
static void verify_all(report *rep, int procs, qp_world *w, double *cpu, double *busiest)
{
    size_t n = rep->n;
    n_workers = procs;
    workers = calloc((size_t)n_workers, sizeof *workers);
    struct pollfd *fds = calloc((size_t)n_workers, sizeof *fds);
    if (!workers || !fds) fatal("%s", "out of memory");
    signal(SIGPIPE, SIG_IGN);   /* a worker that died: its write fails, it is not our death */
    size_t next = 0, finished = 0;
    for (int k = 0; k < n_workers; k++) spawn(k, rep->files, w);
    while (finished < n) {
        /* Each idle worker gets the next file. */
        for (int k = 0; k < n_workers; k++) {
            if (workers[k].job >= 0 || next >= n) continue;
            uint32_t job = (uint32_t)next;
            workers[k].job = (long)next++;
            if (write_all(workers[k].to, &job, sizeof job) != 0) { /* dead: found below */ }
        }
        int m = 0;
        for (int k = 0; k < n_workers; k++) {
            fds[k].fd = workers[k].job >= 0 ? workers[k].from : -1;
            fds[k].events = POLLIN;
            fds[k].revents = 0;
            m += workers[k].job >= 0;
        }
        if (m == 0) break;
        if (poll(fds, (nfds_t)n_workers, -1) < 0) {
            if (errno == EINTR) continue;
            fatal("%s", "poll failed");
        }
        for (int k = 0; k < n_workers; k++) {
            if (!fds[k].revents || workers[k].job < 0) continue;
            long job = workers[k].job;
            verify_result r;
            if (read_all(workers[k].from, &r, sizeof r) != sizeof r) {
                /* The worker died on this file: reported, and replaced. */
                int status = 0;
                close(workers[k].to);
                close(workers[k].from);
                workers[k].cpu += reap(workers[k].pid, &status);
                memset(&r, 0, sizeof r);
                r.status = VERIFY_DAMAGED;
                if (WIFSIGNALED(status))
                    snprintf(r.message, sizeof r.message, "its verifier process died (signal %d)", WTERMSIG(status));
                else
                    snprintf(r.message, sizeof r.message, "its verifier process died (exit %d)", WEXITSTATUS(status));
                workers[k].pid = 0;
                spawn(k, rep->files, w);
            }
            workers[k].job = -1;
            rep->res[job] = r;
            rep->done[job] = 1;
            finished++;
        }
        print_ready(rep);
    }
    for (int k = 0; k < n_workers; k++) close(workers[k].to);
    for (int k = 0; k < n_workers; k++) {
        int status;
        close(workers[k].from);
        workers[k].cpu += reap(workers[k].pid, &status);
        *cpu += workers[k].cpu;
        if (workers[k].cpu > *busiest) *busiest = workers[k].cpu;
    }
    free(workers);
    free(fds);
}
#else
/* No processes to fork (WASI): every file in this one, in order (no CPU clock: 0 s said). */
static void verify_all(report *rep, int procs, qp_world *w, double *cpu, double *busiest)
{
    (void)procs;
    for (size_t i = 0; i < rep->n; i++) {
        verify_file(w, rep->files[i], &rep->res[i]);
        rep->done[i] = 1;
        print_ready(rep);
    }
    *cpu = *busiest = 0.0;
}
#endif

/* ---- JUnit ----------------------------------------------------------------------------------- */

static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '&') fputs("&amp;", f);
        else if (c == '<') fputs("&lt;", f);
        else if (c == '>') fputs("&gt;", f);
        else if (c == '"') fputs("&quot;", f);
        else if (c < 0x20 && c != '\t') fputc('?', f);
        else fputc(c, f);
    }
}

/* JUnit XML: one test case per file; a divergence is a failure, damage (or another
 * version) an error. No times, so that two runs over one corpus write the same bytes. */
static void write_junit(const char *dest, char **files, const verify_result *res, size_t n, const int *count)
{
    FILE *f = fopen(dest, "w");
    if (!f) fatal("cannot write %s", dest);
    int bad = count[VERIFY_DAMAGED] + count[VERIFY_OTHER_VERSION];
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<testsuites tests=\"%zu\" failures=\"%d\" errors=\"%d\">\n", n, count[VERIFY_DIVERGED], bad);
    fprintf(f, "  <testsuite name=\"qphys verify\" tests=\"%zu\" failures=\"%d\" errors=\"%d\">\n", n,
            count[VERIFY_DIVERGED], bad);
    for (size_t i = 0; i < n; i++) {
        char line[1024];
        verify_line(&res[i], files[i], line, sizeof line);
        fputs("    <testcase classname=\"qphys.verify\" name=\"", f);
        xml_text(f, files[i]);
        if (res[i].status == VERIFY_MATCHED) {
            fputs("\"/>\n", f);
            continue;
        }
        const char *tag = res[i].status == VERIFY_DIVERGED ? "failure" : "error";
        const char *type = res[i].status == VERIFY_DIVERGED ? "diverged"
                           : res[i].status == VERIFY_OTHER_VERSION ? "other version" : "damaged";
        fprintf(f, "\">\n      <%s type=\"%s\" message=\"", tag, type);
        xml_text(f, line);
        fprintf(f, "\"/>\n    </testcase>\n");
    }
    fprintf(f, "  </testsuite>\n</testsuites>\n");
    if (fclose(f) != 0) fatal("cannot write %s", dest);
}

static void usage_verify(void)
{
    fprintf(stderr, "usage: qphys verify PATH... [-j N] [--junit FILE]\n");
    exit(2);
}

int qphys_verify(int argc, char **argv, qp_world *w)
{
    long jobs = sysconf(_SC_NPROCESSORS_ONLN);
    const char *junit = NULL;
    path_list files = { 0, 0, 0 };
    int paths = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (!strcmp(a, "-j") || !strcmp(a, "--jobs")) {
            if (i + 1 >= argc) usage_verify();
            v = argv[++i];
        } else if (!strncmp(a, "-j", 2)) {
            v = a + 2;
        } else if (!strcmp(a, "--junit")) {
            if (i + 1 >= argc) usage_verify();
            junit = argv[++i];
            continue;
        } else if (a[0] == '-' && a[1]) {
            fatal("unknown option '%s'", a);
        } else {
            struct stat st;
            if (stat(a, &st) != 0) fatal("%s: no such file or directory", a);
            if (S_ISDIR(st.st_mode)) walk(a, &files);
            else add_path(&files, a);
            paths++;
            continue;
        }
        char *end;
        errno = 0;
        jobs = strtol(v, &end, 10);
        if (errno || *end || end == v || jobs < 1 || jobs > 1024) fatal("-j: expected 1 .. 1024 processes, not '%s'", v);
    }
    if (!paths) usage_verify();
    if (jobs < 1) jobs = 1;
    qsort(files.v, files.n, sizeof *files.v, by_bytes);
    size_t n = 0;   /* without duplicates */
    for (size_t i = 0; i < files.n; i++) {
        if (n > 0 && !strcmp(files.v[n - 1], files.v[i])) free(files.v[i]);
        else files.v[n++] = files.v[i];
    }
    files.n = n;
    if (n == 0) fatal("%s", "no recordings (*.replay, *.qpin) under the paths given");
    if (n > 0xFFFFFFFFu) fatal("%s", "too many files");

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    report rep = { files.v, n, calloc(n, sizeof(verify_result)), calloc(n, 1), 0, { 0, 0, 0, 0 } };
    if (!rep.res || !rep.done) fatal("%s", "out of memory");
#ifdef __wasi__
    jobs = 1;
#endif
    int procs = (int)(jobs < (long)n ? jobs : (long)n);
    double cpu = 0.0, busiest = 0.0;
    verify_all(&rep, procs, w, &cpu, &busiest);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("%zu files: %d matched, %d diverged, %d damaged, %d of another version\n", n, rep.count[VERIFY_MATCHED],
           rep.count[VERIFY_DIVERGED], rep.count[VERIFY_DAMAGED], rep.count[VERIFY_OTHER_VERSION]);
    /* The busiest worker's CPU time is the wall time on free cores: what -j buys. */
    fprintf(stderr, "qphys verify: %zu files in %.2f s on %d process%s; %.2f CPU s in all, %.2f in the busiest\n",
            n, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, procs,
            procs == 1 ? "" : "es", cpu, busiest);
    const int *count = rep.count;
    if (junit) write_junit(junit, files.v, rep.res, n, count);
    int rc = count[VERIFY_DAMAGED] + count[VERIFY_OTHER_VERSION] ? 2 : count[VERIFY_DIVERGED] ? 1 : 0;
    for (size_t i = 0; i < n; i++) free(files.v[i]);
    free(files.v);
    free(rep.res);
    free(rep.done);
    return rc;
}
