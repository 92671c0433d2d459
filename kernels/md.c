/*
 * jubex-md - an mdtest-like metadata kernel.
 *
 * What it measures: how many metadata operations per second N tasks get from
 * a file system when each creates, stats, reads and removes its own items
 * (directories, then files) in a directory tree of depth -z and branching
 * factor -b: mkdir, stat, rename and rmdir for directories; open(O_CREAT) with
 * an optional write, stat, open-read-close and unlink for files.  The tree
 * itself is made and removed with mkdir and rmdir.
 *
 * How: as in mdtest, items are spread evenly over the tree's directories and
 * are named after their task, so tasks share directories unless -u gives each
 * task a tree of its own.  The tasks are processes started by fork() (MPI
 * ranks with -DJUBEX_MPI).  Every phase starts at a barrier; each task notes
 * on CLOCK_MONOTONIC when it has done its last operation.  A phase's rate is
 * the operations of all tasks divided by the time from the release (see
 * start_lag() in common.h) until the last task finished, as mdtest 4 reports it.
 *
 * The output is mdtest 4's text layout (a rate table, then a time table as
 * with mdtest -P), so tools that read mdtest read it.
 */
#include "common.h"

#define MAX_DEPTH 64
#define MAX_DIRS 1000000
#define PATH_BYTES 4096

enum {
    DIR_CREATE, DIR_STAT, DIR_RENAME, DIR_REMOVE,
    FILE_CREATE, FILE_STAT, FILE_READ, FILE_REMOVE,
    TREE_CREATE, TREE_REMOVE, NPHASES,
    SETUP = NPHASES, TEARDOWN
};

static const char *phase_names[NPHASES] = {
    "Directory creation", "Directory stat", "Directory rename", "Directory removal",
    "File creation",      "File stat",      "File read",        "File removal",
    "Tree creation",      "Tree removal",
};

struct options {
    long depth, branch, iters, ntasks;
    uint64_t items, wbytes, rbytes, items_per_dir, ndirs;
    int create, stat, read, remove, rename, files, dirs, unique, sync;
    const char *base;
};

struct context {
    const struct options *o;
    const struct team *t;
    int phase;
    long iter;
    char *path, *path2, *buf;
};

static const char *usage_text =
    "Usage: jubex-md [options]\n"
    "Create, stat, read and remove files and directories with N tasks and report\n"
    "operations per second like mdtest.\n"
    "\n"
    "  -n N     items per task (default 1000), spread over the tree's directories\n"
    "  -z N     depth of the directory tree (default 0: one directory)\n"
    "  -b N     branching factor of the tree (default 1)\n"
    "  -i N     iterations (default 1)\n"
    "  -d DIR   base directory, created if missing (default ./out)\n"
    "  -u       a tree of its own for each task (default: one shared tree)\n"
    "  -F       files only;  -D  directories only (default: both)\n"
    "  -w N     bytes to write into each file when it is created (default 0)\n"
    "  -e N     bytes to read from each file in the read phase (default 0)\n"
    "  -y       fsync each file after writing it\n"
    "  -C       create only;  -T  stat only;  -E  read only;  -r  remove only\n"
    "  -U       rename directories (on by default when no phase is chosen)\n"
#ifndef JUBEX_MPI
    "  -N N     number of tasks, started by fork() (default 1)\n"
#endif
    "  -h       this help\n"
    "\n"
    "Phase flags combine (-C -T); without any, every phase runs.  The tree is\n"
    "made in the create phase and removed in the remove phase.\n";

static void derive_tree(struct options *o)
{
    uint64_t level = 1;
    o->ndirs = 1;
    for (long d = 1; d <= o->depth; d++) {
        if (level > MAX_DIRS / (uint64_t)o->branch)
            usage_error("a tree of depth %ld and branching %ld has more than %d directories",
                        o->depth, o->branch, MAX_DIRS);
        level *= (uint64_t)o->branch;
        o->ndirs += level;
        if (o->ndirs > MAX_DIRS)
            usage_error("a tree of depth %ld and branching %ld has more than %d directories",
                        o->depth, o->branch, MAX_DIRS);
    }
    if (o->items < o->ndirs)
        usage_error("-n %" PRIu64 " is fewer items than the %" PRIu64 " directories of the tree",
                    o->items, o->ndirs);
    o->items_per_dir = o->items / o->ndirs;
}

static void parse_options(int argc, char **argv, struct options *o, int speak)
{
    int c, chosen = 0, only_files = 0, only_dirs = 0;
    *o = (struct options){.branch = 1, .iters = 1, .ntasks = 1, .items = 1000, .base = "./out"};
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0)
            print_help(usage_text, speak);
    opterr = 0;
    while ((c = getopt(argc, argv, ":n:z:b:i:d:uFDw:e:yCTErUN:h")) != -1) {
        switch (c) {
        case 'n': o->items = (uint64_t)parse_count(optarg, 'n', 1, LONG_MAX); break;
        case 'z': o->depth = parse_count(optarg, 'z', 0, MAX_DEPTH); break;
        case 'b': o->branch = parse_count(optarg, 'b', 1, MAX_DIRS); break;
        case 'i': o->iters = parse_count(optarg, 'i', 1, 100000); break;
        case 'd': o->base = optarg; break;
        case 'u': o->unique = 1; break;
        case 'F': only_files = 1; break;
        case 'D': only_dirs = 1; break;
        case 'w': o->wbytes = parse_size(optarg, 'w'); break;
        case 'e': o->rbytes = parse_size(optarg, 'e'); break;
        case 'y': o->sync = 1; break;
        case 'C': o->create = chosen = 1; break;
        case 'T': o->stat = chosen = 1; break;
        case 'E': o->read = chosen = 1; break;
        case 'r': o->remove = chosen = 1; break;
        case 'U': o->rename = chosen = 1; break;
#ifdef JUBEX_MPI
        case 'N': usage_error("-N is not used with MPI; start the ranks with mpirun -np");
#else
        case 'N': o->ntasks = parse_count(optarg, 'N', 1, 4096); break;
#endif
        case 'h': print_help(usage_text, speak);
        case ':': usage_error("option -%c needs a value", optopt);
        default: usage_error("unknown option -%c", optopt);
        }
    }
    if (optind < argc)
        usage_error("unexpected argument '%s'", argv[optind]);
    if (!chosen)
        o->create = o->stat = o->read = o->remove = o->rename = 1;
    o->files = !only_dirs || only_files;
    o->dirs = !only_files || only_dirs;
    if (o->base[0] == '\0')
        usage_error("-d needs a directory name");
    if (o->create && o->read && o->rbytes > o->wbytes)
        usage_error("-e (%" PRIu64 " bytes) cannot exceed -w (%" PRIu64
                    " bytes) when files are written and read in one run",
                    o->rbytes, o->wbytes);
    if (o->wbytes > SIZE_MAX / 2 || o->rbytes > SIZE_MAX / 2)
        usage_error("-w or -e is too large for this machine");
    derive_tree(o);
}

/* ---------------------------------------------------------------- names */

static void test_dir(const struct context *c, char *buf)
{
    if (snprintf(buf, PATH_BYTES, "%s/test-dir.%ld-0", c->o->base, c->iter) >= PATH_BYTES)
        fail("path too long under %s", c->o->base);
}

/* Path of tree directory k: its ancestors from the root down, as mdtest names them. */
static void dir_path(const struct context *c, int owner, uint64_t k, char *buf)
{
    uint64_t chain[MAX_DEPTH + 1];
    int len = 0, pos;
    char tree[64];
    if (c->o->unique)
        snprintf(tree, sizeof tree, "mdtest_tree.%d", owner);
    else
        snprintf(tree, sizeof tree, "mdtest_tree");
    for (;;) {
        chain[len++] = k;
        if (k == 0)
            break;
        k = (k - 1) / (uint64_t)c->o->branch;
    }
    test_dir(c, buf);
    pos = (int)strlen(buf);
    while (len-- > 0 && pos < PATH_BYTES)
        pos += snprintf(buf + pos, PATH_BYTES - (size_t)pos, "/%s.%" PRIu64, tree, chain[len]);
    if (pos >= PATH_BYTES)
        fail("path too long under %s", c->o->base);
}

static void item_path(const struct context *c, const char *kind, uint64_t i, char *buf)
{
    size_t pos;
    dir_path(c, c->t->rank, i / c->o->items_per_dir, buf);
    pos = strlen(buf);
    if (snprintf(buf + pos, PATH_BYTES - pos, "/%s.mdtest.%d.%" PRIu64, kind, c->t->rank, i) >=
        (int)(PATH_BYTES - pos))
        fail("path too long under %s", c->o->base);
}

/* ------------------------------------------------------------ operations */

static void make_file(const struct context *c, const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT, 0644);
    if (fd < 0)
        fail("cannot create file %s: %s", path, strerror(errno));
    if (c->o->wbytes > 0 && write_full(fd, c->buf, (size_t)c->o->wbytes) != 0)
        fail("cannot write %" PRIu64 " bytes to %s: %s", c->o->wbytes, path, strerror(errno));
    if (c->o->sync && fsync(fd) != 0)
        fail("cannot fsync %s: %s", path, strerror(errno));
    if (close(fd) != 0)
        fail("cannot close %s: %s", path, strerror(errno));
}

static void read_file(const struct context *c, const char *path)
{
    int fd = open(path, O_RDONLY);
    ssize_t n;
    if (fd < 0)
        fail("cannot open %s for reading: %s", path, strerror(errno));
    if (c->o->rbytes > 0) {
        n = read_full(fd, c->buf, (size_t)c->o->rbytes);
        if (n < 0)
            fail("cannot read %s: %s", path, strerror(errno));
        if ((uint64_t)n != c->o->rbytes)
            fail("%s holds %zd bytes, fewer than the %" PRIu64 " of -e", path, n, c->o->rbytes);
    }
    if (close(fd) != 0)
        fail("cannot close %s: %s", path, strerror(errno));
}

static void item_op(const struct context *c, uint64_t i)
{
    struct stat st;
    const char *kind = c->phase < FILE_CREATE ? "dir" : "file";
    item_path(c, kind, i, c->path);
    switch (c->phase) {
    case DIR_CREATE:
        if (mkdir(c->path, 0755) != 0)
            fail("cannot create directory %s: %s", c->path, strerror(errno));
        break;
    case DIR_STAT:
    case FILE_STAT:
        if (stat(c->path, &st) != 0)
            fail("cannot stat %s: %s", c->path, strerror(errno));
        break;
    case DIR_REMOVE:
        if (rmdir(c->path) != 0)
            fail("cannot remove directory %s: %s", c->path, strerror(errno));
        break;
    case FILE_CREATE: make_file(c, c->path); break;
    case FILE_READ: read_file(c, c->path); break;
    case FILE_REMOVE:
        if (unlink(c->path) != 0)
            fail("cannot remove file %s: %s", c->path, strerror(errno));
        break;
    default: fail("no such phase %d", c->phase);
    }
}

static void move(const char *from, const char *to)
{
    if (rename(from, to) != 0)
        fail("cannot rename %s to %s: %s", from, to, strerror(errno));
}

/*
 * mdtest's rename phase: shift every directory of the task one name down
 * (item 0 parks under a spare name, item i takes name i-1, the spare takes
 * the last freed name), so the names are all there again afterwards.
 */
static uint64_t rename_dirs(struct context *c)
{
    uint64_t n = c->o->items_per_dir * c->o->ndirs;
    size_t len;
    item_path(c, "dir", 0, c->path2);
    len = strlen(c->path2);
    if (len + 4 >= PATH_BYTES)
        fail("path too long under %s", c->o->base);
    memcpy(c->path, c->path2, len + 1);
    strcat(c->path2, "-XX");
    move(c->path, c->path2);
    for (uint64_t i = 1; i + 1 < n; i++) {
        char *from = c->path2, *to = c->path;
        item_path(c, "dir", i - 1, to);
        item_path(c, "dir", i, from);
        move(from, to);
    }
    item_path(c, "dir", n >= 2 ? n - 2 : 0, c->path);
    item_path(c, "dir", 0, c->path2);
    strcat(c->path2, "-XX");
    move(c->path2, c->path);
    return n >= 2 ? n : 2;
}

static uint64_t tree_op(struct context *c)
{
    const struct options *o = c->o;
    if (!o->unique && c->t->rank != 0)
        return 0;
    for (uint64_t k = 0; k < o->ndirs; k++) {
        uint64_t d = c->phase == TREE_CREATE ? k : o->ndirs - 1 - k;
        dir_path(c, c->t->rank, d, c->path);
        if (c->phase == TREE_CREATE && mkdir(c->path, 0755) != 0)
            fail("cannot create directory %s: %s", c->path, strerror(errno));
        if (c->phase == TREE_REMOVE && rmdir(c->path) != 0)
            fail("cannot remove directory %s: %s", c->path, strerror(errno));
    }
    return o->ndirs;
}

/* Untimed: the base and per-iteration directories, made and removed by task 0. */
static void frame_op(struct context *c)
{
    if (c->t->rank != 0)
        return;
    test_dir(c, c->path);
    if (c->phase == TEARDOWN) {
        if (rmdir(c->path) != 0)
            fail("cannot remove directory %s: %s", c->path, strerror(errno));
        return;
    }
    if (mkdir(c->o->base, 0755) != 0 && errno != EEXIST)
        fail("cannot create directory %s: %s", c->o->base, strerror(errno));
    if (mkdir(c->path, 0755) != 0 && errno != EEXIST)
        fail("cannot create directory %s: %s", c->path, strerror(errno));
}

static struct record work(void *ctx, double t0)
{
    struct context *c = ctx;
    struct record r;
    uint64_t ops = 0, n = c->o->items_per_dir * c->o->ndirs;
    memset(&r, 0, sizeof r);
    if (c->phase == SETUP || c->phase == TEARDOWN)
        frame_op(c);
    else if (c->phase == TREE_CREATE || c->phase == TREE_REMOVE)
        ops = tree_op(c);
    else if (c->phase == DIR_RENAME)
        ops = rename_dirs(c);
    else
        for (ops = 0; ops < n; ops++)
            item_op(c, ops);
    r.v[0] = now() - t0;
    r.v[1] = (double)ops;
    return r;
}

/* --------------------------------------------------------------- report */

static int phase_runs(const struct options *o, int p)
{
    switch (p) {
    case DIR_CREATE: return o->dirs && o->create;
    case DIR_STAT: return o->dirs && o->stat;
    case DIR_RENAME: return o->dirs && o->rename;
    case DIR_REMOVE: return o->dirs && o->remove;
    case FILE_CREATE: return o->files && o->create;
    case FILE_STAT: return o->files && o->stat;
    case FILE_READ: return o->files && o->read;
    case FILE_REMOVE: return o->files && o->remove;
    case TREE_CREATE: return o->create;
    case TREE_REMOVE: return o->remove;
    case SETUP: return o->create;
    case TEARDOWN: return o->remove;
    default: return 0;
    }
}

/* The phases of one iteration in mdtest's order. */
static const int order[] = {SETUP,       TREE_CREATE, DIR_CREATE, DIR_STAT,  DIR_RENAME,
                            DIR_REMOVE,  FILE_CREATE, FILE_STAT,  FILE_READ, FILE_REMOVE,
                            TREE_REMOVE, TEARDOWN};

static void print_table(const struct options *o, const double *values, int is_rate)
{
    double *x = xmalloc(sizeof(double) * (size_t)o->iters);
    printf("\nSUMMARY %s: (of %ld iterations)\n", is_rate ? "rate (in ops/sec)" : "time (in sec)",
           o->iters);
    printf("   Operation                     Max            Min           Mean        Std Dev\n");
    printf("   ---------                     ---            ---           ----        -------\n");
    for (int p = 0; p < NPHASES; p++) {
        struct stats s;
        if (!phase_runs(o, p))
            continue;
        for (long i = 0; i < o->iters; i++)
            x[i] = values[i * NPHASES + p];
        s = stats_of(x, (int)o->iters, 1);
        printf(is_rate ? "   %-22s %14.3f %14.3f %14.3f %14.3f\n"
                       : "   %-22s %14.6f %14.6f %14.6f %14.6f\n",
               phase_names[p], s.max, s.min, s.mean, s.sd);
    }
    free(x);
}

static void print_report(const struct options *o, const struct team *t, const char *cmdline,
                         const char *started, const double *rates, const double *times)
{
    char date[64];
    const char *what = o->files && o->dirs ? "files/directories" : o->files ? "files" : "directories";
    printf("-- started at %s --\n\n", started);
    printf("jubex-md " KERNEL_VERSION " was launched with %d total task(s) on %d node(s)\n", t->size,
           t->nodes);
    printf("Command line used: %s\n", cmdline);
    if (o->items_per_dir * o->ndirs != o->items)
        printf("WARNING: %" PRIu64 " items do not spread evenly over %" PRIu64
               " directories; using %" PRIu64 " per task\n",
               o->items, o->ndirs, o->items_per_dir * o->ndirs);
    if (o->files && o->read && o->rbytes == 0)
        printf("WARNING: Read bytes is 0, thus, a read test will actually just open/close\n");
    printf("Path                : %s\n", o->base);
    print_fs_line(o->base);
    printf("%d tasks, %" PRIu64 " %s\n", t->size, (uint64_t)t->size * o->items_per_dir * o->ndirs,
           what);
    print_table(o, rates, 1);
    print_table(o, times, 0);
    date_string(date, sizeof date, "%m/%d/%Y %H:%M:%S");
    printf("-- finished at %s --\n", date);
}

/* ----------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    struct options o;
    struct team t;
    struct context c;
    struct record *all = NULL;
    double *rates = NULL, *times = NULL;
    char started[64], *cmdline;

    prog_name = "jubex-md";
    team_init(&t, &argc, &argv);
    parse_options(argc, argv, &o, t.reports);
    cmdline = join_args(argc, argv, "'");
    date_string(started, sizeof started, "%m/%d/%Y %H:%M:%S");
    team_start(&t, (int)o.ntasks);
    c = (struct context){.o = &o, .t = &t};
    if (t.works) {
        uint64_t n = o.wbytes > o.rbytes ? o.wbytes : o.rbytes;
        c.path = xmalloc(PATH_BYTES);
        c.path2 = xmalloc(PATH_BYTES);
        c.buf = xmalloc((size_t)n);
        for (uint64_t i = 0; i < n; i++)
            c.buf[i] = (char)('a' + i % 26);
    }
    if (t.reports) {
        all = xmalloc(sizeof(struct record) * (size_t)t.size);
        rates = xmalloc(sizeof(double) * NPHASES * (size_t)o.iters);
        times = xmalloc(sizeof(double) * NPHASES * (size_t)o.iters);
    }
    for (c.iter = 0; c.iter < o.iters; c.iter++) {
        for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
            double ops = 0, span = 0;
            c.phase = order[k];
            if (!phase_runs(&o, c.phase))
                continue;
            team_step(&t, work, &c, all);
            if (!t.reports || c.phase >= NPHASES)
                continue;
            for (int i = 0; i < t.size; i++) {
                double end = start_lag(&t, &all[i]) + all[i].v[0];
                span = end > span ? end : span;
                ops += all[i].v[1];
            }
            span = span > 1e-9 ? span : 1e-9;
            rates[c.iter * NPHASES + c.phase] = ops / span;
            times[c.iter * NPHASES + c.phase] = span;
        }
    }
    if (t.reports)
        print_report(&o, &t, cmdline, started, rates, times);
    free(c.path);
    free(c.path2);
    free(c.buf);
    free(all);
    free(rates);
    free(times);
    free(cmdline);
    team_finish(&t);
    return 0;
}
