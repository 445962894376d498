/* An LD_PRELOAD shim that injects one I/O fault at a chosen call, for the crash and fault
   harness (Tools/yiana-harness, Scripts/soak/crash-harness.sh). No module links it: the harness
   and the tests compile it on demand (FaultShim in Tests/YianaTestSupport).

   Only calls on files under YIANA_FAULT_ROOT count ("eligible" calls): writes, syncs,
   truncations, renames, links, opens for writing, copy_file_range, and reads. Everything
   else (the Swift runtime, locale files, the terminal) is left alone.

   YIANA_FAULT_ROOT   absolute folder; without it the shim does nothing
   YIANA_FAULT_AT     inject at the Nth eligible call of the process (1-based; 0: never)
   YIANA_FAULT_KIND   eio | enospc | short (a short write or read; EIO for calls without a
                      count) | kill (SIGKILL to the process just before the call: a crash
                      at an exact moment of its I/O)
   YIANA_FAULT_STICKY 1: after the first fault every eligible write fails too (a full disk stays full)
   YIANA_FAULT_LOG    file to append a line to for each injected fault, and, at exit,
                      "calls PID N" with the number of eligible calls (for calibration) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_FDS 65536

static char root[4096];
static size_t root_length;
static long fault_at;
static int kind; /* 0 eio, 1 enospc, 2 short, 3 kill */
static int sticky;
static char log_path[4096];
static long calls;
static int faulted;
static unsigned char tracked[MAX_FDS];
static int ready;

static long raw_syscall6(long n, long a, long b, long c, long d, long e, long f);

static void log_line(const char *line) {
    if (!log_path[0]) return;
    int fd = (int)raw_syscall6(SYS_openat, AT_FDCWD, (long)log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644, 0, 0);
    if (fd < 0) return;
    raw_syscall6(SYS_write, fd, (long)line, (long)strlen(line), 0, 0, 0);
    raw_syscall6(SYS_close, fd, 0, 0, 0, 0, 0);
}

__attribute__((constructor)) static void setup(void) {
    const char *r = getenv("YIANA_FAULT_ROOT");
    if (!r || r[0] != '/' || strlen(r) >= sizeof root) return;
    strcpy(root, r);
    root_length = strlen(root);
    const char *at = getenv("YIANA_FAULT_AT");
    fault_at = at ? atol(at) : 0;
    const char *k = getenv("YIANA_FAULT_KIND");
    kind = !k ? 0 : strcmp(k, "enospc") == 0 ? 1 : strcmp(k, "short") == 0 ? 2 : strcmp(k, "kill") == 0 ? 3 : 0;
    const char *s = getenv("YIANA_FAULT_STICKY");
    sticky = s && s[0] == '1';
    const char *l = getenv("YIANA_FAULT_LOG");
    if (l && strlen(l) < sizeof log_path) strcpy(log_path, l);
    __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
}

__attribute__((destructor)) static void report(void) {
    if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) return;
    char line[96];
    snprintf(line, sizeof line, "calls %d %ld\n", (int)getpid(), __atomic_load_n(&calls, __ATOMIC_RELAXED));
    log_line(line);
}

static int under_root(const char *path) {
    return path && root_length && strncmp(path, root, root_length) == 0 && (path[root_length] == '/' || path[root_length] == 0);
}

static int tracked_fd(int fd) {
    return fd > 2 && fd < MAX_FDS && __atomic_load_n(&tracked[fd], __ATOMIC_RELAXED);
}

static void track(int fd, int on) {
    if (fd > 2 && fd < MAX_FDS) __atomic_store_n(&tracked[fd], (unsigned char)on, __ATOMIC_RELAXED);
}

/* 0: go ahead; 1: fail this call; 2: make it short. `writes` says whether the call writes
   (a sticky full disk fails writes only). */
static int decide(const char *call, int writes) {
    if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) return 0;
    long n = __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
    if (sticky && writes && __atomic_load_n(&faulted, __ATOMIC_RELAXED)) return 1;
    if (fault_at <= 0 || n != fault_at) return 0;
    __atomic_store_n(&faulted, 1, __ATOMIC_RELAXED);
    char line[160];
    static const char *names[] = {"eio", "enospc", "short", "kill"};
    snprintf(line, sizeof line, "fault %d %ld %s %s\n", (int)getpid(), n, call, names[kind]);
    log_line(line);
    if (kind == 3) raw_syscall6(SYS_kill, getpid(), SIGKILL, 0, 0, 0, 0);
    return kind == 2 ? 2 : 1;
}

static int fail_errno(int writes) { return kind == 1 && writes ? ENOSPC : EIO; }

#define REAL(type, name, args) \
    static type (*real_fn) args; \
    if (!real_fn) real_fn = (type (*) args)dlsym(RTLD_NEXT, name);

/* ---- opening and closing: which descriptors count ---- */

static int open_common(const char *name, int dirfd, const char *path, int flags, mode_t mode, int at) {
    int eligible = under_root(path) || (path && path[0] != '/' && at && tracked_fd(dirfd));
    int writes = (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)) != 0;
    if (eligible && writes) {
        int d = decide(name, 1);
        if (d) { errno = fail_errno(1); return -1; }
    }
    int fd;
    if (at) {
        REAL(int, "openat", (int, const char *, int, ...));
        fd = real_fn(dirfd, path, flags, mode);
    } else {
        REAL(int, "open", (const char *, int, ...));
        fd = real_fn(path, flags, mode);
    }
    if (fd >= 0) track(fd, eligible);
    return fd;
}

static mode_t mode_arg(int flags, va_list ap) {
    return (flags & O_CREAT) || (flags & __O_TMPFILE) == __O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

int open(const char *path, int flags, ...) {
    va_list ap; va_start(ap, flags); mode_t mode = mode_arg(flags, ap); va_end(ap);
    return open_common("open", AT_FDCWD, path, flags, mode, 0);
}
int open64(const char *path, int flags, ...) {
    va_list ap; va_start(ap, flags); mode_t mode = mode_arg(flags, ap); va_end(ap);
    return open_common("open", AT_FDCWD, path, flags, mode, 0);
}
int openat(int dirfd, const char *path, int flags, ...) {
    va_list ap; va_start(ap, flags); mode_t mode = mode_arg(flags, ap); va_end(ap);
    return open_common("openat", dirfd, path, flags, mode, 1);
}
int openat64(int dirfd, const char *path, int flags, ...) {
    va_list ap; va_start(ap, flags); mode_t mode = mode_arg(flags, ap); va_end(ap);
    return open_common("openat", dirfd, path, flags, mode, 1);
}

int close(int fd) {
    REAL(int, "close", (int));
    track(fd, 0);
    return real_fn(fd);
}

/* ---- writing ---- */

ssize_t write(int fd, const void *buffer, size_t count) {
    REAL(ssize_t, "write", (int, const void *, size_t));
    if (tracked_fd(fd)) {
        int d = decide("write", 1);
        if (d == 1) { errno = fail_errno(1); return -1; }
        if (d == 2 && count > 1) count /= 2;
    }
    return real_fn(fd, buffer, count);
}

typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);

static ssize_t pwrite_common(pwrite_fn real_fn, int fd, const void *buffer, size_t count, off_t offset) {
    if (tracked_fd(fd)) {
        int d = decide("pwrite", 1);
        if (d == 1) { errno = fail_errno(1); return -1; }
        if (d == 2 && count > 1) count /= 2;
    }
    return real_fn(fd, buffer, count, offset);
}

ssize_t pwrite(int fd, const void *buffer, size_t count, off_t offset) {
    REAL(ssize_t, "pwrite", (int, const void *, size_t, off_t));
    return pwrite_common(real_fn, fd, buffer, count, offset);
}

ssize_t pwrite64(int fd, const void *buffer, size_t count, off_t offset) {
    REAL(ssize_t, "pwrite64", (int, const void *, size_t, off_t));
    return pwrite_common(real_fn, fd, buffer, count, offset);
}

ssize_t writev(int fd, const struct iovec *iov, int count) {
    REAL(ssize_t, "writev", (int, const struct iovec *, int));
    if (tracked_fd(fd)) {
        int d = decide("writev", 1);
        if (d == 1) { errno = fail_errno(1); return -1; }
        if (d == 2 && count > 0 && iov[0].iov_len > 1) {
            return raw_syscall6(SYS_write, fd, (long)iov[0].iov_base, (long)(iov[0].iov_len / 2), 0, 0, 0);
        }
    }
    return real_fn(fd, iov, count);
}

int fsync(int fd) {
    REAL(int, "fsync", (int));
    if (tracked_fd(fd) && decide("fsync", 1)) { errno = EIO; return -1; }
    return real_fn(fd);
}

int fdatasync(int fd) {
    REAL(int, "fdatasync", (int));
    if (tracked_fd(fd) && decide("fdatasync", 1)) { errno = EIO; return -1; }
    return real_fn(fd);
}

int ftruncate(int fd, off_t length) {
    REAL(int, "ftruncate", (int, off_t));
    if (tracked_fd(fd) && decide("ftruncate", 1)) { errno = fail_errno(1); return -1; }
    return real_fn(fd, length);
}

int ftruncate64(int fd, off_t length) {
    REAL(int, "ftruncate64", (int, off_t));
    if (tracked_fd(fd) && decide("ftruncate", 1)) { errno = fail_errno(1); return -1; }
    return real_fn(fd, length);
}

int rename(const char *from, const char *to) {
    REAL(int, "rename", (const char *, const char *));
    if ((under_root(from) || under_root(to)) && decide("rename", 1)) { errno = EIO; return -1; }
    return real_fn(from, to);
}

int renameat(int fromfd, const char *from, int tofd, const char *to) {
    REAL(int, "renameat", (int, const char *, int, const char *));
    if ((under_root(from) || under_root(to) || tracked_fd(fromfd) || tracked_fd(tofd)) && decide("rename", 1)) { errno = EIO; return -1; }
    return real_fn(fromfd, from, tofd, to);
}

int link(const char *from, const char *to) {
    REAL(int, "link", (const char *, const char *));
    if ((under_root(from) || under_root(to)) && decide("link", 1)) { errno = fail_errno(1); return -1; }
    return real_fn(from, to);
}

int linkat(int fromfd, const char *from, int tofd, const char *to, int flags) {
    REAL(int, "linkat", (int, const char *, int, const char *, int));
    if ((under_root(from) || under_root(to) || tracked_fd(fromfd) || tracked_fd(tofd)) && decide("link", 1)) { errno = fail_errno(1); return -1; }
    return real_fn(fromfd, from, tofd, to, flags);
}

ssize_t copy_file_range(int in, off_t *in_offset, int out, off_t *out_offset, size_t length, unsigned int flags) {
    REAL(ssize_t, "copy_file_range", (int, off_t *, int, off_t *, size_t, unsigned int));
    if (tracked_fd(out)) {
        int d = decide("copy_file_range", 1);
        if (d == 1) { errno = fail_errno(1); return -1; }
        if (d == 2 && length > 1) length /= 2;
    }
    return real_fn(in, in_offset, out, out_offset, length, flags);
}

/* ---- reading: an I/O error, or a short read ---- */

ssize_t read(int fd, void *buffer, size_t count) {
    REAL(ssize_t, "read", (int, void *, size_t));
    if (tracked_fd(fd)) {
        int d = decide("read", 0);
        if (d == 1) { errno = EIO; return -1; }
        if (d == 2 && count > 1) count /= 2;
    }
    return real_fn(fd, buffer, count);
}

typedef ssize_t (*pread_fn)(int, void *, size_t, off_t);

static ssize_t pread_common(pread_fn real_fn, int fd, void *buffer, size_t count, off_t offset) {
    if (tracked_fd(fd)) {
        int d = decide("pread", 0);
        if (d == 1) { errno = EIO; return -1; }
        if (d == 2 && count > 1) count /= 2;
    }
    return real_fn(fd, buffer, count, offset);
}

ssize_t pread(int fd, void *buffer, size_t count, off_t offset) {
    REAL(ssize_t, "pread", (int, void *, size_t, off_t));
    return pread_common(real_fn, fd, buffer, count, offset);
}

ssize_t pread64(int fd, void *buffer, size_t count, off_t offset) {
    REAL(ssize_t, "pread64", (int, void *, size_t, off_t));
    return pread_common(real_fn, fd, buffer, count, offset);
}

/* ---- syscall(2): the toolkit reaches copy_file_range this way ---- */

static long raw_syscall6(long n, long a, long b, long c, long d, long e, long f) {
    static long (*real_fn)(long, ...);
    if (!real_fn) real_fn = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
    return real_fn(n, a, b, c, d, e, f);
}

long syscall(long number, ...) {
    va_list ap;
    va_start(ap, number);
    long a = va_arg(ap, long), b = va_arg(ap, long), c = va_arg(ap, long);
    long d = va_arg(ap, long), e = va_arg(ap, long), f = va_arg(ap, long);
    va_end(ap);
    if (number == SYS_copy_file_range && tracked_fd((int)c)) {
        int decision = decide("copy_file_range", 1);
        if (decision == 1) { errno = fail_errno(1); return -1; }
        if (decision == 2 && e > 1) e /= 2;
    }
    return raw_syscall6(number, a, b, c, d, e, f);
}
