/*
 * jubex-bw - an IOR-like sequential bandwidth kernel.
 *
 * What it measures: the aggregate bandwidth with which N tasks write, then
 * read back, N x segments x block bytes in transfers of a fixed size through
 * open / pwrite / pread / fsync / close: one file per task (-F), or one shared
 * file in IOR's segmented layout, where block j of task r in segment s starts
 * at byte (s * N + r) * block.
 *
 * How: the tasks are processes started by fork() (MPI ranks with
 * -DJUBEX_MPI).  Every phase starts at a barrier; each task records, on
 * CLOCK_MONOTONIC, when its open, its transfers (with the fsync of -e) and its
 * close ended.  A phase lasts from the release (see start_lag() in common.h)
 * until the last task has closed its file, as in IOR, and its bandwidth is the
 * bytes moved divided by that time.  IOPS divide the transfers by the span of the
 * transfer part alone; latency is a task's transfer time per transfer,
 * averaged over tasks.
 *
 * Every transfer carries a pattern that names its writer and, every 512
 * bytes, its own offset, so -R (a separate, untimed pass) finds data that is
 * missing, misplaced or another task's.
 *
 * The output is IOR 4's default text layout, so tools that read IOR read it.
 */
#include "common.h"

#define SECTOR 512
#define DEFAULT_PATH "testFile"

enum { OPEN_END, XFER_END, CLOSE_END, OPS, ERRORS };
enum { WRITE, READ, VERIFY, REMOVE };

struct options {
    uint64_t xfer, block;
    long segments, reps, ntasks;
    int fpp, fsync, reorder, write, read, keep, verify;
    const char *path;
};

struct context {
    const struct options *o;
    const struct team *t;
    int step;
    uint64_t *wbuf;   /* this task's pattern, stamped per transfer */
    uint64_t *rbuf;   /* what a read brings back */
    uint64_t *expect; /* with -R: what the read should bring back */
};

static const char *usage_text =
    "Usage: jubex-bw [options]\n"
    "Write, then read, a data set with N tasks and report bandwidth like IOR.\n"
    "\n"
    "  -a API   only POSIX (accepted for IOR command lines)\n"
    "  -b SIZE  block: contiguous bytes per task and segment (default 1m)\n"
    "  -t SIZE  transfer: bytes per write or read call, divides -b (default 256k)\n"
    "  -s N     segments (default 1)\n"
    "  -i N     repetitions (default 1)\n"
    "  -F       one file per task (default: one shared file)\n"
    "  -e       fsync before closing after the write (timed)\n"
    "  -C       read the data of the next task (task r reads task r+1's)\n"
    "  -w       write phase;  -r  read phase (default: both)\n"
    "  -R       check every byte read against the written pattern (untimed pass)\n"
    "  -o PATH  test file; with -F each task adds .NNNNNNNN (default testFile)\n"
    "  -k       keep the files (default: removed after each repetition)\n"
#ifndef JUBEX_MPI
    "  -n N     number of tasks, started by fork() (default 1)\n"
#endif
    "  -h       this help\n"
    "\n"
    "Sizes: 4096, 4k, 1m, 1g (powers of 1024, as IOR), 4KiB, 1MiB, or 4kB, 1MB\n"
    "(powers of 1000).  Bandwidth is reported in MiB/s (2^20 bytes per second).\n";

static void parse_options(int argc, char **argv, struct options *o, int speak)
{
    int c;
    *o = (struct options){.xfer = 256 * 1024, .block = 1024 * 1024, .segments = 1, .reps = 1,
                          .ntasks = 1, .path = DEFAULT_PATH};
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0)
            print_help(usage_text, speak);
    opterr = 0;
    while ((c = getopt(argc, argv, ":a:b:t:s:i:FeCwrRo:kn:h")) != -1) {
        switch (c) {
        case 'a':
            if (!ieq(optarg, "POSIX"))
                usage_error("-a %s: jubex-bw only does POSIX I/O", optarg);
            break;
        case 'b': o->block = parse_size(optarg, 'b'); break;
        case 't': o->xfer = parse_size(optarg, 't'); break;
        case 's': o->segments = parse_count(optarg, 's', 1, INT_MAX); break;
        case 'i': o->reps = parse_count(optarg, 'i', 1, 100000); break;
        case 'F': o->fpp = 1; break;
        case 'e': o->fsync = 1; break;
        case 'C': o->reorder = 1; break;
        case 'w': o->write = 1; break;
        case 'r': o->read = 1; break;
        case 'R': o->verify = 1; break;
        case 'o': o->path = optarg; break;
        case 'k': o->keep = 1; break;
#ifdef JUBEX_MPI
        case 'n': usage_error("-n is not used with MPI; start the ranks with mpirun -np");
#else
        case 'n': o->ntasks = parse_count(optarg, 'n', 1, 4096); break;
#endif
        case 'h': print_help(usage_text, speak); break;
        case ':': usage_error("option -%c needs a value", optopt);
        default: usage_error("unknown option -%c", optopt);
        }
    }
    if (optind < argc)
        usage_error("unexpected argument '%s'", argv[optind]);
    if (!o->write && !o->read)
        o->write = o->read = 1;
    if (o->xfer == 0 || o->xfer % 8 != 0)
        usage_error("-t must be a positive multiple of 8 bytes");
    if (o->block == 0 || o->block % o->xfer != 0)
        usage_error("-b (%" PRIu64 " bytes) must be a positive multiple of -t (%" PRIu64 " bytes)",
                    o->block, o->xfer);
    if (o->xfer > SIZE_MAX / 2)
        usage_error("-t is too large for this machine");
    if (o->path[0] == '\0')
        usage_error("-o needs a file name");
}

static char *xstrdup(const char *s)
{
    char *p = xmalloc(strlen(s) + 1);
    memcpy(p, s, strlen(s) + 1);
    return p;
}

static void print_machine(void)
{
    struct utsname u;
    if (uname(&u) == 0)
        printf("Machine             : %s %s\n", u.sysname, u.nodename);
    else
        printf("Machine             : unknown\n");
}

/* ------------------------------------------------------------ the pattern */

static uint64_t salt(int writer)
{
    return (uint64_t)(writer + 1) * UINT64_C(0xD1B54A32D192ED03);
}

static void fill_pattern(uint64_t *w, uint64_t words, int writer)
{
    for (uint64_t k = 0; k < words; k++)
        w[k] = salt(writer) ^ ((k + 1) * UINT64_C(0x9E3779B97F4A7C15));
}

/* Stamp the first word of every 512-byte sector with its file offset. */
static void stamp(uint64_t *w, uint64_t words, uint64_t off, int writer)
{
    uint64_t first = ((SECTOR - off % SECTOR) % SECTOR) / 8;
    for (uint64_t k = first; k < words; k += SECTOR / 8)
        w[k] = (off + 8 * k) ^ salt(writer);
}

static uint64_t count_mismatches(const uint64_t *got, const uint64_t *want, uint64_t words)
{
    uint64_t bad = 0;
    if (memcmp(got, want, words * 8) == 0)
        return 0;
    for (uint64_t k = 0; k < words; k++)
        bad += got[k] != want[k];
    return bad;
}

/* ---------------------------------------------------------------- layout */

/* The task whose data task `rank` reads: itself, or with -C the next one. */
static int source_of(const struct options *o, const struct team *t, int rank)
{
    int shift = t->nodes > 1 ? t->per_node : 1;
    return o->reorder ? (rank + shift) % t->size : rank;
}

static char *file_name(const struct options *o, int owner)
{
    size_t n = strlen(o->path) + 16;
    char *s = xmalloc(n);
    if (o->fpp)
        snprintf(s, n, "%s.%08d", o->path, owner);
    else
        snprintf(s, n, "%s", o->path);
    return s;
}

static uint64_t offset_of(const struct options *o, const struct team *t, int owner, long seg,
                          uint64_t j)
{
    uint64_t s = (uint64_t)seg;
    if (o->fpp)
        return s * o->block + j * o->xfer;
    return (s * (uint64_t)t->size + (uint64_t)owner) * o->block + j * o->xfer;
}

/* ------------------------------------------------------------ one task */

static void transfer_one(int fd, uint64_t *buf, size_t n, uint64_t off, int writing,
                         const char *name)
{
    size_t done = 0;
    while (done < n) {
        ssize_t r = writing ? pwrite(fd, (char *)buf + done, n - done, (off_t)(off + done))
                            : pread(fd, (char *)buf + done, n - done, (off_t)(off + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            fail("cannot %s %s at offset %" PRIu64 ": %s", writing ? "write" : "read", name,
                 off + done, strerror(errno));
        if (r == 0)
            fail("%s ends before offset %" PRIu64 " (written with other -b, -s, -F or -n?)",
                 name, off + done);
        done += (size_t)r;
    }
}

/* One task's share of a write, read or verify step, timed from the release. */
static struct record transfer(struct context *c, double t0)
{
    const struct options *o = c->o;
    const struct team *t = c->t;
    int writing = c->step == WRITE;
    int owner = writing ? t->rank : source_of(o, t, t->rank);
    uint64_t words = o->xfer / 8, per_block = o->block / o->xfer, n = 0, bad = 0;
    char *name = file_name(o, owner);
    struct record r;
    int fd;
    memset(&r, 0, sizeof r);
    if (c->step == VERIFY)
        fill_pattern(c->expect, words, owner);
    fd = writing ? open(name, O_WRONLY | O_CREAT, 0644) : open(name, O_RDONLY);
    if (fd < 0)
        fail("cannot open %s for %s: %s", name, writing ? "writing" : "reading", strerror(errno));
    r.v[OPEN_END] = now() - t0;
    for (long s = 0; s < o->segments; s++)
        for (uint64_t j = 0; j < per_block; j++, n++) {
            uint64_t off = offset_of(o, t, owner, s, j);
            if (writing)
                stamp(c->wbuf, words, off, owner);
            transfer_one(fd, writing ? c->wbuf : c->rbuf, (size_t)o->xfer, off, writing, name);
            if (c->step == VERIFY) {
                stamp(c->expect, words, off, owner);
                bad += count_mismatches(c->rbuf, c->expect, words);
            }
        }
    if (writing && o->fsync && fsync(fd) != 0)
        fail("cannot fsync %s: %s", name, strerror(errno));
    r.v[XFER_END] = now() - t0;
    if (close(fd) != 0)
        fail("cannot close %s: %s", name, strerror(errno));
    r.v[CLOSE_END] = now() - t0;
    r.v[OPS] = (double)n;
    r.v[ERRORS] = (double)bad;
    free(name);
    return r;
}

static struct record remove_files(struct context *c)
{
    struct record r;
    memset(&r, 0, sizeof r);
    if (c->o->fpp || c->t->rank == 0) {
        char *name = file_name(c->o, c->t->rank);
        if (unlink(name) != 0)
            fail("cannot remove %s: %s", name, strerror(errno));
        free(name);
    }
    return r;
}

static struct record work(void *ctx, double t0)
{
    struct context *c = ctx;
    return c->step == REMOVE ? remove_files(c) : transfer(c, t0);
}

/* --------------------------------------------------------------- report */

/* IOR's PPDouble: ten columns, left-aligned, fewer decimals as numbers grow. */
static void pp(double x, const char *append)
{
    int precision = x < 1 ? 6 : x < 3600 ? 2 : 0;
    printf("%-10.*f%s", precision, x, append);
}

static void human_size(char *buf, size_t n, uint64_t bytes)
{
    const uint64_t gib = UINT64_C(1) << 30, mib = UINT64_C(1) << 20;
    if (bytes >= gib)
        snprintf(buf, n, bytes % gib ? "%.2f GiB" : "%.0f GiB", (double)bytes / (double)gib);
    else if (bytes >= mib)
        snprintf(buf, n, bytes % mib ? "%.2f MiB" : "%.0f MiB", (double)bytes / (double)mib);
    else
        snprintf(buf, n, "%" PRIu64 " bytes", bytes);
}

static uint64_t aggregate(const struct options *o, const struct team *t)
{
    return o->block * (uint64_t)o->segments * (uint64_t)t->size;
}

static void print_header(const struct options *o, const struct team *t, const char *cmdline,
                         const char *began)
{
    char date[64], size[64], *first = file_name(o, 0), *dir = xstrdup(o->path);
    char *slash = strrchr(dir, '/');
    if (slash == NULL)
        strcpy(dir, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    date_string(date, sizeof date, "%a %b %e %H:%M:%S %Y");
    printf("jubex-bw " KERNEL_VERSION ": Coordinated Test of Parallel I/O\n");
    printf("Began               : %s\n", began);
    printf("Command line        : %s\n", cmdline);
    print_machine();
    printf("TestID              : 0\n");
    printf("StartTime           : %s\n", date);
    printf("Path                : %s\n", first);
    print_fs_line(dir);
    printf("\nOptions: \n");
    printf("api                 : POSIX\n");
    printf("apiVersion          : \n");
    printf("test filename       : %s\n", o->path);
    printf("access              : %s\n", o->fpp ? "file-per-process" : "single-shared-file");
    printf("type                : independent\n");
    printf("segments            : %ld\n", o->segments);
    printf("ordering in a file  : sequential\n");
    if (o->reorder)
        printf("ordering inter file : constant task offset\ntask offset         : 1\n");
    else
        printf("ordering inter file : no tasks offsets\n");
    printf("nodes               : %d\n", t->nodes);
    printf("tasks               : %d\n", t->size);
    printf("clients per node    : %d\n", t->per_node);
    printf("repetitions         : %ld\n", o->reps);
    human_size(size, sizeof size, o->xfer);
    printf("xfersize            : %s\n", size);
    human_size(size, sizeof size, o->block);
    printf("blocksize           : %s\n", size);
    human_size(size, sizeof size, aggregate(o, t));
    printf("aggregate filesize  : %s\n", size);
    printf("\nResults: \n\n");
    printf("access    bw(MiB/s)  IOPS       Latency(s)  block(KiB) xfer(KiB)  open(s)    "
           "wr/rd(s)   close(s)   total(s)   iter\n");
    printf("------    ---------  ----       ----------  ---------- ---------  --------   "
           "--------   --------   --------   ----\n");
    free(first);
    free(dir);
}

/* Print one results row; returns the phase time (release to last close). */
static double print_row(const struct options *o, const struct team *t, int step, long iter,
                        const struct record *all)
{
    double opening = 0, xfer_start = 1e300, xfer_end = 0, close_start = 1e300, total = 0;
    double ops = 0, latency = 0, span;
    for (int i = 0; i < t->size; i++) {
        const double *v = all[i].v;
        double lag = start_lag(t, &all[i]);
        opening = lag + v[OPEN_END] > opening ? lag + v[OPEN_END] : opening;
        xfer_start = lag + v[OPEN_END] < xfer_start ? lag + v[OPEN_END] : xfer_start;
        xfer_end = lag + v[XFER_END] > xfer_end ? lag + v[XFER_END] : xfer_end;
        close_start = lag + v[XFER_END] < close_start ? lag + v[XFER_END] : close_start;
        total = lag + v[CLOSE_END] > total ? lag + v[CLOSE_END] : total;
        ops += v[OPS];
        latency += v[OPS] > 0 ? (v[XFER_END] - v[OPEN_END]) / v[OPS] / t->size : 0;
    }
    total = total > 1e-9 ? total : 1e-9;
    span = xfer_end - xfer_start > 1e-9 ? xfer_end - xfer_start : 1e-9;
    printf("%-10s", step == WRITE ? "write" : "read");
    pp((double)aggregate(o, t) / MIB / total, " ");
    pp(ops / span, " ");
    pp(latency, "  ");
    pp((double)o->block / 1024.0, " ");
    pp((double)o->xfer / 1024.0, " ");
    pp(opening, " ");
    pp(xfer_end - xfer_start, " ");
    pp(total - close_start, " ");
    pp(total, " ");
    printf("%-4ld\n", iter);
    fflush(stdout);
    return total;
}

static void print_summary_row(const struct options *o, const struct team *t, const char *op,
                              const double *times)
{
    double *bw = xmalloc(sizeof(double) * (size_t)o->reps);
    double *iops = xmalloc(sizeof(double) * (size_t)o->reps);
    struct stats b, p, tm;
    double agg = (double)aggregate(o, t);
    for (long i = 0; i < o->reps; i++) {
        bw[i] = agg / MIB / times[i];
        iops[i] = agg / (double)o->xfer / times[i];
    }
    b = stats_of(bw, (int)o->reps, 0);
    p = stats_of(iops, (int)o->reps, 0);
    tm = stats_of(times, (int)o->reps, 0);
    printf("%-9s %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f %10.5f %10s %13s ", op,
           b.max, b.min, b.mean, b.sd, p.max, p.min, p.mean, p.sd, tm.mean, "NA", "NA");
    printf("%5d %6d %3d %4ld %3d %5d %8d %9d %4d %6ld %8" PRIu64 " %8" PRIu64 " %9.1f %3s %6d\n", 0,
           t->size, t->per_node, o->reps, o->fpp, o->reorder, 1, 0, 0, o->segments, o->block,
           o->xfer, agg / MIB, "POSIX", 0);
    free(bw);
    free(iops);
}

static void print_end(const struct options *o, const struct team *t, const double *wtimes,
                      const double *rtimes)
{
    double agg = (double)aggregate(o, t), wmax = 0, rmax = 0;
    char date[64];
    for (long i = 0; i < o->reps; i++) {
        wmax = o->write && agg / wtimes[i] > wmax ? agg / wtimes[i] : wmax;
        rmax = o->read && agg / rtimes[i] > rmax ? agg / rtimes[i] : rmax;
    }
    if (o->write)
        printf("Max Write: %.2f MiB/sec (%.2f MB/sec)\n", wmax / MIB, wmax / 1e6);
    if (o->read)
        printf("Max Read:  %.2f MiB/sec (%.2f MB/sec)\n", rmax / MIB, rmax / 1e6);
    printf("\nSummary of all tests:\n");
    printf("Operation   Max(MiB)   Min(MiB)  Mean(MiB)     StdDev   Max(OPs)   Min(OPs)  "
           "Mean(OPs)     StdDev    Mean(s) Stonewall(s) Stonewall(MiB) Test# #Tasks tPN reps "
           "fPP reord reordoff reordrand seed segcnt   blksiz    xsize aggs(MiB)   API RefNum\n");
    if (o->write)
        print_summary_row(o, t, "write", wtimes);
    if (o->read)
        print_summary_row(o, t, "read", rtimes);
    date_string(date, sizeof date, "%a %b %e %H:%M:%S %Y");
    printf("Finished            : %s\n", date);
}

/* ----------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    struct options o;
    struct team t;
    struct context c;
    struct record *all = NULL;
    double *wtimes = NULL, *rtimes = NULL;
    char began[64], *cmdline;
    int header_done = 0;

    prog_name = "jubex-bw";
    team_init(&t, &argc, &argv);
    parse_options(argc, argv, &o, t.reports);
    if (o.segments > 0 &&
        (double)o.block * (double)o.segments * (double)(t.size * o.ntasks) > (double)INT64_MAX)
        usage_error("the data set (-b x -s x tasks) is larger than a file can be");
    cmdline = join_args(argc, argv, "");
    date_string(began, sizeof began, "%a %b %e %H:%M:%S %Y");
    team_start(&t, (int)o.ntasks);
    c = (struct context){.o = &o, .t = &t};
    if (t.works) {
        c.wbuf = xmalloc((size_t)o.xfer);
        c.rbuf = xmalloc((size_t)o.xfer);
        c.expect = o.verify ? xmalloc((size_t)o.xfer) : NULL;
        fill_pattern(c.wbuf, o.xfer / 8, t.rank);
    }
    if (t.reports) {
        all = xmalloc(sizeof(struct record) * (size_t)t.size);
        wtimes = xmalloc(sizeof(double) * (size_t)o.reps);
        rtimes = xmalloc(sizeof(double) * (size_t)o.reps);
    }
    for (long it = 0; it < o.reps; it++) {
        for (c.step = WRITE; c.step <= REMOVE; c.step++) {
            if ((c.step == WRITE && !o.write) || (c.step == READ && !o.read) ||
                (c.step == VERIFY && !o.verify) || (c.step == REMOVE && (!o.write || o.keep)))
                continue;
            team_step(&t, work, &c, all);
            if (!t.reports)
                continue;
            if (c.step == WRITE || c.step == READ) {
                if (!header_done)
                    print_header(&o, &t, cmdline, began);
                header_done = 1;
                (c.step == WRITE ? wtimes : rtimes)[it] = print_row(&o, &t, c.step, it, all);
            } else if (c.step == VERIFY) {
                double bad = 0;
                for (int i = 0; i < t.size; i++)
                    bad += all[i].v[ERRORS];
                if (bad > 0)
                    fail("data verification failed in repetition %ld: %.0f of %" PRIu64
                         " 8-byte words differ from what was written",
                         it, bad, aggregate(&o, &t) / 8);
            }
        }
    }
    if (t.reports)
        print_end(&o, &t, wtimes, rtimes);
    free(c.wbuf);
    free(c.rbuf);
    free(c.expect);
    free(all);
    free(wtimes);
    free(rtimes);
    free(cmdline);
    team_finish(&t);
    return 0;
}
