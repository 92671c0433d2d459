/*
 * common.h - what jubex-bw and jubex-md share: strict option values, the
 * monotonic clock, the IOR/mdtest "FS" line, statistics, and the team of
 * tasks that run each phase together.
 *
 * This is a header of static functions rather than a library so that each
 * kernel stays one translation unit: `cc -O2 -o jubex-bw bw.c` is the build.
 *
 * The team.  Without MPI the tasks are processes started by fork(); their
 * parent is the coordinator: it does no I/O, releases the tasks at each
 * barrier, collects one record per task after each step and prints.  Tasks
 * talk to it over pipes: one shared "up" pipe carrying fixed-size messages
 * (written atomically, as they are smaller than PIPE_BUF) and one "down" pipe
 * per task carrying a one-byte go or quit.  A task that fails prints
 * "ERROR: ..." and tells the coordinator, which stops the other tasks and
 * exits non-zero; a task killed by a signal is noticed through waitpid().
 * With -DJUBEX_MPI the tasks are MPI ranks and rank 0 is also the
 * coordinator.
 */
#ifndef JUBEX_KERNEL_COMMON_H
#define JUBEX_KERNEL_COMMON_H

#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700
#define _FILE_OFFSET_BITS 64

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef JUBEX_MPI
#include <mpi.h>
#endif

#if defined(__GNUC__) || defined(__clang__)
#define NORETURN __attribute__((noreturn))
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define NORETURN
#define PRINTF_LIKE(f, a)
#endif

#define KERNEL_VERSION "0.1"
#define MIB 1048576.0
#define NVAL 8
#define SLOT_START (NVAL - 1) /* set by team_step(): the task's clock at its release */

/* One task's numbers for one step; slots below SLOT_START are the kernel's. */
struct record {
    double v[NVAL];
};

struct team {
    int rank;     /* 0..size-1 in a task, -1 in the fork coordinator */
    int size;     /* number of tasks */
    int nodes;    /* distinct hosts the tasks run on */
    int per_node; /* tasks on the coordinator's host */
    int works;    /* this process does the I/O of a task */
    int reports;  /* this process collects records and prints */
    double released; /* coordinator: clock when it released the last barrier; 0 if unknown */
#ifndef JUBEX_MPI
    int up_rd, up_wr; /* tasks -> coordinator messages */
    int *down;        /* coordinator: write end per task; task: its read end */
    pid_t *pids;
    int *running;
    int *seen;  /* per task: its message for the current collect() arrived */
    int *early; /* per task: it already sent READY for the next barrier */
#endif
};

static const char *prog_name = "kernel";
static struct team *current_team;

static NORETURN void team_abort(void);

/* Write "ERROR: <message>[suffix]\n" to stderr in one call, so tasks never interleave. */
static void say_error(const char *fmt, va_list ap, const char *suffix)
{
    char msg[1024];
    int n = snprintf(msg, sizeof msg, "ERROR: ");
    n += vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
    if (n > (int)sizeof msg - 64)
        n = (int)sizeof msg - 64;
    n += snprintf(msg + n, sizeof msg - (size_t)n, "%s\n", suffix);
    if (write(STDERR_FILENO, msg, (size_t)n) < 0)
        return; /* nowhere left to say it */
}

/* Report a run-time failure and end the run. */
static NORETURN PRINTF_LIKE(1, 2) void fail(const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    va_start(ap, fmt);
    say_error(fmt, ap, "");
    va_end(ap);
    team_abort();
}

/* Report a bad command line (deterministic, so under MPI rank 0 alone says it). */
static NORETURN PRINTF_LIKE(1, 2) void usage_error(const char *fmt, ...)
{
    va_list ap;
    char suffix[64];
    int speak = 1;
#ifdef JUBEX_MPI
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    speak = rank == 0;
#endif
    snprintf(suffix, sizeof suffix, " (see %s -h)", prog_name);
    if (speak) {
        va_start(ap, fmt);
        say_error(fmt, ap, suffix);
        va_end(ap);
    }
#ifdef JUBEX_MPI
    MPI_Finalize();
#endif
    exit(2);
}

/* -h: print the usage (once, under MPI) and end the run successfully. */
static NORETURN void print_help(const char *text, int speak)
{
    if (speak)
        fputs(text, stdout);
#ifdef JUBEX_MPI
    MPI_Finalize();
#endif
    exit(0);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL)
        fail("out of memory allocating %zu bytes", n);
    return p;
}

/* ------------------------------------------------------------------ values */

static int ieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
        char y = *b >= 'A' && *b <= 'Z' ? (char)(*b - 'A' + 'a') : *b;
        if (x != y)
            return 0;
    }
    return *a == *b;
}

/*
 * A size as IOR reads it, plus explicit units: "4096", "4k", "1m", "1g", "1t"
 * and "4KiB".."1TiB" are powers of 1024; "4kB".."1TB" are powers of 1000.
 */
static uint64_t parse_size(const char *text, char opt)
{
    static const char *bin[] = {"k", "m", "g", "t"};
    static const char *iec[] = {"kib", "mib", "gib", "tib"};
    static const char *si[] = {"kb", "mb", "gb", "tb"};
    char *end = NULL;
    uint64_t value, mult = 0, base2 = 1, base10 = 1;
    if (text[0] < '0' || text[0] > '9')
        usage_error("-%c expects a size such as 4096, 4k, 1m, 4KiB or 1MB, not '%s'", opt, text);
    errno = 0;
    value = strtoull(text, &end, 10);
    if (errno == ERANGE)
        usage_error("-%c: size '%s' is too large", opt, text);
    if (*end == '\0' || ieq(end, "b"))
        mult = 1;
    for (int i = 0; i < 4 && mult == 0; i++) {
        base2 *= 1024;
        base10 *= 1000;
        if (ieq(end, bin[i]) || ieq(end, iec[i]))
            mult = base2;
        else if (ieq(end, si[i]))
            mult = base10;
    }
    if (mult == 0)
        usage_error("-%c: unknown unit in '%s' (use k, m, g, t, KiB, MiB, GiB, TiB, kB, MB, GB, TB)",
                    opt, text);
    if (value > UINT64_MAX / mult)
        usage_error("-%c: size '%s' is too large", opt, text);
    return value * mult;
}

static long parse_count(const char *text, char opt, long min, long max)
{
    char *end = NULL;
    long value;
    errno = 0;
    value = strtol(text, &end, 10);
    if (text[0] < '0' || text[0] > '9' || *end != '\0' || errno == ERANGE || value < min ||
        value > max)
        usage_error("-%c expects a whole number from %ld to %ld, not '%s'", opt, min, max, text);
    return value;
}

/* The command line as one string; mdtest puts each argument after the first in quotes. */
static char *join_args(int argc, char **argv, const char *quote)
{
    size_t n = 1;
    char *s, *p;
    for (int i = 0; i < argc; i++)
        n += strlen(argv[i]) + 1 + 2 * strlen(quote);
    s = p = xmalloc(n);
    p += sprintf(p, "%s", argv[0]);
    for (int i = 1; i < argc; i++)
        p += sprintf(p, " %s%s%s", quote, argv[i], quote);
    return s;
}

/* ------------------------------------------------------------------- clock */

static double now(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        fail("clock_gettime(CLOCK_MONOTONIC) failed: %s", strerror(errno));
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The wall-clock date in strftime format, for the human-readable header. */
static void date_string(char *buf, size_t n, const char *fmt)
{
    time_t t = time(NULL);
    struct tm tm;
    if (t == (time_t)-1 || localtime_r(&t, &tm) == NULL || strftime(buf, n, fmt, &tm) == 0)
        snprintf(buf, n, "unknown");
}

/* ------------------------------------------------------------- statistics */

/* Newton's method from above; keeps the kernels free of -lm. */
static double square_root(double x)
{
    double r;
    if (!(x > 0))
        return 0;
    r = x > 1 ? x : 1;
    for (int i = 0; i < 2000; i++) {
        double next = 0.5 * (r + x / r);
        if (!(next < r))
            break;
        r = next;
    }
    return r;
}

struct stats {
    double min, max, mean, sd;
};

/* sample != 0: standard deviation over n-1 (mdtest); otherwise over n (IOR). */
static struct stats stats_of(const double *x, int n, int sample)
{
    struct stats s = {0, 0, 0, 0};
    double sum = 0, var = 0;
    if (n <= 0)
        return s;
    s.min = s.max = x[0];
    for (int i = 0; i < n; i++) {
        s.min = x[i] < s.min ? x[i] : s.min;
        s.max = x[i] > s.max ? x[i] : s.max;
        sum += x[i];
    }
    s.mean = sum / n;
    for (int i = 0; i < n; i++)
        var += (x[i] - s.mean) * (x[i] - s.mean);
    if (sample)
        s.sd = n > 1 ? square_root(var / (n - 1)) : 0;
    else
        s.sd = square_root(var / n);
    return s;
}

/* -------------------------------------------------------------- the header */

/* IOR's and mdtest's "FS" line for the file system holding dir; nothing if unknown. */
static void print_fs_line(const char *dir)
{
    struct statvfs f;
    double total, used, inodes, used_inodes;
    const char *unit = "GiB";
    if (statvfs(dir, &f) != 0 || f.f_blocks == 0)
        return;
    total = (double)f.f_blocks * (double)f.f_frsize / (1024.0 * 1024.0 * 1024.0);
    used = (1.0 - (double)f.f_bfree / (double)f.f_blocks) * 100.0;
    if (total > 1024) {
        total /= 1024;
        unit = "TiB";
    }
    inodes = (double)f.f_files / (1024.0 * 1024.0);
    used_inodes = f.f_files ? (1.0 - (double)f.f_ffree / (double)f.f_files) * 100.0 : 0.0;
    printf("FS                  : %.1f %s   Used FS: %2.1f%%   Inodes: %.1f Mi   Used Inodes: "
           "%2.1f%%\n",
           total, unit, used, inodes, used_inodes);
}

/* ---------------------------------------- plain I/O (inline: not every build uses both) */

static inline ssize_t read_full(int fd, void *buf, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t r = read(fd, (char *)buf + done, n - done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        done += (size_t)r;
    }
    return (ssize_t)done;
}

static inline int write_full(int fd, const void *buf, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t r = write(fd, (const char *)buf + done, n - done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        done += (size_t)r;
    }
    return 0;
}

/* ---------------------------------------------------------------- the team */

#ifdef JUBEX_MPI

static void team_init(struct team *t, int *argc, char ***argv)
{
    MPI_Comm node;
    int node_rank, leader, is_leader;
    memset(t, 0, sizeof *t);
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &t->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t->size);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_size(node, &t->per_node);
    MPI_Comm_free(&node);
    is_leader = node_rank == 0;
    MPI_Allreduce(&is_leader, &t->nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    leader = t->per_node;
    MPI_Bcast(&leader, 1, MPI_INT, 0, MPI_COMM_WORLD);
    t->per_node = leader;
    t->works = 1;
    t->reports = t->rank == 0;
    current_team = t;
}

static void team_start(struct team *t, int ntasks)
{
    (void)t;
    (void)ntasks;
}

static NORETURN void team_abort(void)
{
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

static void team_barrier(struct team *t)
{
    (void)t;
    MPI_Barrier(MPI_COMM_WORLD);
}

static void team_gather(struct team *t, const struct record *mine, struct record *all)
{
    MPI_Gather((void *)mine->v, NVAL, MPI_DOUBLE, t->rank == 0 ? all->v : NULL, NVAL, MPI_DOUBLE,
               0, MPI_COMM_WORLD);
}

static void team_finish(struct team *t)
{
    (void)t;
    MPI_Finalize();
}

#else /* fork */

enum { MSG_READY = 1, MSG_DONE = 2, MSG_FAIL = 3 };

struct message {
    int32_t kind;
    int32_t rank;
    struct record rec;
};

static void team_init(struct team *t, int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    memset(t, 0, sizeof *t);
    t->size = 1;
    t->nodes = 1;
    t->per_node = 1;
    t->works = 1;
    t->reports = 1;
    t->up_rd = t->up_wr = -1;
    current_team = t;
}

static void task_send(struct team *t, int kind, const struct record *rec)
{
    struct message m;
    memset(&m, 0, sizeof m);
    m.kind = kind;
    m.rank = t->rank;
    if (rec)
        m.rec = *rec;
    if (write_full(t->up_wr, &m, sizeof m) != 0)
        _exit(1); /* the coordinator is gone; nobody is left to report to */
}

static void release_tasks(struct team *t, char byte)
{
    for (int i = 0; i < t->size; i++)
        if (t->down[i] >= 0 && write_full(t->down[i], &byte, 1) != 0) {
            close(t->down[i]); /* that task died; waitpid() reports it */
            t->down[i] = -1;
        }
}

static NORETURN void team_abort(void)
{
    struct team *t = current_team;
    if (t == NULL || (t->up_rd < 0 && t->up_wr < 0))
        exit(1);
    if (t->rank >= 0) {
        task_send(t, MSG_FAIL, NULL);
        _exit(1);
    }
    release_tasks(t, 'q');
    for (int i = 0; i < t->size; i++)
        if (t->running[i])
            kill(t->pids[i], SIGTERM);
    for (int i = 0; i < t->size; i++)
        if (t->running[i]) {
            while (waitpid(t->pids[i], NULL, 0) < 0 && errno == EINTR)
                ;
            t->running[i] = 0;
        }
    exit(1);
}

/* Reap tasks that ended; a signal means a crash nobody reported. */
static void reap_tasks(struct team *t, int block)
{
    for (int i = 0; i < t->size; i++) {
        int status;
        pid_t p;
        if (!t->running[i])
            continue;
        while ((p = waitpid(t->pids[i], &status, block ? 0 : WNOHANG)) < 0 && errno == EINTR)
            ;
        if (p != t->pids[i])
            continue;
        t->running[i] = 0;
        if (WIFSIGNALED(status)) {
            fail("task %d was killed by signal %d", i, WTERMSIG(status));
        }
        if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
            team_abort(); /* the task printed why */
    }
}

/*
 * Coordinator: wait for one message of the given kind from every task.  A task
 * that has sent its DONE goes on to the next barrier at once, so its READY may
 * arrive while the others' DONE are still awaited; it is kept for then.
 */
static void collect(struct team *t, int kind, struct record *all)
{
    int got = 0;
    for (int i = 0; i < t->size; i++) {
        t->seen[i] = kind == MSG_READY && t->early[i];
        t->early[i] = 0;
        got += t->seen[i];
    }
    while (got < t->size) {
        struct message m;
        struct pollfd p = {t->up_rd, POLLIN, 0};
        ssize_t n;
        int r = poll(&p, 1, 500);
        if (r < 0 && errno != EINTR)
            fail("poll failed: %s", strerror(errno));
        if (r <= 0) {
            reap_tasks(t, 0);
            continue;
        }
        n = read_full(t->up_rd, &m, sizeof m);
        if (n == 0) {
            reap_tasks(t, 1);
            fail("the tasks ended without reporting");
        }
        if (n != (ssize_t)sizeof m || m.rank < 0 || m.rank >= t->size)
            fail("broken message from a task");
        if (m.kind == MSG_FAIL)
            team_abort();
        if (kind == MSG_DONE && m.kind == MSG_READY && t->seen[m.rank] && !t->early[m.rank]) {
            t->early[m.rank] = 1;
            continue;
        }
        if (m.kind != kind || t->seen[m.rank])
            fail("task %d sent an unexpected message", (int)m.rank);
        t->seen[m.rank] = 1;
        if (all)
            all[m.rank] = m.rec;
        got++;
    }
}

/* Start ntasks processes; in each of them this returns with rank set. */
static void team_start(struct team *t, int ntasks)
{
    int up[2];
    int(*down)[2] = xmalloc(sizeof(int[2]) * (size_t)ntasks);
    t->size = ntasks;
    t->per_node = ntasks;
    t->down = xmalloc(sizeof(int) * (size_t)ntasks);
    t->pids = xmalloc(sizeof(pid_t) * (size_t)ntasks);
    t->running = calloc((size_t)ntasks, sizeof(int));
    t->seen = calloc((size_t)ntasks, sizeof(int));
    t->early = calloc((size_t)ntasks, sizeof(int));
    if (t->running == NULL || t->seen == NULL || t->early == NULL)
        fail("out of memory");
    if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
        fail("cannot ignore SIGPIPE: %s", strerror(errno));
    if (pipe(up) != 0)
        fail("cannot create a pipe: %s", strerror(errno));
    for (int i = 0; i < ntasks; i++)
        if (pipe(down[i]) != 0)
            fail("cannot create a pipe for task %d: %s", i, strerror(errno));
    fflush(stdout);
    fflush(stderr);
    t->rank = -1;
    t->up_rd = up[0];
    t->up_wr = -1;
    for (int i = 0; i < ntasks; i++) {
        pid_t pid = fork();
        if (pid < 0) {
            for (int j = i; j < ntasks; j++) {
                close(down[j][0]);
                close(down[j][1]);
                t->down[j] = -1;
            }
            close(up[1]);
            fail("cannot start task %d: %s", i, strerror(errno));
        }
        if (pid == 0) {
            close(up[0]);
            for (int j = 0; j < ntasks; j++) {
                close(down[j][1]);
                if (j != i)
                    close(down[j][0]);
            }
            t->down[i] = down[i][0];
            t->up_rd = -1;
            t->up_wr = up[1];
            t->rank = i;
            t->reports = 0;
            free(down);
            return;
        }
        t->pids[i] = pid;
        t->running[i] = 1;
        close(down[i][0]);
        t->down[i] = down[i][1];
    }
    close(up[1]);
    free(down);
    t->works = 0;
}

static void team_barrier(struct team *t)
{
    char byte = 0;
    if (t->rank < 0) {
        collect(t, MSG_READY, NULL);
        t->released = now();
        release_tasks(t, 'g');
        return;
    }
    task_send(t, MSG_READY, NULL);
    if (read_full(t->down[t->rank], &byte, 1) != 1 || byte != 'g')
        _exit(1); /* told to quit, or the coordinator is gone */
}

static void team_gather(struct team *t, const struct record *mine, struct record *all)
{
    if (t->rank < 0)
        collect(t, MSG_DONE, all);
    else
        task_send(t, MSG_DONE, mine);
}

/* Tasks end here; the coordinator waits for them and returns. */
static void team_finish(struct team *t)
{
    if (t->rank >= 0) {
        close(t->up_wr);
        close(t->down[t->rank]);
        free(t->down);
        free(t->pids);
        free(t->running);
        free(t->seen);
        free(t->early);
        exit(0);
    }
    if (t->pids != NULL) {
        reap_tasks(t, 1);
        for (int i = 0; i < t->size; i++)
            if (t->down[i] >= 0)
                close(t->down[i]);
        close(t->up_rd);
    }
    free(t->down);
    free(t->pids);
    free(t->running);
    free(t->seen);
    free(t->early);
}

#endif /* JUBEX_MPI */

/*
 * One step of the run: all tasks start together, each does its share, and the
 * coordinator receives every task's record in all[] (tasks get nothing back).
 * work() gets the task's clock at its release and reports times relative to it.
 */
static void team_step(struct team *t, struct record (*work)(void *, double), void *ctx,
                      struct record *all)
{
    struct record mine;
    memset(&mine, 0, sizeof mine);
    team_barrier(t);
    if (t->works) {
        double t0 = now();
        mine = work(ctx, t0);
        mine.v[SLOT_START] = t0;
    }
    team_gather(t, &mine, all);
}

/*
 * How long after the barrier's release a task started.  Forked tasks share the
 * machine's monotonic clock with the coordinator, so a phase's wall time runs
 * from the release itself, however late a busy machine wakes a task; MPI ranks
 * on other hosts do not share a clock, so there each rank starts at its own
 * barrier exit, as in IOR.
 */
static double start_lag(const struct team *t, const struct record *r)
{
    double lag = r->v[SLOT_START] - t->released;
    return t->released > 0 && lag > 0 ? lag : 0;
}

#endif /* JUBEX_KERNEL_COMMON_H */
